import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { undoIngestRun } from '@/lib/ingest/ingest-runs';
import { pruneEvents } from '@/lib/ingest/prune';
import { type MirrorOptions, runMirror } from '@/lib/mirror/mirror';
import type { EventStore } from '@/lib/store/types';
import {
  copyIds,
  eventsSecondApart,
  listingSource,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * `--since` on a later run: earlier than the copy's start, it copies what
 * lies between (once, and then catches up as usual); later, it changes
 * nothing. Before, any later --since was ignored without a word.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0051');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0052');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

/**
 * A run killed after its first page, nothing of it written yet (here: a
 * callback that throws, which ends the run as a kill would: no write, no
 * checkpoint saved after it).
 */
const KILLED_BEFORE_FIRST_WRITE: Partial<MirrorOptions> = {
  eventsPerWrite: 1000,
  onProgress: () => {
    throw new Error('killed');
  },
};

/**
 * A run whose --since reaches back to the source's oldest event, below the
 * copy's start (events[2]), stopped after two pages of that backfill.
 */
async function backfillStoppedMidway(
  events: SourceEvent[],
  mirror: (more?: Partial<MirrorOptions>) => ReturnType<typeof runMirror>,
): Promise<Awaited<ReturnType<typeof runMirror>>> {
  let pages = 0;
  // No overlap: the catch-up alone would read back nothing older.
  const stopped = await mirror({
    overlapMs: 0,
    since: events[19]!.at,
    onProgress: () => pages++,
    shouldStop: () => pages >= 2,
  });
  assert.equal(stopped.stopped, true);
  assert.ok(stopped.copied > 0 && stopped.copied < 17, `copied ${stopped.copied}`);
  return stopped;
}

for (const [engine, open] of TEST_ENGINES) {
  describe(`a later run's --since (${engine})`, () => {
    /** Twenty source events 1 s apart (newest first), a fresh copy org, and `body`. */
    const withCopy = async (
      body: (
        store: EventStore,
        events: SourceEvent[],
        mirror: (more?: Partial<MirrorOptions>) => ReturnType<typeof runMirror>,
      ) => Promise<void>,
    ) => {
      const events = eventsSecondApart(20, { base: BASE, orgId: SOURCE_ORG, idTag: 'efefefef' });
      const source = await listingSource(events);
      const { store, drop } = await open();
      try {
        await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
        const mirror = (more: Partial<MirrorOptions> = {}) =>
          runMirror({
            store,
            orgId: ORG,
            itemsPerPage: 5,
            eventsPerWrite: 5,
            source: {
              baseUrl: source.baseUrl,
              orgId: SOURCE_ORG,
              publicKey: 'p',
              privateKey: 'k',
            },
            ...more,
          });
        await body(store, events, mirror);
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    };

    test("earlier than the copy's start: the events between are copied, said once, and later runs copy nothing", async () => {
      await withCopy(async (store, events, mirror) => {
        assert.equal((await mirror({ since: events[4]!.at })).copied, 5);
        const said: { since: string; until: string }[] = [];
        const wider = await mirror({ since: events[14]!.at, onBackfill: (r) => said.push(r) });
        assert.equal(wider.copied, 10);
        assert.deepEqual(said, [
          {
            since: new Date(events[14]!.at).toISOString().replace('.000Z', 'Z'),
            until: new Date(events[4]!.at + 999).toISOString(),
          },
        ]);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.slice(0, 15).map((e) => e.id),
        );
        // The copy now starts there: the same --since again, or none, walks only the catch-up.
        assert.equal((await mirror({ since: events[14]!.at })).copied, 0);
        assert.equal((await mirror()).copied, 0);
      });
    });

    test("later than the copy's start: nothing changes, and the catch-up's overlap (60 s, the whole source here) copies nothing older than the first --since", async () => {
      await withCopy(async (store, events, mirror) => {
        assert.equal((await mirror({ since: events[9]!.at })).copied, 10);
        const said: unknown[] = [];
        const later: { since: string; from: string | null }[] = [];
        const narrower = await mirror({
          since: events[2]!.at,
          onBackfill: (r) => said.push(r),
          onLaterSince: (r) => later.push(r),
        });
        assert.deepEqual([narrower.copied, said.length], [0, 0]);
        assert.equal((await copyIds(store, ORG)).length, 10);
        // And it says so, naming where the copy starts.
        const iso = (at: number) => new Date(at).toISOString().replace('.000Z', 'Z');
        assert.deepEqual(later, [{ since: iso(events[2]!.at), from: iso(events[9]!.at) }]);
      });
    });

    test("any --since after a copy made from the source's first event: nothing changes, and it says so", async () => {
      await withCopy(async (store, events, mirror) => {
        assert.equal((await mirror()).copied, 20);
        const later: { since: string; from: string | null }[] = [];
        const again = await mirror({ since: events[5]!.at, onLaterSince: (r) => later.push(r) });
        assert.equal(again.copied, 0);
        assert.equal((await copyIds(store, ORG)).length, 20);
        assert.deepEqual(later, [
          { since: new Date(events[5]!.at).toISOString().replace('.000Z', 'Z'), from: null },
        ]);
        // Following, it is said once, not at every catch-up.
        const following: unknown[] = [];
        let catchUps = 0;
        await mirror({
          since: events[5]!.at,
          follow: true,
          intervalSeconds: 0,
          onLaterSince: (r) => following.push(r),
          pause: () => Promise.resolve(void catchUps++),
          shouldStop: () => catchUps >= 3,
        });
        assert.deepEqual([catchUps, following.length], [3, 1]);
        // The same --since as the copy's start, or an earlier one, says nothing of the kind.
        const quiet: unknown[] = [];
        await mirror({ onLaterSince: (r) => quiet.push(r) });
        assert.equal(quiet.length, 0);
      });
    });

    test("earlier than a prune's cutoff: the pruned events asked for are copied back, the older ones not", async () => {
      await withCopy(async (store, events, mirror) => {
        assert.equal((await mirror()).copied, 20);
        assert.equal((await pruneEvents(store, ORG, events[4]!.at)).deleted, 15);
        // Without --since, the prune stands.
        assert.equal((await mirror()).copied, 0);
        assert.equal((await mirror({ since: events[9]!.at })).copied, 5);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.slice(0, 10).map((e) => e.id),
        );
      });
    });

    test('a backfill stopped midway resumes on the next run, even one without --since', async () => {
      await withCopy(async (store, events, mirror) => {
        assert.equal((await mirror({ since: events[2]!.at })).copied, 3);
        const stopped = await backfillStoppedMidway(events, mirror);
        const resumed = await mirror({ overlapMs: 0 });
        assert.equal(stopped.copied + resumed.copied, 17);
        assert.equal((await copyIds(store, ORG)).length, 20);
      });
    });

    test('a backfill stopped midway still resumes after an undo of a run the copy holds', async () => {
      await withCopy(async (store, events, mirror) => {
        const first = await mirror({ since: events[2]!.at });
        assert.equal(first.copied, 3);
        await backfillStoppedMidway(events, mirror);
        // The undo winds the checkpoint back: before, it dropped the backfill
        // under way with the rest of the walk, and the events it had not yet
        // reached were never copied (the copy still started at the first --since).
        await undoIngestRun(store, first.runId);
        await mirror({ overlapMs: 0 });
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
      });
    });

    test("a first run's --since stands when that run is killed before its first write", async () => {
      await withCopy(async (store, events, mirror) => {
        await assert.rejects(
          mirror({ since: events[9]!.at, ...KILLED_BEFORE_FIRST_WRITE }),
          /killed/,
        );
        assert.equal((await copyIds(store, ORG)).length, 0);
        assert.equal((await mirror()).copied, 10);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.slice(0, 10).map((e) => e.id),
        );
      });
    });

    test('a backfill killed before its first write resumes on the next run, even one without --since', async () => {
      await withCopy(async (store, events, mirror) => {
        assert.equal((await mirror({ since: events[2]!.at })).copied, 3);
        await assert.rejects(
          mirror({ overlapMs: 0, since: events[19]!.at, ...KILLED_BEFORE_FIRST_WRITE }),
          /killed/,
        );
        assert.equal((await copyIds(store, ORG)).length, 3);
        const resumed = await mirror({ overlapMs: 0 });
        assert.equal(resumed.copied, 17);
        assert.equal((await copyIds(store, ORG)).length, 20);
      });
    });
  });
}
