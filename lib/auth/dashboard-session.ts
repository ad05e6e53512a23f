import { getConfig } from '@/lib/config';
import {
  type ApiError,
  invalidCredentials,
  missingCredentials,
  signInRateLimited,
} from '@/lib/domain/errors';
import type { EventStore } from '@/lib/store/types';
import { privateKeyMatches } from './api-keys';
import type { Principal } from './principal';
import { deriveKey, loadServerSecret } from './secrets';
import { clearSessionCookieHeader, openSession, sealSession, sessionCookieHeader } from './session';
import { addressThrottleKey, getAuthThrottle } from './throttle';

/**
 * Dashboard sign-in: an API key's public and private key are checked once,
 * here, and exchanged for a sealed session cookie. The private key is never
 * stored, echoed or put in the cookie; the API routes accept the cookie as the
 * same principal Digest would prove.
 */

type HeaderReader = { get(name: string): string | null };

export type SignInOutcome =
  | { ok: true; principal: Principal; cookie: string }
  | { ok: false; error: ApiError };

// Deriving the key reads the server secret from the database; it never
// changes for a store, so it is derived once per store.
const sessionKeys = new WeakMap<EventStore, Promise<Buffer>>();

export function getSessionKey(store: EventStore): Promise<Buffer> {
  let key = sessionKeys.get(store);
  if (!key) {
    key = loadServerSecret(store).then((secret) => deriveKey(secret, 'session'));
    key.catch(() => sessionKeys.delete(store));
    sessionKeys.set(store, key);
  }
  return key;
}

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
  const sealed = sealSession(await getSessionKey(store), principal, SESSION_TTL_SECONDS, now);
  return {
    ok: true,
    principal,
    cookie: sessionCookieHeader(sealed, SESSION_TTL_SECONDS, input.secure),
  };
}

export function signOutCookie(secure: boolean): string {
  return clearSessionCookieHeader(secure);
}

/**
 * The principal a session cookie names, or null when there is none, it does
 * not open, or its key has since been deleted or disabled.
 */
export async function readDashboardSession(
  store: EventStore,
  cookieValue: string | undefined,
  now = Date.now(),
): Promise<Principal | null> {
  if (!cookieValue) return null;
  const opened = openSession(await getSessionKey(store), cookieValue, now);
  if (!opened) return null;
  const record = await store.getApiKeyByPublicKey(opened.publicKey);
  if (!record || record.disabled || record.id !== opened.apiKeyId) return null;
  return { ...opened, via: 'session' };
}

function firstForwarded(value: string | null): string | undefined {
  return value?.split(',')[0]?.trim() || undefined;
}

/** HTTPS directly, or behind a trusted proxy that says so: the cookie gets `Secure`. */
export function isSecureRequest(url: string, headers: HeaderReader, trustProxy: boolean): boolean {
  if (url.startsWith('https:')) return true;
  return trustProxy && firstForwarded(headers.get('x-forwarded-proto'))?.toLowerCase() === 'https';
}

/**
 * Refuses cross-site posts: a browser always sends Origin on a POST, and it
 * must name this host. Non-browser clients (curl) send neither Origin nor
 * Sec-Fetch-Site and are let through; they cannot ride a victim's cookie.
 */
export function isSameOriginRequest(
  url: string,
  headers: HeaderReader,
  trustProxy: boolean,
): boolean {
  const origin = headers.get('origin');
  if (origin === null) return headers.get('sec-fetch-site') !== 'cross-site';
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return false; // includes the opaque origin "null"
  }
  const forwardedHost = trustProxy ? firstForwarded(headers.get('x-forwarded-host')) : undefined;
  let host = forwardedHost ?? headers.get('host') ?? undefined;
  if (!host) {
    try {
      host = new URL(url).host;
    } catch {
      return false;
    }
  }
  return originHost === host.toLowerCase();
}

/** Where a sign-in may send the browser next: only a path on this site. */
export function safeNextPath(value: unknown): string {
  if (typeof value !== 'string') return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (value.length > 2048 || [...value].some((char) => char.charCodeAt(0) < 0x20)) return '/';
  return value;
}
