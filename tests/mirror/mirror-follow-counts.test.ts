import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { toNewEvent } from '@/lib/ingest/import';
import { endIngestRun, startIngestRun } from '@/lib/ingest/ingest-runs';
import { type MirrorOptions, runMirror } from '@/lib/mirror/mirror';
import {
  followMirror,
  groupCreatedEvent,
  listingSource,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import type { EventStore } from '@/lib/store/types';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * Each `--follow` catch-up reads the minute before the newest event again
 * (the overlap, for late arrivals). A quiet org's newest events were
 * counted "already present" at every check: the counts grew without
 * anything happening. Read again by the run that stored them, they are not
 * counted; an event that arrives is copied. Nor are they by a later run of
 * the same mirror (one started by cron, say): "already present" counts only
 * what another run (an import, another source's mirror) stored.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0071');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0072');

const sourceEvent = (at: number, tag: string) => groupCreatedEvent(SOURCE_ORG, at, tag);

for (const [engine, open] of TEST_ENGINES) {
  /** A source serving `events` (the array as it is at each request), a fresh copy org, and `body`. */
  const withCopy = async (
    events: SourceEvent[],
    body: (store: EventStore, baseUrl: string) => Promise<void>,
  ) => {
    const source = await listingSource(events);
    const { store, drop } = await open();
    try {
      await store.createOrg({ id: ORG, name: 'Copy', created: 0 });
      await body(store, source.baseUrl);
    } finally {
      source.close();
      await store.close();
      await drop();
    }
  };

  describe(`a following mirror's counts (${engine})`, () => {
    test('the overlap read again at each check is not counted again; an arrival is copied', async () => {
      const now = Date.now();
      // Newest first: two within the overlap of the newest, one long before.
      const events = [
        sourceEvent(now - 2000, 'c0'),
        sourceEvent(now - 5000, 'b0'),
        sourceEvent(now - 7_200_000, 'a0'),
      ];
      await withCopy(events, async (store, baseUrl) => {
        const { summary, checks } = await followMirror(store, {
          baseUrl,
          sourceOrg: SOURCE_ORG,
          orgId: ORG,
          checks: 4,
          // Between the second and third checks an event arrives.
          onCaughtUp: (_, check) => {
            if (check === 2) events.unshift(sourceEvent(Date.now(), 'd0'));
          },
        });
        assert.deepEqual(
          checks.map((check) => [check.copied, check.skipped]),
          [
            [3, 0],
            [3, 0],
            [4, 0],
            [4, 0],
          ],
        );
        assert.deepEqual([summary.copied, summary.skipped], [4, 0]);
        assert.ok(await store.getEvent(ORG, events[0]!.id, false), 'the arrival is stored');
      });
    });

    test('an invalid record in the overlap, read again at each check, is counted and reported once', async () => {
      const now = Date.now();
      const invalid = sourceEvent(now - 3000, 'e0');
      const events = [
        sourceEvent(now - 2000, 'c0'),
        { ...invalid, doc: { ...invalid.doc, eventTypeName: 'not a type' } },
        sourceEvent(now - 5000, 'b0'),
      ];
      await withCopy(events, async (store, baseUrl) => {
        const reported: unknown[] = [];
        const { summary, checks } = await followMirror(store, {
          baseUrl,
          sourceOrg: SOURCE_ORG,
          orgId: ORG,
          checks: 3,
          onRejected: (record) => reported.push(record),
        });
        assert.deepEqual(
          checks.map((check) => [check.copied, check.rejected]),
          [
            [2, 1],
            [2, 1],
            [2, 1],
          ],
        );
        assert.deepEqual([summary.copied, summary.rejected, reported.length], [2, 1, 1]);
      });
    });
  });

  describe(`a following mirror's counts, events dated in the future (${engine})`, () => {
    test('events dated after the walk began, read again at each check, are not counted again', async () => {
      const now = Date.now();
      // Newest first: two in the future, an hour apart (more than the overlap), one now.
      const events = [
        sourceEvent(now + 7_200_000, 'f2'),
        sourceEvent(now + 3_600_000, 'f1'),
        sourceEvent(now - 2000, 'f0'),
      ];
      await withCopy(events, async (store, baseUrl) => {
        const { summary, checks } = await followMirror(store, {
          baseUrl,
          sourceOrg: SOURCE_ORG,
          orgId: ORG,
          checks: 3,
        });
        assert.deepEqual(
          checks.map((check) => [check.copied, check.skipped]),
          [
            [3, 0],
            [3, 0],
            [3, 0],
          ],
        );
        assert.deepEqual([summary.copied, summary.skipped], [3, 0]);
      });
    });
  });

  describe(`a mirror run again, as from cron (${engine})`, () => {
    test('an invalid record in the overlap is counted and reported by the run that first read it, not by every later run', async () => {
      const now = Date.now();
      const invalid = sourceEvent(now - 3000, 'e2');
      const events = [
        sourceEvent(now - 2000, 'c2'),
        { ...invalid, doc: { ...invalid.doc, eventTypeName: 'not a type' } },
        sourceEvent(now - 5000, 'b2'),
      ];
      await withCopy(events, async (store, baseUrl) => {
        const reported: unknown[] = [];
        const mirror = () =>
          runMirror({
            store,
            orgId: ORG,
            itemsPerPage: 5,
            onRejected: (record) => reported.push(record),
            source: { baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
          } satisfies MirrorOptions);
        const first = await mirror();
        assert.deepEqual([first.copied, first.rejected, reported.length], [2, 1, 1]);
        // Before, each run read the minute before the newest event again and
        // counted the record anew: a mirror from cron exited 2 at every run.
        const quiet = await mirror();
        assert.deepEqual([quiet.copied, quiet.rejected, reported.length], [0, 0, 1]);
        // Another invalid one arrives: counted, once.
        const later = sourceEvent(now - 1000, 'f2');
        events.unshift({ ...later, doc: { ...later.doc, eventTypeName: 'not one either' } });
        const next = await mirror();
        assert.deepEqual([next.copied, next.rejected, reported.length], [0, 1, 2]);
        assert.equal((await mirror()).rejected, 0);
      });
    });

    test("the overlap an earlier run copied is not counted again; an import's event is", async () => {
      const now = Date.now();
      const events = [
        sourceEvent(now - 2000, 'c1'),
        sourceEvent(now - 5000, 'b1'),
        sourceEvent(now - 7_200_000, 'a1'),
      ];
      await withCopy(events, async (store, baseUrl) => {
        const mirror = () =>
          runMirror({
            store,
            orgId: ORG,
            itemsPerPage: 5,
            source: { baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
          } satisfies MirrorOptions);
        const first = await mirror();
        assert.deepEqual([first.copied, first.skipped], [3, 0]);
        // Nothing new: the minute before the newest event is read again, all of it copied before.
        const quiet = await mirror();
        assert.deepEqual([quiet.copied, quiet.skipped], [0, 0]);
        // An event arrives at the source; another, at the source too, is
        // imported into the copy first: found present, and counted so.
        const arrival = sourceEvent(now - 1000, 'd1');
        const imported = sourceEvent(now - 500, 'e1');
        events.unshift(imported, arrival);
        const run = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'f.json' });
        const event = toNewEvent(imported.doc, ORG, true, JSON.stringify(imported.doc));
        assert.notEqual(typeof event, 'string');
        await store.insertEvents(ORG, [event as Exclude<typeof event, string>], { runId: run.id });
        await endIngestRun(store, run.id, { status: 'finished', inserted: 1 });
        const third = await mirror();
        assert.deepEqual([third.copied, third.skipped], [1, 1]);
        const runs = await store.listIngestRuns(ORG);
        assert.deepEqual(
          runs
            .filter((r) => r.kind === 'mirror')
            .map((r) => [r.inserted, r.skipped])
            .reverse(),
          [
            [3, 0],
            [0, 0],
            [1, 1],
          ],
          'the ledger holds the same counts',
        );
      });
    });
  });
}
