import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import { createTestDatabase, testKysely } from '@/tests/helpers/postgres';
import { migrateToLatest } from './kysely-store';
import { migrationProvider } from './migrations';
import { PostgresStore } from './postgres';
import type { Database } from './schema';
import { storeContract } from './store.contract';

// Runs in CI: PostgreSQL is part of every machine this project runs on.
// createTestDatabase's databases sort text as en-US does, as most servers'
// defaults do: the contract holds there only because migration 0013 makes
// the store's columns compare byte-wise.
storeContract('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const store = await PostgresStore.open(database.url);
  return {
    store,
    // A second pool: its inserts commit between the first pool's statements.
    openConcurrentWriter: () => PostgresStore.open(database.url, 2),
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
});

test("PostgreSQL: a store written under the database's en-US order (before migration 0013) answers facets and field filters byte-wise once migrated", async () => {
  const database = await createTestDatabase();
  const store = await PostgresStore.open(database.url);
  const db = testKysely<Database>(database.url);
  try {
    const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'c0'.repeat(8));
    await store.createOrg({ id: orgId, name: 'Collation', created: Date.UTC(2024, 0, 1) });
    const base = Date.UTC(2026, 0, 1);
    // Names whose en-US order differs from their byte order (case, punctuation).
    const users = [
      'Bob@example.com',
      'alice@example.com',
      'carol.x@example.com',
      'carol@example.com',
    ];
    const events = Array.from({ length: 40 }, (_, i) =>
      encodeEvent(orgId, {
        id: objectIdAt(base + i * 1000, i.toString(16).padStart(16, '0')),
        created: new Date(base + i * 1000).toISOString(),
        eventTypeName: 'JOINED_ORG',
        username: users[i % users.length],
        isGlobalAdmin: false,
      }),
    );
    await store.insertEvents(orgId, events);
    const expected = users
      .map((value) => ({ value, count: 10 }))
      .sort((a, b) => (a.value < b.value ? -1 : 1));
    const answers = async () => ({
      facets: (await store.facets({ orgId }, ['actor'], 10)).facets.actor,
      filtered: await store.countEvents({ orgId, fields: { username: ['carol@example.com'] } }),
    });
    assert.deepEqual(await answers(), { facets: expected, filtered: 10 });

    // Back to 0012: the columns take the database's en-US order again, and
    // the field's term range [`username:`, `username;`) misses its terms.
    const migrator = new Migrator({ db, provider: migrationProvider });
    const down = await migrator.migrateTo('0012_one_live_mirror');
    assert.equal(down.error, undefined);
    const broken = await answers();
    assert.notDeepEqual(broken.facets, expected, 'en-US order: the facet range should lose terms');

    await migrateToLatest(db);
    assert.deepEqual(await answers(), { facets: expected, filtered: 10 });
    const { rows } = await sql<{ column: string }>`
      SELECT table_name || '.' || column_name AS column FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type = 'text' AND table_name NOT LIKE 'kysely%'
        AND collation_name IS DISTINCT FROM 'C'`.execute(db);
    assert.deepEqual(rows, [], 'every text column of the store compares byte-wise');
  } finally {
    await db.destroy();
    await store.close();
    await database.drop();
  }
});

test('PostgreSQL: undoing a run the statistics do not know yet (a mirror run, an import killed before its ANALYZE) deletes it within the query deadline', async () => {
  // Before, the DELETE's subquery picking the run's ids was planned as a
  // nested loop rerunning the pick for every event of the org: the undo
  // outlasted the deadline every time and deleted nothing.
  const database = await createTestDatabase();
  const store = await PostgresStore.open(database.url, 4, { queryDeadlineMs: 5000 });
  const db = testKysely<Database>(database.url);
  try {
    await sql`ALTER TABLE events SET (autovacuum_enabled = false)`.execute(db);
    const eventsOf = (orgId: string, count: number, tag: string) =>
      Array.from({ length: count }, (_, i) =>
        encodeEvent(orgId, {
          id: objectIdAt(
            Date.UTC(2026, 0, 1) + i * 1000,
            `${tag}${i.toString(16).padStart(14, '0')}`,
          ),
          created: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
          eventTypeName: 'JOINED_ORG',
          username: `user${i % 7}@example.com`,
          isGlobalAdmin: false,
        }),
      );
    const known = objectIdAt(Date.UTC(2024, 0, 1), 'c2'.repeat(8));
    await store.createOrg({ id: known, name: 'Known', created: Date.UTC(2024, 0, 1) });
    await store.insertEvents(known, eventsOf(known, 100, 'a1'));
    // The statistics now know this org only.
    await store.refreshStatistics();
    const fresh = objectIdAt(Date.UTC(2024, 0, 1), 'c3'.repeat(8));
    await store.createOrg({ id: fresh, name: 'Fresh', created: Date.UTC(2024, 0, 1) });
    const run = await store.createIngestRun({
      id: objectIdAt(Date.UTC(2026, 0, 2), 'd4'.repeat(8)),
      orgId: fresh,
      kind: 'mirror',
      source: 'test',
      started: Date.now(),
      finished: Date.now(),
      inserted: 20_000,
      skipped: 0,
      rejected: 0,
      status: 'finished',
      detail: null,
      host: null,
      pid: null,
      heartbeat: null,
      undoFrom: null,
    });
    const added = eventsOf(fresh, 20_000, 'b2');
    for (let i = 0; i < added.length; i += 5000) {
      await store.insertEvents(fresh, added.slice(i, i + 5000), { runId: run.id });
    }
    assert.equal(await store.deleteEvents(fresh, { runId: run.id }), 20_000);
    assert.equal(await store.countEvents({ orgId: fresh }), 0);
    assert.equal(await store.countEvents({ orgId: known }), 100);
  } finally {
    await db.destroy();
    await store.close();
    await database.drop();
  }
});
