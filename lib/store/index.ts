import { getConfig } from '@/lib/config';
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
 * Opens (and migrates) the store a DATABASE_URL names. Only that engine's
 * module and driver are loaded: each CLI command is a process of its own,
 * and loading the other engine (pg and its COPY streams for a SQLite file,
 * better-sqlite3 for a PostgreSQL URL) was part of every command's start.
 */
export async function openStore(url: string = getConfig().DATABASE_URL): Promise<EventStore> {
  const target = parseDatabaseUrl(url);
  if (target.engine === 'postgres') {
    const { PostgresStore } = await import('./postgres');
    return PostgresStore.open(target.connectionString);
  }
  const { SqliteStore } = await import('./sqlite');
  return SqliteStore.open(target.filename);
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
