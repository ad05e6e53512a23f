import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

/** The PostgreSQL server the tests use; CI and every dev machine run one locally. */
export const PG_ADMIN_URL =
  process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * Test databases sort text as a language does (ICU's en-US), not byte-wise:
 * the default of most real servers (the official image's is en_US.utf8),
 * where punctuation sorts apart from letters. The store must not depend on
 * the server's default (migration 0013); ICU needs no OS locale installed.
 */
export const LANGUAGE_COLLATION =
  "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'";

/**
 * And SERIALIZABLE by default, as some servers are set: the store's
 * concurrent writes must choose their own isolation, not inherit this.
 */
export const STRICTEST_ISOLATION = "SET default_transaction_isolation = 'serializable'";

/**
 * Creates a throwaway database and returns its URL and a dropper. Refuses a
 * non-local server so a test run can never touch a real deployment.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new URL(PG_ADMIN_URL);
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(admin.hostname)) {
    throw new Error(`Refusing to create test databases on non-local host ${admin.hostname}`);
  }
  const name = `org_events_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} ${LANGUAGE_COLLATION}`);
    await client.query(`ALTER DATABASE ${name} ${STRICTEST_ISOLATION}`);
  } finally {
    await client.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: PG_ADMIN_URL });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/**
 * A Kysely over its own small pool on `url`, for tests that work on a test
 * database beside a store. The pool listens for 'error': `pool.end()`
 * resolves before its connections have closed, so the test database's
 * `DROP … WITH (FORCE)` right after can terminate one still closing, and
 * node-postgres then emits "terminating connection due to administrator
 * command" on the pool, an uncaught exception without a listener (it failed
 * a test in CI).
 */
export function testKysely<DB>(url: string, max = 1): Kysely<DB> {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => undefined);
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * A test database where the store's statistics refresh fails as it does
 * when a DBA's lock_timeout meets a session holding the lock VACUUM takes
 * (SHARE UPDATE EXCLUSIVE: another vacuum, a CREATE INDEX CONCURRENTLY),
 * which inserts and deletes do not wait for. `lockTimeout` applies to
 * connections opened after this returns; `holdVacuumLock` takes the lock on
 * event_counts until `release` (or `drop`).
 */
export async function databaseWithVacuumLock(lockTimeout = '300ms'): Promise<{
  url: string;
  holdVacuumLock: () => Promise<void>;
  release: () => Promise<void>;
  drop: () => Promise<void>;
}> {
  const database = await createTestDatabase();
  const name = new URL(database.url).pathname.slice(1);
  const locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  await locker.query(`ALTER DATABASE ${name} SET lock_timeout = '${lockTimeout}'`);
  let held = false;
  const release = async () => {
    if (!held) return;
    held = false;
    await locker.query('COMMIT');
  };
  return {
    url: database.url,
    holdVacuumLock: async () => {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE event_counts IN SHARE UPDATE EXCLUSIVE MODE');
      held = true;
    },
    release,
    drop: async () => {
      await locker.end();
      await database.drop();
    },
  };
}
