'use client';

import { type FormEvent, useState, useSyncExternalStore } from 'react';
import { subscribeNever } from '@/components/events/use-events-view';
import { keepsSecureCookiesOverHttp } from '@/lib/domain/secure-cookies';

/**
 * What the server knows of HTTPS for the session cookie: whether the cookie
 * it sets is Secure, PUBLIC_BASE_URL's origin when https, and whether a
 * no-JavaScript post was just refused as HTTPS_REQUIRED.
 */
type HttpsFacts = { secureCookie: boolean; origin: string | null; required: boolean };

type Props = { next: string; initialError: string | null; https: HttpsFacts };

type ErrorBody = { detail?: string; errorCode?: string };

/**
 * Public key + private key, checked by the server once and exchanged for a
 * session cookie. The private key only ever travels in this one POST body.
 */
export function SignInForm({ next, initialError, https }: Props) {
  const [error, setError] = useState<string | null>(initialError);
  const [pending, setPending] = useState(false);
  // Only the browser knows it is on a plain-http page (behind a TLS proxy
  // the hop to the server is plain HTTP too), where it would drop the
  // Secure cookie and come back here: said before the keys are typed.
  const plainHttpHost = useSyncExternalStore(subscribeNever, plainHttpHostname, () => null);
  const [refused, setRefused] = useState(https.required);
  const httpsRequired = refused || (https.secureCookie && plainHttpHost !== null);
  const httpsOrigin = https.origin ?? (plainHttpHost ? `https://${plainHttpHost}` : null);

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
      if (body.errorCode === 'HTTPS_REQUIRED') setRefused(true);
      else setError(body.detail ?? 'Sign-in failed. Try again.');
    } catch {
      setError('The server could not be reached. Check your connection and try again.');
    }
    setPending(false);
  }

  return (
    <div className="card">
      <h1>Sign in to Org Events</h1>
      <p className="lead">Use an API key that can read your organization’s events.</p>
      {httpsRequired ? (
        <p className="notice error" role="alert" data-testid="https-required">
          <strong>Sign in over HTTPS.</strong> This dashboard’s session cookie is sent over HTTPS
          only, and your browser drops it on this plain-http page, so signing in here would bring
          you back to this form. Open the dashboard at{' '}
          {httpsOrigin ? (
            <a href={`${httpsOrigin}/sign-in?next=${encodeURIComponent(next)}`}>{httpsOrigin}</a>
          ) : (
            'its https:// address'
          )}
          .
        </p>
      ) : null}
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

/** This page's hostname when it is plain http on a host whose Secure cookies the browser drops. */
function plainHttpHostname(): string | null {
  const { protocol, hostname } = window.location;
  return protocol === 'http:' && !keepsSecureCookiesOverHttp(hostname) ? hostname : null;
}
