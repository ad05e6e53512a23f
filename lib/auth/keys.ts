import type { EventStore } from '@/lib/store/types';
import { deriveKey, loadServerSecret } from './secrets';

/** The keys derived from the server secret: one per purpose (see secrets.ts). */
export type ServerKeys = {
  /** MACs Digest nonces. */
  nonce: Buffer;
  /** Seals dashboard session cookies. */
  session: Buffer;
};

// Loading the secret may read (or create) it in the database and it never
// changes for a store, so the keys are derived once per store for the life of
// the process. The cache lives on globalThis so that Next's bundled copy of
// this module and the custom server's (server.ts) share it: both derive from
// the same secret, but neither should pay for the other's first request.
const CACHE_KEY = Symbol.for('org-events.server-keys');
type CacheHolder = { [CACHE_KEY]?: WeakMap<EventStore, Promise<ServerKeys>> };

/** The server's keys for this store, derived on first use. */
export function serverKeys(store: EventStore): Promise<ServerKeys> {
  const holder = globalThis as CacheHolder;
  const cache = (holder[CACHE_KEY] ??= new WeakMap());
  let keys = cache.get(store);
  if (!keys) {
    keys = loadServerSecret(store).then((secret) => ({
      nonce: deriveKey(secret, 'digest-nonce'),
      session: deriveKey(secret, 'session'),
    }));
    // A failed load (database down) is retried by the next request, not cached.
    keys.catch(() => cache.delete(store));
    cache.set(store, keys);
  }
  return keys;
}
