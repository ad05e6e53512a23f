import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { SignInForm } from '@/components/sign-in-form';
import { checkCurrentSession, idleTimeout } from '@/lib/dashboard/server';
import { isSecureRequest, publicHttpsOrigin, safeNextPath } from '@/lib/http/request';
import { unlessUnavailable } from '@/app/unavailable';

export const metadata: Metadata = { title: 'Sign in' };

/** Messages for errors that come back from a no-JavaScript form post. */
const FORM_ERRORS: Record<string, string> = {
  INVALID_CREDENTIALS: 'The public key or private key is not correct.',
  MISSING_CREDENTIALS: 'Enter both the public key and the private key.',
  RATE_LIMITED: 'Too many failed sign-in attempts. Wait a minute and try again.',
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function SignInPage(props: Props) {
  return unlessUnavailable(() => signInPage(props));
}

async function signInPage({ searchParams }: Props) {
  const params = await searchParams;
  const next = safeNextPath(typeof params.next === 'string' ? params.next : undefined);
  const checked = await checkCurrentSession();
  if ('session' in checked) redirect(next);
  // A page's load sends idle sessions here with reason=idle; the browser's
  // calls know only of a 401 (reason=expired), and the cookie tells which.
  const idleFor = idleTimeout();
  const idle = idleFor !== null && (params.reason === 'idle' || checked.ended === 'idle');
  const errorCode = typeof params.error === 'string' ? params.error : undefined;
  return (
    <main id="main" className="sign-in">
      {idle ? (
        <p className="notice" role="status" data-testid="session-idle">
          <strong>You were signed out after {idleFor} without activity.</strong> Sign in again to
          return to the page you were on.
        </p>
      ) : params.reason === 'expired' ? (
        <p className="notice" role="status" data-testid="session-expired">
          <strong>Your session has expired.</strong> Sign in again to return to the page you were
          on.
        </p>
      ) : null}
      <SignInForm
        next={next}
        initialError={
          errorCode && errorCode !== 'HTTPS_REQUIRED'
            ? (FORM_ERRORS[errorCode] ?? 'Sign-in failed.')
            : null
        }
        https={{
          secureCookie: isSecureRequest({ headers: await headers() }),
          origin: publicHttpsOrigin(),
          required: errorCode === 'HTTPS_REQUIRED',
        }}
      />
    </main>
  );
}
