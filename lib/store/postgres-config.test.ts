import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { setConfigForTesting } from '@/lib/config';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { StoreUnavailableError } from './errors';
import { openStore } from './index';
import type { PostgresStore } from './postgres';

/**
 * The PostgreSQL pool's size and the query deadline come from the
 * environment (DATABASE_POOL_SIZE, DATABASE_QUERY_TIMEOUT_SECONDS) through
 * openStore, which every server and CLI command opens its store with.
 */
describe('PostgreSQL store settings from the configuration', () => {
  let database: { url: string; drop: () => Promise<void> };
  let store: PostgresStore;
  const db = () => (store as unknown as { db: Kysely<unknown> }).db;

  before(async () => {
    database = await createTestDatabase();
    setConfigForTesting({ DATABASE_POOL_SIZE: 3, DATABASE_QUERY_TIMEOUT_SECONDS: 1 });
    store = (await openStore(database.url)) as PostgresStore;
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  test('DATABASE_POOL_SIZE caps the connections: a fourth query at once waits for one of three', async () => {
    const queries = Array.from({ length: 4 }, () => sql`SELECT pg_sleep(0.3)`.execute(db()));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const stats = store.poolStats();
    await Promise.all(queries);
    assert.equal(stats.total, 3);
    assert.equal(stats.waiting, 1);
  });

  test('DATABASE_QUERY_TIMEOUT_SECONDS cancels a longer query on the server: unavailable (timed out)', async () => {
    const started = performance.now();
    await assert.rejects(sql`SELECT pg_sleep(5)`.execute(db()), (error: unknown) => {
      assert.ok(error instanceof StoreUnavailableError, String(error));
      assert.equal(error.timedOut, true, error.message);
      return true;
    });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 3, `cancelled after ${seconds.toFixed(1)} s`);
  });
});
