import { getConfig } from '@/lib/config';
import {
  ApiError,
  invalidCredentials,
  missingCredentials,
  signInRateLimited,
  userUnauthorized,
} from '@/lib/domain/errors';
import type { EventStore } from '@/lib/store/types';
import { privateKeyMatches } from './api-keys';
import { serverKeys } from './keys';
import type { Principal } from './principal';
import {
  clearSessionCookieHeaders,
  revokeSession,
  sealSession,
  sessionCookieHeader,
} from './session';
import { getAuthState } from './shared-state';
import { attemptThrottleKeys, keyThrottleKey, MAX_THROTTLED_PUBLIC_KEY } from './throttle';

/**
 * Dashboard sign-in: an API key's public and private key are checked once,
 * here, and exchanged for a sealed session cookie. The private key is never
 * stored, echoed or put in the cookie; the API routes accept the cookie as the
 * same principal Digest would prove. Reading a session back is readSession
 * in session.ts, shared by the API and the dashboard pages.
 */

export type SignInOutcome =
  | { ok: true; principal: Principal; cookie: string }
  | { ok: false; error: ApiError };

export type SignInInput = {
  publicKey: unknown;
  privateKey: unknown;
  remoteAddress: string | undefined;
  secure: boolean;
};

const MAX_PRIVATE_KEY_LENGTH = 256;

export async function signIn(
  store: EventStore,
  input: SignInInput,
  now = Date.now(),
): Promise<SignInOutcome> {
  try {
    return await checkSignIn(store, input, now);
  } catch (error) {
    // The shared throttle is unreachable (Redis down): refuse with its 503.
    if (error instanceof ApiError) return { ok: false, error };
    throw error;
  }
}

async function checkSignIn(
  store: EventStore,
  input: SignInInput,
  now = Date.now(),
): Promise<SignInOutcome> {
  const publicKey = typeof input.publicKey === 'string' ? input.publicKey.trim() : '';
  const privateKey = typeof input.privateKey === 'string' ? input.privateKey.trim() : '';
  if (!publicKey || !privateKey) return { ok: false, error: missingCredentials() };
  if (publicKey.length > MAX_THROTTLED_PUBLIC_KEY || privateKey.length > MAX_PRIVATE_KEY_LENGTH) {
    return { ok: false, error: invalidCredentials() };
  }

  // Sign-in shares Digest's throttle, so guessing here is no cheaper than there.
  const throttle = getAuthState().throttle;
  const throttleKeys = attemptThrottleKeys(publicKey, input.remoteAddress);
  const verdict = await throttle.check(throttleKeys, now);
  if (verdict.blocked) return { ok: false, error: signInRateLimited(verdict.retryAfterSeconds) };

  const { DIGEST_REALM, SESSION_TTL_SECONDS } = getConfig();
  const record = await store.getApiKeyByPublicKey(publicKey);
  // Decided against the throttle again, as Digest does (authenticate.ts):
  // sign-ins sent together all passed the check above.
  if (!record || record.disabled || !privateKeyMatches(store, record, privateKey, DIGEST_REALM)) {
    const late = await throttle.recordFailure(throttleKeys, now);
    if (late.blocked) return { ok: false, error: signInRateLimited(late.retryAfterSeconds) };
    return { ok: false, error: invalidCredentials() };
  }
  const late = await throttle.check(throttleKeys, now);
  if (late.blocked) return { ok: false, error: signInRateLimited(late.retryAfterSeconds) };
  // Only the key was proven; forgiving the address would refill a guesser's budget.
  await throttle.recordSuccess([keyThrottleKey(publicKey)], now);

  const principal: Principal = {
    apiKeyId: record.id,
    publicKey: record.publicKey,
    via: 'session',
  };
  const sealed = sealSession(
    (await serverKeys(store)).session,
    principal,
    SESSION_TTL_SECONDS,
    now,
  );
  return {
    ok: true,
    principal,
    cookie: sessionCookieHeader(sealed, SESSION_TTL_SECONDS, input.secure),
  };
}

export type SignOutOutcome =
  | { ok: true; cookies: string[] }
  /**
   * Sign-out everywhere without a live session to name the key (the cookie
   * is cleared), or the revocation store is down (no cookie: see signOut).
   */
  | { ok: false; error: ApiError; cookies?: string[] };

/**
 * Dashboard sign-out: the session the cookie names is revoked on every
 * instance (session.ts revokeSession) and the cookie cleared. So are those
 * of the request's other session cookies (`alsoSent`: every other one sent
 * under either name, such as an unprefixed one beside the `__Host-` one over
 * HTTPS, which is no longer read there), whose cookies are cleared too: a
 * copy of one must not outlive the sign-out. With
 * `everywhere`, every session of the same key ends too; that needs a live
 * session to say which key (USER_UNAUTHORIZED otherwise). When the
 * revocation cannot be recorded (Redis down: 503), the cookie is kept: the
 * session would still open the API on every instance, and a browser that
 * had dropped its cookie could neither see that nor sign out again.
 */
export async function signOut(
  store: EventStore,
  input: {
    sealed: string | undefined;
    alsoSent?: readonly string[];
    everywhere: boolean;
    secure: boolean;
  },
  now = Date.now(),
): Promise<SignOutOutcome> {
  const cookies = clearSessionCookieHeaders(input.secure);
  try {
    for (const other of input.alsoSent ?? []) await revokeSession(store, other, {}, now);
    const signedOut = await revokeSession(
      store,
      input.sealed,
      { everywhere: input.everywhere },
      now,
    );
    if (input.everywhere && !signedOut) return { ok: false, error: userUnauthorized(), cookies };
    return { ok: true, cookies };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error };
    throw error;
  }
}
