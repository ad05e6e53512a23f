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
export function deriveKey(secret: Buffer, purpose: 'digest-nonce' | 'session'): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), `org-events:${purpose}`, 32));
}
