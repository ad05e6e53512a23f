'use client';

import { type FormEvent, useState } from 'react';

type Props = { next: string; initialError: string | null };

type ErrorBody = { detail?: string; errorCode?: string };

/**
 * Public key + private key, checked by the server once and exchanged for a
 * session cookie. The private key only ever travels in this one POST body.
 */
export function SignInForm({ next, initialError }: Props) {
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const response = await fetch('/api/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        credentials: 'same-origin',
        body: JSON.stringify({
          publicKey: form.get('publicKey'),
          privateKey: form.get('privateKey'),
          next,
        }),
      });
      if (response.ok) {
        // A full navigation, so the next page renders with the new cookie.
        window.location.assign(next);
        return;
      }
      const body = (await response.json().catch(() => ({}))) as ErrorBody;
      setError(body.detail ?? 'Sign-in failed. Try again.');
    } catch {
      setError('The server could not be reached. Check your connection and try again.');
    }
    setPending(false);
  }

  return (
    <div className="card">
      <h1>Sign in to Org Events</h1>
      <p className="lead">Use an API key that can read your organization’s events.</p>
      <form
        method="post"
        action="/api/session"
        onSubmit={(event) => void onSubmit(event)}
        noValidate
      >
        <input type="hidden" name="next" value={next} />
        <div className="field">
          <label htmlFor="publicKey">Public key</label>
          <input
            id="publicKey"
            name="publicKey"
            className="input mono"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            autoFocus
          />
        </div>
        <div className="field">
          <label htmlFor="privateKey">Private key</label>
          <input
            id="privateKey"
            name="privateKey"
            type="password"
            className="input mono"
            autoComplete="off"
            spellCheck={false}
            required
            aria-describedby="privateKeyHint"
          />
          <span id="privateKeyHint" className="hint">
            Checked once by the server and never stored in your browser.
          </span>
        </div>
        <div role="alert" aria-live="assertive">
          {error ? <p className="alert">{error}</p> : null}
        </div>
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
