'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { forgetSession, leavingSession, stayingInSession } from '@/lib/client/query-client';

export function SignOutButton() {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  async function signOut() {
    setPending(true);
    setFailure(null);
    // Requests refused from here on are the sign-out's doing, not an expiry.
    leavingSession();
    let response: Response | undefined;
    try {
      response = await fetch('/api/session', { method: 'DELETE', credentials: 'same-origin' });
    } catch {
      // No answer: nothing says the session ended.
    }
    // 401: there was no live session to end; either way it is over.
    if (response && (response.ok || response.status === 401)) {
      // Nothing read under this key may outlive the session in memory.
      forgetSession(queryClient);
      window.location.assign('/sign-in');
      return;
    }
    // Not signed out (the server could not record it, e.g. its Redis is
    // down): the session still opens the API, so say so and let the user retry.
    stayingInSession();
    setPending(false);
    const detail = await response
      ?.json()
      .then((body: { detail?: string }) => body.detail)
      .catch(() => undefined);
    setFailure(`Not signed out: ${detail ?? 'the server did not answer'}. Try again.`);
  }

  return (
    <>
      <button
        type="button"
        className="button small"
        onClick={() => void signOut()}
        disabled={pending}
      >
        Sign out
      </button>
      {failure && (
        <span role="alert" className="sign-out-failure">
          {failure}
        </span>
      )}
    </>
  );
}
