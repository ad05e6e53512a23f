import { getConfig } from '@/lib/config';
import { parseDatabaseUrl } from './database-url';
import { isRefusedConfiguration, StoreUnavailableError } from './errors';
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

/** The first pause between attempts of waitForStore, doubled per attempt up to WAIT_MAX_PAUSE_MS. */
const WAIT_FIRST_PAUSE_MS = 500;
const WAIT_MAX_PAUSE_MS = 5_000;

/**
 * The process's store (getStore), tried again while the database cannot
 * answer (StoreUnavailableError: refused, starting up, out of connections)
 * for up to `seconds`; `onWait` hears of each failed attempt and the pause
 * before the next. Any other failure (a wrong password, a database that
 * does not exist: isRefusedConfiguration; a migration that fails) is thrown
 * at once: waiting cannot fix it. Once the time is up the last
 * unavailability is thrown, saying how long it was waited for.
 */
export async function waitForStore(
  seconds: number,
  onWait: (wait: { reason: string; attempt: number; pauseMs: number; leftMs: number }) => void,
): Promise<EventStore> {
  const deadline = performance.now() + seconds * 1000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await getStore();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || isRefusedConfiguration(error)) throw error;
      const leftMs = deadline - performance.now();
      if (leftMs <= 0) {
        if (seconds === 0) throw error;
        throw new StoreUnavailableError(
          `${error.message} (still after waiting ${seconds} s for it: DATABASE_WAIT_SECONDS)`,
          { cause: error.cause },
        );
      }
      const pauseMs = Math.min(WAIT_FIRST_PAUSE_MS * 2 ** (attempt - 1), WAIT_MAX_PAUSE_MS, leftMs);
      onWait({ reason: error.message, attempt, pauseMs, leftMs });
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
