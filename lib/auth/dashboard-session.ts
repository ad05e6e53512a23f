import { getConfig } from '@/lib/config';
import {
  type ApiError,
  invalidCredentials,
  missingCredentials,
  signInRateLimited,
} from '@/lib/domain/errors';
import type { EventStore } from '@/lib/store/types';
import { privateKeyMatches } from './api-keys';
import { serverKeys } from './keys';
import type { Principal } from './principal';
import { clearSessionCookieHeader, sealSession, sessionCookieHeader } from './session';
import { addressThrottleKey, getAuthThrottle } from './throttle';

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

const MAX_PUBLIC_KEY_LENGTH = 128;
const MAX_PRIVATE_KEY_LENGTH = 256;

export async function signIn(
  store: EventStore,
  input: {
    publicKey: unknown;
    privateKey: unknown;
    remoteAddress: string | undefined;
    secure: boolean;
  },
  now = Date.now(),
): Promise<SignInOutcome> {
  const publicKey = typeof input.publicKey === 'string' ? input.publicKey.trim() : '';
  const privateKey = typeof input.privateKey === 'string' ? input.privateKey.trim() : '';
  if (!publicKey || !privateKey) return { ok: false, error: missingCredentials() };
  if (publicKey.length > MAX_PUBLIC_KEY_LENGTH || privateKey.length > MAX_PRIVATE_KEY_LENGTH) {
    return { ok: false, error: invalidCredentials() };
  }

  // Sign-in shares Digest's throttle, so guessing here is no cheaper than there.
  const throttle = getAuthThrottle();
  const keyThrottle = `key:${publicKey}`;
  const throttleKeys = [keyThrottle, addressThrottleKey(input.remoteAddress)];
  const verdict = throttle.check(throttleKeys, now);
  if (verdict.blocked) return { ok: false, error: signInRateLimited(verdict.retryAfterSeconds) };

  const { DIGEST_REALM, SESSION_TTL_SECONDS } = getConfig();
  const record = await store.getApiKeyByPublicKey(publicKey);
  if (!record || record.disabled || !privateKeyMatches(record, privateKey, DIGEST_REALM)) {
    throttle.recordFailure(throttleKeys, now);
    return { ok: false, error: invalidCredentials() };
  }
  // Only the key was proven; forgiving the address would refill a guesser's budget.
  throttle.recordSuccess([keyThrottle]);

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

export function signOutCookie(secure: boolean): string {
  return clearSessionCookieHeader(secure);
}
