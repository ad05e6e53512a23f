import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Migrator } from 'kysely';
import pg from 'pg';
import { ApiError, toApiError } from '@/lib/domain/errors';
import { objectIdAt } from '@/lib/domain/object-id';
import { createTestDatabase, testKysely } from '@/tests/helpers/postgres';
import { StoreUnavailableError } from './errors';
import { migrateToLatest } from './kysely-store';
import { migrationProvider } from './migrations';
import type { Database } from './schema';
import { eventsOneMinuteApart } from './testing/fixtures';
import { PostgresStore } from './postgres';

/**
 * A server whose DBA set statement_timeout or lock_timeout for every
 * connection (ALTER DATABASE ... SET): a query the server gives up on is a
 * 503 with Retry-After, not a bug's 500, while migrations and the vacuum
 * after a bulk load, which may rightly run long, are not cut short. A lock
 * held by another session makes the wait, so nothing depends on how fast
 * the machine is.
 */
describe('PostgreSQL store under server-wide timeouts', () => {
  const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'eeeeeeeeeeeeeeee');
  const base = Date.UTC(2026, 0, 1);
  const events = eventsOneMinuteApart(orgId, 200, {
    from: base,
    extra: (i) => ({ username: `user${i % 7}@example.com` }),
  });
  let database: { url: string; drop: () => Promise<void> };
  let name: string;
  /** On the test database itself: it takes the locks that make the store wait. */
  let locker: pg.Client;
  const opened: PostgresStore[] = [];

  const setForNewConnections = async (setting: string) => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE ${name} ${setting}`);
    } finally {
      await admin.end();
    }
  };
  const open = async () => {
    const store = await PostgresStore.open(database.url, 2);
    opened.push(store);
    return store;
  };
  /** Takes `lock` in a transaction of its own; `released` settles once it is let go, `ms` later. */
  const holdLock = async (lock: string, ms: number) => {
    await locker.query('BEGIN');
    await locker.query(lock);
    const release = async () => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      await locker.query('COMMIT');
    };
    return { released: release() };
  };
  const list = (store: PostgresStore) =>
    store.listEvents({ orgId, offset: 0, limit: 20, includeCount: true, includeRaw: false });

  before(async () => {
    database = await createTestDatabase();
    name = new URL(database.url).pathname.slice(1);
    const store = await open();
    await store.createOrg({ id: orgId, name: 'Timeout Org', created: base });
    await store.insertEvents(orgId, events);
    locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
  });
  after(async () => {
    await locker.end();
    for (const store of opened) await store.close();
    await database.drop();
  });

  /**
   * A new store's list, with `name` set to 300 ms for new connections,
   * while another session holds the events table: what the list failed
   * with, and whether the same store answers once the lock is gone.
   */
  const listWhileLocked = async (name: 'statement_timeout' | 'lock_timeout') => {
    await setForNewConnections(`SET ${name} = '300ms'`);
    try {
      const store = await open();
      const { released } = await holdLock('LOCK TABLE events IN ACCESS EXCLUSIVE MODE', 1500);
      const failure = await list(store).then(
        () => undefined,
        (error: unknown) => error,
      );
      await released;
      return { failure, totalAfter: (await list(store)).totalCount };
    } finally {
      await setForNewConnections(`RESET ${name}`);
    }
  };

  test('a statement_timeout cancel is StoreUnavailableError (timedOut), answered 503 with Retry-After; the next read answers', async () => {
    const { failure, totalAfter } = await listWhileLocked('statement_timeout');
    assert.ok(failure instanceof StoreUnavailableError, `got ${String(failure)}`);
    assert.equal(failure.timedOut, true);
    assert.equal((failure.cause as { code?: string }).code, '57014');
    const answer = toApiError(failure);
    assert.ok(answer instanceof ApiError);
    assert.equal(answer.status, 503);
    assert.equal(answer.code, 'SERVICE_UNAVAILABLE');
    assert.match(answer.detail, /database query timed out/);
    assert.deepEqual(answer.headers, [['Retry-After', '5']]);
    // Nothing is left broken: the same store answers once the lock is gone.
    assert.equal(totalAfter, events.length);
  });

  test('a lock_timeout is StoreUnavailableError (timedOut) too, answered 503', async () => {
    const { failure, totalAfter } = await listWhileLocked('lock_timeout');
    assert.ok(failure instanceof StoreUnavailableError, `got ${String(failure)}`);
    assert.equal(failure.timedOut, true);
    assert.equal((failure.cause as { code?: string }).code, '55P03');
    assert.equal(toApiError(failure).status, 503);
    assert.equal(totalAfter, events.length);
  });

  test('a migration and the vacuum after a bulk load outlast a statement_timeout they wait beyond', async () => {
    // Back to 0012 first (no timeout yet), so opening a store migrates again.
    const db = testKysely<Database>(database.url, 10);
    try {
      const down = await new Migrator({ db, provider: migrationProvider }).migrateTo(
        '0012_one_live_mirror',
      );
      assert.equal(down.error, undefined);
      await setForNewConnections("SET statement_timeout = '300ms'");
      // 0013 alters term_dict; the lock keeps it waiting past the timeout.
      const { released } = await holdLock('LOCK TABLE term_dict IN ACCESS EXCLUSIVE MODE', 1200);
      await migrateToLatest(db);
      await released;
      const store = await open();
      assert.equal((await list(store)).totalCount, events.length);
      // VACUUM waits for a SHARE UPDATE EXCLUSIVE lock held elsewhere.
      const { released: vacuumBlocked } = await holdLock(
        'LOCK TABLE term_postings IN SHARE UPDATE EXCLUSIVE MODE',
        1200,
      );
      await store.refreshStatistics();
      await vacuumBlocked;
      // The session's lifted timeout went back: a read on the pool still times out.
      const { released: released2 } = await holdLock(
        'LOCK TABLE events IN ACCESS EXCLUSIVE MODE',
        1500,
      );
      const failures = await Promise.all(
        [0, 1].map(() =>
          list(store).then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      );
      await released2;
      for (const failure of failures) {
        assert.ok(failure instanceof StoreUnavailableError && failure.timedOut, String(failure));
      }
    } finally {
      await setForNewConnections('RESET statement_timeout');
      await db.destroy();
    }
  });
});
