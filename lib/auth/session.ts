import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { getConfig } from '@/lib/config';
import { DASHBOARD_ACTIVITY_HEADER, DASHBOARD_BACKGROUND_VALUE } from '@/lib/domain/limits';
import type { EventStore } from '@/lib/store/types';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from './cookie-names';
import { serverKeys } from './keys';
import type { Principal } from './principal';
import { activityRefreshMs, isIdle } from './session-activity';
import { getAuthState } from './shared-state';

export { SECURE_SESSION_COOKIE, SESSION_COOKIE } from './cookie-names';

/**
 * k: API key id, p: public key, exp: expiry (s), sid: this session's id (what
 * sign-out revokes), iat: when it was issued (ms; what "sign out everywhere"
 * compares against).
 */
type SessionPayload = { k: string; p: string; exp: number; sid: string; iat: number };

/** What an opened cookie says: who, which session, since and until when (ms). */
export type OpenedSession = Pick<Principal, 'apiKeyId' | 'publicKey'> & {
  sessionId: string;
  issuedAt: number;
  expiresAt: number;
};

/** Seals a principal into an opaque cookie value. No private key ever goes in. */
export function sealSession(
  key: Buffer,
  principal: Pick<Principal, 'apiKeyId' | 'publicKey'>,
  ttlSeconds: number,
  now = Date.now(),
): string {
  const payload: SessionPayload = {
    k: principal.apiKeyId,
    p: principal.publicKey,
    exp: Math.floor(now / 1000) + ttlSeconds,
    sid: randomBytes(16).toString('base64url'),
    iat: now,
  };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/**
 * Opens a cookie value; null when forged, tampered with, malformed or
 * expired, or sealed before sessions had ids (those could not be revoked).
 */
export function openSession(key: Buffer, sealed: string, now = Date.now()): OpenedSession | null {
  try {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 12 + 16 + 2 || bytes.length > 4096) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    const json = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString(
      'utf8',
    );
    const payload = JSON.parse(json) as Partial<SessionPayload>;
    if (typeof payload.k !== 'string' || typeof payload.p !== 'string') return null;
    if (typeof payload.sid !== 'string' || typeof payload.iat !== 'number') return null;
    if (typeof payload.exp !== 'number' || payload.exp * 1000 <= now) return null;
    return {
      apiKeyId: payload.k,
      publicKey: payload.p,
      sessionId: payload.sid,
      issuedAt: payload.iat,
      expiresAt: payload.exp * 1000,
    };
  } catch {
    return null;
  }
}

/**
 * The session cookie's value in a Cookie request header, if it carries one;
 * the one reader of the cookie: the API, the dashboard's routes and its
 * pages. `secure` is isSecureRequest (lib/http/request.ts) of the request.
 * Over HTTPS only the `__Host-` cookie is read: an unprefixed one can be
 * planted by a sibling subdomain or a plain-HTTP page (cookie tossing), and
 * would sign a signed-out browser in as whoever planted it. (It was read
 * too while sessions signed in before the prefix, 6377283, lived on.)
 * Over plain HTTP, where browsers refuse the prefix, the unprefixed one is
 * read, after a `__Host-` one if the browser has any.
 */
export function sessionCookieValue(
  cookieHeader: string | null | undefined,
  secure: boolean,
): string | undefined {
  const { prefixed, unprefixed } = sessionCookiesByName(cookieHeader);
  return secure ? prefixed[0] : (prefixed[0] ?? unprefixed[0]);
}

/**
 * Every session cookie value in a Cookie request header, under either name
 * (`__Host-` ones first, then as sent): what sign-out ends, as the browser
 * drops them all; over HTTPS that includes an unprefixed one, never read.
 */
export function sessionCookieValues(cookieHeader: string | null | undefined): string[] {
  const { prefixed, unprefixed } = sessionCookiesByName(cookieHeader);
  return [...new Set([...prefixed, ...unprefixed])];
}

function sessionCookiesByName(cookieHeader: string | null | undefined): {
  prefixed: string[];
  unprefixed: string[];
} {
  const prefixed: string[] = [];
  const unprefixed: string[] = [];
  for (const part of cookieHeader?.split(';') ?? []) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === SECURE_SESSION_COOKIE) prefixed.push(value);
    else if (name === SESSION_COOKIE) unprefixed.push(value);
  }
  return { prefixed, unprefixed };
}

/**
 * How a request uses its session: 'activity' (a page load, an API call the
 * user made) counts toward keeping it from the idle timeout; 'background'
 * (what the dashboard asks by itself) only checks it (session-activity.ts).
 */
export type SessionUse = 'activity' | 'background';

/** The use a request's headers declare: background when the dashboard marked it so. */
export function sessionUseOf(headers: { get(name: string): string | null }): SessionUse {
  return headers.get(DASHBOARD_ACTIVITY_HEADER)?.trim().toLowerCase() === DASHBOARD_BACKGROUND_VALUE
    ? 'background'
    : 'activity';
}

/**
 * A session cookie value checked: the session it opens, or why there is
 * none: 'none' sent, 'refused' (forged, tampered with, expired, signed out,
 * its key deleted, disabled or replaced), or 'idle' (no activity for
 * SESSION_IDLE_SECONDS).
 */
export type SessionCheck = { session: OpenedSession } | { ended: 'none' | 'refused' | 'idle' };

/**
 * The one reader of a session: the principal a session cookie value names, or
 * null when there is none, it does not open with this server's key (forged,
 * tampered with, truncated), it has expired, it was signed out (on any
 * instance sharing the revocation store), it has been idle for
 * SESSION_IDLE_SECONDS, or its key has since been deleted, disabled or
 * replaced by another with the same public key. The API (authenticate) and
 * the dashboard pages both ask here; a request that is `activity` keeps the
 * session from the idle timeout. Rejects with SERVICE_UNAVAILABLE when
 * revocations cannot be checked (Redis down).
 */
export async function readSession(
  store: EventStore,
  sealed: string | undefined,
  now = Date.now(),
  use: SessionUse = 'activity',
): Promise<Principal | null> {
  const checked = await checkSession(store, sealed, use, now);
  return 'session' in checked ? sessionPrincipal(checked.session) : null;
}

/** Who an open session acts as. */
export function sessionPrincipal({ apiKeyId, publicKey }: OpenedSession): Principal {
  return { apiKeyId, publicKey, via: 'session' };
}

/** readSession, saying why there is no session (the sign-in page tells idle apart). */
export async function checkSession(
  store: EventStore,
  sealed: string | undefined,
  use: SessionUse,
  now = Date.now(),
): Promise<SessionCheck> {
  if (!sealed) return { ended: 'none' };
  const opened = openSession((await serverKeys(store)).session, sealed, now);
  if (!opened) return { ended: 'refused' };
  const record = await store.getApiKeyByPublicKey(opened.publicKey);
  if (!record || record.disabled || record.id !== opened.apiKeyId) return { ended: 'refused' };
  const state = getAuthState();
  const idleMs = getConfig().SESSION_IDLE_SECONDS * 1000;
  // Both at once (one round trip's wait with Redis): recording activity for
  // a session found revoked changes nothing, it stays refused.
  const [revoked, lastActive] = await Promise.all([
    state.revocations.isRevoked(opened, now),
    idleMs > 0
      ? state.activity.lastActive(
          opened,
          { idleMs, refreshMs: activityRefreshMs(idleMs), record: use === 'activity' },
          now,
        )
      : undefined,
  ]);
  if (revoked) return { ended: 'refused' };
  if (lastActive !== undefined && isIdle(lastActive, idleMs, now)) return { ended: 'idle' };
  return { session: opened };
}

/**
 * Sign-out: the session a cookie value names is refused from now on, by
 * every instance sharing the revocation store, until it would have expired
 * anyway. That holds for any session the value opens, idle or not: an idle
 * one's sign-out went unrecorded, and it came back to life wherever the idle
 * timeout no longer held it (SESSION_IDLE_SECONDS raised or turned off, an
 * instance set otherwise), for anyone holding a copy of the cookie. With
 * `everywhere`, every session of the same key issued until now is refused
 * too; that needs a live session. Returns the principal signed out, or null
 * when the value named no live session.
 */
export async function revokeSession(
  store: EventStore,
  sealed: string | undefined,
  options: { everywhere?: boolean } = {},
  now = Date.now(),
): Promise<Principal | null> {
  const checked = await checkSession(store, sealed, 'background', now);
  const opened =
    'session' in checked
      ? checked.session
      : sealed && checked.ended === 'idle'
        ? openSession((await serverKeys(store)).session, sealed, now)
        : null;
  if (!opened) return null;
  await getAuthState().revocations.revoke(opened.sessionId, opened.expiresAt, now);
  if (!('session' in checked)) return null;
  if (options.everywhere) await signOutEverywhere(opened.apiKeyId, now);
  return sessionPrincipal(opened);
}

/**
 * Ends every dashboard session of an API key issued until `now`, on every
 * instance (for the sign-out-everywhere route and operators' tools). Sessions
 * signed in afterwards are not affected. The mark is kept for one session
 * lifetime, by when every session it voids has expired by itself.
 */
export async function signOutEverywhere(apiKeyId: string, now = Date.now()): Promise<void> {
  const keepUntil = now + getConfig().SESSION_TTL_SECONDS * 1000;
  await getAuthState().revocations.revokeIssuedBefore(apiKeyId, now, keepUntil, now);
}

/** The Set-Cookie value for a session (Secure and `__Host-` when served over HTTPS). */
export function sessionCookieHeader(value: string, ttlSeconds: number, secure: boolean): string {
  return cookieHeader(secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, value, ttlSeconds, secure);
}

/**
 * The Set-Cookie values that end a session in the browser: over HTTPS both
 * names, so that an unprefixed one (from before the `__Host-` prefix, or
 * planted), which is no longer read there, does not stay behind.
 */
export function clearSessionCookieHeaders(secure: boolean): string[] {
  const names = secure ? [SECURE_SESSION_COOKIE, SESSION_COOKIE] : [SESSION_COOKIE];
  return names.map((name) => cookieHeader(name, '', 0, secure));
}

/** A session cookie's Set-Cookie value: one set of attributes for setting and clearing it. */
function cookieHeader(name: string, value: string, maxAge: number, secure: boolean): string {
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
