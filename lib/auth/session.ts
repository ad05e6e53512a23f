import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EventStore } from '@/lib/store/types';
import { serverKeys } from './keys';
import type { Principal } from './principal';

/** The dashboard's session cookie: sealed (AES-256-GCM), expiring, HttpOnly. */
export const SESSION_COOKIE = 'org_events_session';

type SessionPayload = { k: string; p: string; exp: number };

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
  };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Opens a cookie value; null when forged, tampered with, malformed or expired. */
export function openSession(
  key: Buffer,
  sealed: string,
  now = Date.now(),
): Pick<Principal, 'apiKeyId' | 'publicKey'> | null {
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
    if (typeof payload.exp !== 'number' || payload.exp * 1000 <= now) return null;
    return { apiKeyId: payload.k, publicKey: payload.p };
  } catch {
    return null;
  }
}

/** The session cookie's value in a Cookie request header, if it carries one. */
export function sessionCookieValue(cookieHeader: string | null | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The one reader of a session: the principal a session cookie value names, or
 * null when there is none, it does not open with this server's key (forged,
 * tampered with, truncated), it has expired, or its key has since been
 * deleted, disabled or replaced by another with the same public key. The API
 * (authenticate) and the dashboard pages both ask here.
 */
export async function readSession(
  store: EventStore,
  sealed: string | undefined,
  now = Date.now(),
): Promise<Principal | null> {
  if (!sealed) return null;
  const opened = openSession((await serverKeys(store)).session, sealed, now);
  if (!opened) return null;
  const record = await store.getApiKeyByPublicKey(opened.publicKey);
  if (!record || record.disabled || record.id !== opened.apiKeyId) return null;
  return { apiKeyId: record.id, publicKey: record.publicKey, via: 'session' };
}

/** The Set-Cookie value for a session (Secure when served over HTTPS). */
export function sessionCookieHeader(value: string, ttlSeconds: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    `Max-Age=${ttlSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}

export function clearSessionCookieHeader(secure: boolean): string {
  return [
    `${SESSION_COOKIE}=`,
    'Path=/',
    'Max-Age=0',
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
  ].join('; ');
}
