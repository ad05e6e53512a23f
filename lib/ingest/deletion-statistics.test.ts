import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { encodeEvent } from '@/lib/domain/encode';
import type { NewEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { databaseWithVacuumLock, testKysely } from '@/tests/helpers/postgres';
import { endIngestRun, startIngestRun, undoIngestRun } from './ingest-runs';
import { pruneEvents } from './prune';

/**
 * The statistics after a deletion (events prune, imports undo): refreshed
 * once it has committed and been recorded, on PostgreSQL a vacuum of the
 * counter tables whose rows each batch rewrote. A refresh that fails fails
 * neither: before, the deletion had committed, but the command failed and
 * an undo stayed recorded unfinished (made to fail by databaseWithVacuumLock).
 */

const ORG = objectIdAt(Date.UTC(2024, 0, 1), 'c1'.repeat(8));
const BASE = Date.UTC(2026, 0, 1);

function thirtyEvents(): NewEvent[] {
  return Array.from({ length: 30 }, (_, i) =>
    encodeEvent(ORG, {
      id: objectIdAt(BASE + i * 1000, i.toString(16).padStart(16, '0')),
      created: new Date(BASE + i * 1000).toISOString(),
      eventTypeName: 'JOINED_ORG',
      username: `user${i % 3}@example.com`,
      isGlobalAdmin: false,
    }),
  );
}

type Setup = {
  store: EventStore;
  /** How many times term_days was vacuumed, as the cumulative statistics say. */
  vacuums: () => Promise<number>;
  /** Holds the lock VACUUM takes on event_counts until the test ends. */
  holdVacuumLock: () => Promise<void>;
};

async function withStore(run: (setup: Setup) => Promise<void>): Promise<void> {
  const database = await databaseWithVacuumLock();
  const store = await openStore(database.url);
  const db = testKysely(database.url);
  try {
    await store.createOrg({ id: ORG, name: 'Deleted from', created: BASE });
    await run({
      store,
      // Cumulative statistics reach other sessions when the vacuuming
      // session reports them (a second or so later): read afresh each time.
      vacuums: async () => {
        const { rows } = await sql<{ n: string }>`SELECT pg_stat_clear_snapshot(),
          (SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'term_days')::text AS n`.execute(
          db,
        );
        return Number(rows[0]!.n);
      },
      holdVacuumLock: database.holdVacuumLock,
    });
  } finally {
    await db.destroy();
    await store.close();
    await database.drop();
  }
}

async function vacuumedSince(before: number, vacuums: () => Promise<number>): Promise<number> {
  let after = await vacuums();
  for (let wait = 0; after === before && wait < 50; wait++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    after = await vacuums();
  }
  return after;
}

/** An import run that added the thirty events. */
async function importedRun(store: EventStore): Promise<string> {
  const run = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'events.ndjson' });
  await store.insertEvents(ORG, thirtyEvents(), { runId: run.id });
  await endIngestRun(store, run.id, { status: 'finished', inserted: 30 });
  return run.id;
}

describe('the statistics after a deletion (PostgreSQL)', () => {
  test('events prune vacuums the counter tables afterwards, and the counts read right', () =>
    withStore(async ({ store, vacuums }) => {
      await store.insertEvents(ORG, thirtyEvents());
      const before = await vacuums();
      const outcome = await pruneEvents(store, ORG, BASE + 10_000);
      assert.deepEqual(outcome, { deleted: 10 });
      const after = await vacuumedSince(before, vacuums);
      assert.ok(after > before, `term_days vacuumed: ${before} -> ${after}`);
      assert.equal(
        await store.countEvents({ orgId: ORG, fields: { username: ['user0@example.com'] } }),
        6,
      );
    }));

  test('imports undo vacuums the counter tables afterwards', () =>
    withStore(async ({ store, vacuums }) => {
      const runId = await importedRun(store);
      const before = await vacuums();
      const outcome = await undoIngestRun(store, runId);
      assert.equal(outcome.deleted, 30);
      assert.equal(outcome.statisticsNotRefreshed, undefined);
      const after = await vacuumedSince(before, vacuums);
      assert.ok(after > before, `term_days vacuumed: ${before} -> ${after}`);
    }));

  test('a prune whose refresh fails has deleted, and says why the statistics were not refreshed', () =>
    withStore(async ({ store, holdVacuumLock }) => {
      await store.insertEvents(ORG, thirtyEvents());
      await holdVacuumLock();
      const outcome = await pruneEvents(store, ORG, BASE + 10_000);
      assert.equal(outcome.deleted, 10);
      assert.match(outcome.statisticsNotRefreshed ?? '', /lock timeout/);
      assert.equal(await store.countEvents({ orgId: ORG }), 20);
    }));

  test('an undo whose refresh fails is recorded undone, and says why the statistics were not refreshed', () =>
    withStore(async ({ store, holdVacuumLock }) => {
      const runId = await importedRun(store);
      await holdVacuumLock();
      const outcome = await undoIngestRun(store, runId);
      assert.equal(outcome.deleted, 30);
      assert.match(outcome.statisticsNotRefreshed ?? '', /lock timeout/);
      const run = await store.getIngestRun(runId);
      assert.equal(run?.status, 'undone');
      assert.match(run?.detail ?? '', /^undone at .*: 30 events removed$/);
      assert.equal(await store.countEvents({ orgId: ORG }), 0);
    }));

  test('an undo that removes nothing (its events already pruned) does not refresh them', () =>
    withStore(async ({ store, holdVacuumLock }) => {
      const runId = await importedRun(store);
      await pruneEvents(store, ORG, BASE + 60_000);
      await holdVacuumLock();
      const outcome = await undoIngestRun(store, runId);
      assert.deepEqual(
        { deleted: outcome.deleted, statisticsNotRefreshed: outcome.statisticsNotRefreshed },
        { deleted: 0, statisticsNotRefreshed: undefined },
      );
      assert.equal((await store.getIngestRun(runId))?.status, 'undone');
    }));
});
