import { hkdfSync, randomBytes } from 'node:crypto';
import { getConfig } from '@/lib/config';
import type { EventStore } from '@/lib/store/types';

/**
 * The server secret signs nonces and seals sessions. It comes from
 * ORG_EVENTS_SECRET, or is generated once and kept in the database, so every
 * instance on the same database accepts the others' nonces and cookies.
 */
export async function loadServerSecret(store: EventStore): Promise<Buffer> {
  const configured = getConfig().ORG_EVENTS_SECRET;
  const secret =
    configured ??
    (await store.getOrCreateSetting('server_secret', () => randomBytes(32).toString('hex')));
  return Buffer.from(secret, 'utf8');
}

/** Independent keys per purpose, so a nonce MAC can never open a session. */
export function deriveKey(
  secret: Buffer,
  purpose: 'digest-nonce' | 'session' | 'ha1-at-rest',
): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `org-events:${purpose}`, 32));
}

const MISSING_SECRET_WARNING = [
  '',
  '!!! ========================================================================== !!!',
  '!!! ORG_EVENTS_SECRET is not set.                                               !!!',
  "!!! The server secret is generated and kept in the database, and API keys' HA1 !!!",
  '!!! values are stored unencrypted: a copy of the database alone lets anyone     !!!',
  '!!! call the API as any key and forge dashboard sessions. Set ORG_EVENTS_SECRET !!!',
  '!!! (32+ random characters, e.g. `openssl rand -hex 32`) on every instance,     !!!',
  '!!! then re-encrypt the stored keys (`keys rehash`).                            !!!',
  '!!! ========================================================================== !!!',
  '',
].join('\n');

let warnedAboutMissingSecret = false;

/**
 * For the server's start: in production without ORG_EVENTS_SECRET, prints
 * one loud warning (once per process) and returns it; the server keeps
 * working. Null when a secret is configured or not in production.
 */
export function warnIfSecretMissing(
  production: boolean,
  print: (message: string) => void = console.warn,
): string | null {
  if (!production || getConfig().ORG_EVENTS_SECRET) return null;
  if (!warnedAboutMissingSecret) {
    warnedAboutMissingSecret = true;
    print(MISSING_SECRET_WARNING);
  }
  return MISSING_SECRET_WARNING;
}
