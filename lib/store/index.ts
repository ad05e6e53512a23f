import { getConfig } from '@/lib/config';
import { parseDatabaseUrl } from './database-url';
import { PostgresStore } from './postgres';
import { SqliteStore } from './sqlite';
import type { EventStore } from './types';

export type { EventStore, StoreHealth } from './types';
export { StoreUnavailableError, isUnavailable } from './errors';
export { setStoreLogger, type StoreLogger } from './log';
export { DatabaseUrlError, parseDatabaseUrl, type DatabaseTarget } from './database-url';

/**
 * Opens (and migrates) the store a DATABASE_URL names. Both engines' modules
 * are imported statically: Playwright's TypeScript loader (the e2e suite's
 * global setup opens stores) cannot run `import('./sqlite')` from this
 * module, so only the CLI's commands are loaded lazily (scripts/cli.ts).
 */
export async function openStore(url: string = getConfig().DATABASE_URL): Promise<EventStore> {
  const target = parseDatabaseUrl(url);
  if (target.engine === 'sqlite') return SqliteStore.open(target.filename);
  const { DATABASE_POOL_SIZE: poolSize, DATABASE_QUERY_TIMEOUT_SECONDS: timeout } = getConfig();
  return PostgresStore.open(target.connectionString, poolSize, {
    queryDeadlineMs: timeout === undefined ? undefined : timeout * 1000,
  });
}

// One store per process, shared through globalThis so the custom server and
// Next's bundled route handlers (separate module graphs) use the same pool.
const STORE_KEY = Symbol.for('org-events.store');
type StoreHolder = { [STORE_KEY]?: Promise<EventStore> };

export function getStore(): Promise<EventStore> {
  const holder = globalThis as StoreHolder;
  holder[STORE_KEY] ??= openStore().catch((error: unknown) => {
    delete holder[STORE_KEY];
    throw error;
  });
  return holder[STORE_KEY];
}
