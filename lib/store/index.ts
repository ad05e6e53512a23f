import { getConfig } from '@/lib/config';
import { PostgresStore } from './postgres';
import { SqliteStore } from './sqlite';
import type { EventStore } from './types';

export type { EventStore, StoreHealth } from './types';
export { StoreUnavailableError, isUnavailable } from './errors';
export { setStoreLogger, type StoreLogger } from './log';

/** Which engine a DATABASE_URL names, and where. */
export function parseDatabaseUrl(
  url: string,
): { engine: 'sqlite'; filename: string } | { engine: 'postgres'; connectionString: string } {
  if (/^postgres(ql)?:\/\//i.test(url)) return { engine: 'postgres', connectionString: url };
  if (url === ':memory:') return { engine: 'sqlite', filename: ':memory:' };
  const filename = url.replace(/^(sqlite|file):(\/\/)?/i, '');
  if (!filename) throw new Error(`DATABASE_URL names no SQLite file: ${url}`);
  return { engine: 'sqlite', filename };
}

/**
 * Opens (and migrates) the store a DATABASE_URL names. Both engines' modules
 * are imported statically: Playwright's TypeScript loader (the e2e suite's
 * global setup opens stores) cannot run `import('./sqlite')` from this
 * module, so only the CLI's commands are loaded lazily (scripts/cli.ts).
 */
export async function openStore(url: string = getConfig().DATABASE_URL): Promise<EventStore> {
  const target = parseDatabaseUrl(url);
  return target.engine === 'postgres'
    ? PostgresStore.open(target.connectionString)
    : SqliteStore.open(target.filename);
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
