import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { DAY_MS } from '@/lib/domain/dates';
import { FACET_FIELDS } from '@/lib/domain/filters';
import { objectIdAt } from '@/lib/domain/object-id';
import { generateEventBatches } from '@/lib/ingest/seed';
import { setStoreLogger } from './log';
import type { EventFilter, EventStore, NewEvent } from './types';

/**
 * Deletion keeps every counter exact (retention and `imports undo`): after
 * deleting by date, by run and by ids, every count the store answers equals
 * the count of a fresh org that was only ever given the surviving events, and
 * the counter tables themselves hold the same rows. Part of the store
 * contract (store.contract.ts), so it runs on SQLite and PostgreSQL.
 */
export function deletionContract(getStore: () => EventStore) {
  describe('deleting events keeps every counter exact', () => {
    const base = Date.UTC(2024, 0, 1);
    const orgC = objectIdAt(base, 'c0c0c0c0c0c0c0c0');
    const orgFresh = objectIdAt(base, 'f0f0f0f0f0f0f0f0');
    const orgUndo = objectIdAt(base, 'e0e0e0e0e0e0e0e0');
    const from = Date.UTC(2026, 2, 1);
    const to = from + 9 * DAY_MS;
    const seeded: NewEvent[] = [];
    for (const batch of generateEventBatches(
      { orgId: orgC, count: 2400, seed: 'deletion', from, to },
      800,
    )) {
      seeded.push(...batch);
    }
    let store: EventStore;

    before(async () => {
      store = getStore();
      for (const id of [orgC, orgFresh, orgUndo]) {
        await store.createOrg({ id, name: id, created: base });
      }
    });

    test('by run, by date and by ids: counts, facets, histogram, types and counter rows match a recount', async () => {
      // Run 1 inserts 0..900; run 2 is given 800..1600 and inserts only 900..1600
      // (800..900 were already there); the rest comes in without a run.
      assert.deepEqual(await store.insertEvents(orgC, seeded.slice(0, 900), { runId: 'run-1' }), {
        inserted: 900,
        skipped: 0,
      });
      assert.deepEqual(
        await store.insertEvents(orgC, seeded.slice(800, 1600), { runId: 'run-2' }),
        { inserted: 700, skipped: 100 },
      );
      await store.insertEvents(orgC, seeded.slice(1600));

      const batches: number[] = [];
      const byRun = await store.deleteEvents(
        orgC,
        { runId: 'run-2' },
        { batchSize: 97, onBatch: (n) => batches.push(n) },
      );
      assert.equal(byRun, 700, 'exactly what run 2 inserted, not what it skipped');
      assert.equal(batches.length, Math.ceil(700 / 97));
      assert.equal(batches.at(-1), 700);

      const cutoff = from + 2 * DAY_MS + 3_600_000 + 1234; // cuts an hour and a day
      const byDate = await store.deleteEvents(orgC, { before: cutoff }, { batchSize: 150 });
      const picked = seeded.filter((_, i) => i % 5 === 0 && i >= 1600).map((e) => e.id);
      const byIds = await store.deleteEvents(orgC, {
        ids: [...picked, objectIdAt(from, '1234123412341234')],
      });
      assert.equal(byIds, picked.length, 'unknown ids are ignored');

      const removed = new Set(picked);
      const survivors = seeded.filter(
        (e, i) => !(i >= 900 && i < 1600) && e.created >= cutoff && !removed.has(e.id),
      );
      assert.equal(
        byDate,
        seeded.filter((e, i) => !(i >= 900 && i < 1600) && e.created < cutoff).length,
      );
      assert.ok(survivors.length > 500 && survivors.length < 1700);

      // The recount: a fresh org given only the survivors.
      for (let i = 0; i < survivors.length; i += 500) {
        await store.insertEvents(orgFresh, survivors.slice(i, i + 500));
      }

      const filters: Omit<EventFilter, 'orgId'>[] = [
        {},
        { minCreated: from + 3 * DAY_MS + 1000, maxCreated: to - DAY_MS - 7 },
        { eventTypes: [survivors[0]!.eventTypeName] },
        { fields: { username: [usernameOf(survivors)] } },
        { actor: [usernameOf(survivors)], eventTypes: [survivors[1]!.eventTypeName] },
      ];
      for (const filter of filters) {
        const at = (orgId: string) => ({ ...filter, orgId });
        const label = JSON.stringify(filter);
        const pageOf = (orgId: string) =>
          store.listEvents({
            ...at(orgId),
            offset: 100,
            limit: 50,
            includeCount: true,
            includeRaw: false,
          });
        const [pageC, pageFresh] = [await pageOf(orgC), await pageOf(orgFresh)];
        assert.equal(pageC.totalCount, pageFresh.totalCount, label);
        assert.deepEqual(
          pageC.events.map((e) => e.id),
          pageFresh.events.map((e) => e.id),
          label,
        );
        assert.equal(await store.countEvents(at(orgC)), await store.countEvents(at(orgFresh)));
        assert.deepEqual(
          (await store.facets(at(orgC), FACET_FIELDS, 100)).facets,
          (await store.facets(at(orgFresh), FACET_FIELDS, 100)).facets,
          label,
        );
        const histogram = (orgId: string) =>
          store.histogram({ ...at(orgId), minCreated: from, maxCreated: to, buckets: 200 });
        assert.deepEqual(await histogram(orgC), await histogram(orgFresh), label);
        assert.deepEqual(
          await store.eventTypeCounts(orgC, filter),
          await store.eventTypeCounts(orgFresh, filter),
          label,
        );
      }
      assert.equal(await store.countEvents({ orgId: orgC }), survivors.length);

      // The counters and postings themselves, row for row (zero rows removed).
      const strip = (rows: Record<string, unknown>[]) =>
        rows.map(({ org_id: _org, ...rest }) => rest);
      const [dumpC, dumpFresh] = [await store.dumpOrg(orgC), await store.dumpOrg(orgFresh)];
      for (const table of ['event_counts', 'term_days', 'term_dict', 'term_postings']) {
        assert.deepEqual(strip(dumpC[table]!), strip(dumpFresh[table]!), table);
      }
      assert.ok(dumpC.event_counts!.every((row) => Number(row.n) > 0));
    });

    test('undoing a run leaves every table of the org exactly as before it', async () => {
      await store.insertEvents(orgUndo, seeded.slice(0, 1000), { runId: 'first' });
      const before = await store.dumpOrg(orgUndo);
      assert.equal(before.events!.length, 1000);
      const result = await store.insertEvents(orgUndo, seeded.slice(700, 2000), {
        runId: 'second',
      });
      assert.deepEqual(result, { inserted: 1000, skipped: 300 });
      assert.notDeepEqual(await store.dumpOrg(orgUndo), before);
      assert.equal(
        await store.deleteEvents(orgUndo, { runId: 'second' }, { batchSize: 333 }),
        1000,
      );
      assert.deepEqual(await store.dumpOrg(orgUndo), before);
      assert.equal(await store.deleteEvents(orgUndo, { runId: 'second' }), 0, 'idempotent');
    });

    test('undoing a run while another run imports into the same org: both finish without a deadlock, and the org holds exactly the other run', async () => {
      // Same days and the same world, so the two share counter and
      // dictionary rows: on PostgreSQL they deadlocked every time, before
      // deletions were tried again and before they locked counters in the
      // inserts' order (then still 1–7 times a round, each run again).
      const orgBusy = objectIdAt(base, 'b0b0b0b0b0b0b0b0');
      const orgOnlyB = objectIdAt(base, 'b1b1b1b1b1b1b1b1');
      const generate = (seed: string) =>
        [...generateEventBatches({ orgId: orgBusy, count: 6000, seed, from, to }, 6000)][0]!;
      const [runA, runB] = [generate('busy-a'), generate('busy-b')];
      for (const id of [orgBusy, orgOnlyB]) await store.createOrg({ id, name: id, created: base });
      for (let i = 0; i < runA.length; i += 1000) {
        await store.insertEvents(orgBusy, runA.slice(i, i + 1000), { runId: 'a' });
      }
      // Run b as a bulk load writes it (two batches at once), beside the undo of run a.
      let next = 0;
      const lane = async () => {
        while (next < runB.length) {
          const from = next;
          next += 500;
          await store.insertEvents(orgBusy, runB.slice(from, from + 500), { runId: 'b' });
        }
      };
      const warnings: string[] = [];
      setStoreLogger({ warn: (_details, message) => warnings.push(message) });
      const [undone] = await Promise.all([
        store.deleteEvents(orgBusy, { runId: 'a' }, { batchSize: 500 }),
        lane(),
        lane(),
      ]).finally(() => setStoreLogger(undefined));
      assert.equal(undone, runA.length);
      assert.deepEqual(warnings, [], 'no transaction was run again after a deadlock');
      await store.insertEvents(orgOnlyB, runB);
      const strip = (rows: Record<string, unknown>[]) =>
        rows.map(({ org_id: _org, ...rest }) => rest);
      const [busy, onlyB] = [await store.dumpOrg(orgBusy), await store.dumpOrg(orgOnlyB)];
      assert.equal(busy.events!.length, runB.length);
      for (const table of ['event_counts', 'term_days', 'term_dict', 'term_postings']) {
        assert.deepEqual(strip(busy[table]!), strip(onlyB[table]!), table);
      }
    });
  });
}

function usernameOf(events: readonly NewEvent[]): string {
  for (const event of events) {
    const { username } = JSON.parse(event.doc) as { username?: unknown };
    if (typeof username === 'string') return username;
  }
  return 'nobody@example.com';
}
