'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { leavingSession } from '@/lib/client/query-client';

export function SignOutButton() {
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);

  async function signOut() {
    setPending(true);
    // Requests refused from here on are the sign-out's doing, not an expiry.
    leavingSession();
    try {
      await fetch('/api/session', { method: 'DELETE', credentials: 'same-origin' });
    } finally {
      // Nothing read under this key may outlive the session in memory.
      queryClient.clear();
      window.location.assign('/sign-in');
    }
  }

  return (
    <button
      type="button"
      className="button small"
      onClick={() => void signOut()}
      disabled={pending}
    >
      Sign out
    </button>
  );
}
