import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { toNewEvent } from '@/lib/ingest/import';
import { endIngestRun, startIngestRun, undoIngestRun } from '@/lib/ingest/ingest-runs';
import { pruneEvents } from '@/lib/ingest/prune';
import { type MirrorOptions, runMirror } from '@/lib/mirror/mirror';
import type { EventStore } from '@/lib/store/types';
import {
  copyIds,
  eventsSecondApart,
  listingSource,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES, type TestStore } from '@/tests/helpers/test-stores';

/**
 * An undo leaves no silent gap in a mirror's copy: undoing a mirror run
 * while a `--follow` mirror of the same source runs does not let the latter
 * write its old checkpoint back, and undoing an import whose events a
 * mirror skipped as already present makes the next mirror fetch them. Nor
 * does it widen the copy: what `--since` left out or a prune removed is not
 * copied back.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0041');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0042');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

function twentyEvents(): SourceEvent[] {
  return eventsSecondApart(20, { base: BASE, orgId: SOURCE_ORG, idTag: 'abababab' });
}

/** `events` imported into the copy's org as one finished import run; its id. */
async function importRun(store: EventStore, events: readonly SourceEvent[]): Promise<string> {
  const run = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'file.ndjson' });
  const stored = events.map((e) => {
    const event = toNewEvent(e.doc, ORG, true, JSON.stringify(e.doc));
    assert.notEqual(typeof event, 'string');
    return event as Exclude<typeof event, string>;
  });
  await store.insertEvents(ORG, stored, { runId: run.id });
  await endIngestRun(store, run.id, { status: 'finished', inserted: stored.length });
  return run.id;
}

function options(
  store: EventStore,
  baseUrl: string,
  more: Partial<MirrorOptions> = {},
): MirrorOptions {
  return {
    store,
    orgId: ORG,
    itemsPerPage: 5,
    eventsPerWrite: 5,
    // Catch-ups start where the copy is complete, not a minute before it (all 20 events lie within 20 s).
    overlapMs: 0,
    source: { baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
    ...more,
  };
}

/**
 * Runs `body` with a fresh store holding the copy's organization and a
 * source listing `events` (with `faults`); closes and drops both after.
 */
async function withSourceAndCopy(
  open: () => Promise<TestStore>,
  events: readonly SourceEvent[],
  faults: Parameters<typeof listingSource>[1],
  body: (store: EventStore, baseUrl: string) => Promise<void>,
): Promise<void> {
  const source = await listingSource(events, faults);
  const { store, drop } = await open();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    await body(store, source.baseUrl);
  } finally {
    source.close();
    await store.close();
    await drop();
  }
}

for (const [engine, open] of TEST_ENGINES) {
  describe(`undo and the mirror's checkpoint (${engine})`, () => {
    test('undoing a mirror run while a --follow mirror of that source waits between catch-ups: the next catch-up copies everything again', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        const first = await runMirror(options(store, baseUrl));
        assert.equal(first.copied, 20);
        let catchUps = 0;
        const follow = await runMirror(
          options(store, baseUrl, {
            follow: true,
            intervalSeconds: 0,
            shouldStop: () => catchUps >= 2,
            pause: async () => {
              if (catchUps === 0) await undoIngestRun(store, first.runId);
              catchUps++;
            },
          }),
        );
        assert.equal(follow.copied, 20);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
        // And a later run resumes from a checkpoint that is true.
        const later = await runMirror(options(store, baseUrl));
        assert.equal(later.copied, 0);
      });
    });

    test('undoing a mirror run while a mirror of that source is mid-walk: it starts over and the copy is complete', async () => {
      const events = twentyEvents();
      let undo: (() => Promise<unknown>) | undefined;
      // The second mirror's third request waits for the undo of the first.
      const faults = {
        before: async () => {
          const now = undo;
          undo = undefined;
          await now?.();
        },
      };
      await withSourceAndCopy(open, events, faults, async (store, baseUrl) => {
        const first = await runMirror(options(store, baseUrl));
        assert.equal(first.copied, 20);
        // A catch-up reaching back over everything (pages of 5): two pages in, the first run is undone.
        let requests = 0;
        const second = await runMirror(
          options(store, baseUrl, {
            overlapMs: 3_600_000,
            onProgress: () => {
              if (++requests === 2) undo = () => undoIngestRun(store, first.runId);
            },
          }),
        );
        assert.equal(second.copied, 20);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
        const later = await runMirror(options(store, baseUrl));
        assert.equal(later.copied, 0);
      });
    });

    test('undoing an import whose events a mirror skipped as already present: the next mirror run copies them', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        const imported = await importRun(store, events.slice(5, 12));
        const mirrored = await runMirror(options(store, baseUrl));
        assert.deepEqual([mirrored.copied, mirrored.skipped], [13, 7]);
        await undoIngestRun(store, imported);
        assert.equal((await copyIds(store, ORG)).length, 13);
        const again = await runMirror(options(store, baseUrl));
        assert.equal(again.copied, 7);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
      });
    });

    test('an undo stopped midway while a mirror ran, then run again: the next mirror run copies every undone event', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        const importedEvents = events.slice(5, 12);
        const imported = await importRun(store, importedEvents);
        assert.equal((await runMirror(options(store, baseUrl))).copied, 13);
        // The real store, whose undo is stopped midway: after its first wind-back a mirror
        // runs (reading the run's events as present, it saves its checkpoint past them), then
        // the three oldest are deleted and the process dies before the second wind-back.
        const oldestThree = importedEvents.slice(-3).map((e) => e.id);
        const stopped = new Proxy(store, {
          get: (target, name, receiver) =>
            name === 'deleteEvents'
              ? async () => {
                  const meanwhile = await runMirror(options(store, baseUrl));
                  // Walking the 12 newest again: the import's 7 are found present; the 5
                  // the mirror copied before are read again, not counted.
                  assert.deepEqual([meanwhile.copied, meanwhile.skipped], [0, 7]);
                  assert.equal(await store.deleteEvents(ORG, { ids: oldestThree }), 3);
                  throw new Error('killed midway');
                }
              : (Reflect.get(target, name, receiver) as unknown),
        });
        await assert.rejects(undoIngestRun(stopped, imported), /killed midway/);
        assert.equal((await undoIngestRun(store, imported)).deleted, 4);
        const again = await runMirror(options(store, baseUrl));
        assert.equal(again.copied, 7, 'the three deleted by the stopped undo too');
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
      });
    });

    test('undoing an import newer than the copy after a prune: the next mirror run copies the undone range only, and what was pruned stays pruned', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        assert.equal((await runMirror(options(store, baseUrl))).copied, 20);
        // Retention: the 9 oldest go (events are 1 s apart, newest first).
        const cutoff = events[10]!.at;
        assert.equal(await store.deleteEvents(ORG, { before: cutoff }), 9);
        // An unrelated import, newer than anything mirrored, then undone.
        const imported = await importRun(
          store,
          eventsSecondApart(1, { base: BASE + 60_000, orgId: ORG, idTag: 'cdcdcdcd' }),
        );
        assert.equal((await undoIngestRun(store, imported)).deleted, 1);
        const again = await runMirror(options(store, baseUrl));
        assert.equal(again.copied, 0, 'the pruned events were not copied back');
        assert.equal((await copyIds(store, ORG)).length, 11);
      });
    });

    test('undoing an import none of whose events the mirror found present: the next mirror run walks nothing again', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        assert.equal((await runMirror(options(store, baseUrl))).copied, 20);
        // A catch-up with nothing new reads again the newest second only.
        const quiet = await runMirror(options(store, baseUrl));
        // Unrelated events, older than the whole source: the copy never held them.
        const imported = await importRun(
          store,
          eventsSecondApart(3, { base: BASE - 86_400_000, orgId: ORG, idTag: 'cdcdcdcd' }),
        );
        assert.equal((await undoIngestRun(store, imported)).deleted, 3);
        const again = await runMirror(options(store, baseUrl));
        assert.deepEqual(
          [again.copied, again.skipped, again.requests],
          [0, quiet.skipped, quiet.requests],
          'nothing more was walked than by a catch-up without the undo',
        );
        assert.equal((await copyIds(store, ORG)).length, 20);
      });
    });

    test('a mirror that found present the events of an import undone before it saved that: it winds itself back and copies them', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        const imported = await importRun(store, events.slice(5, 8));
        // The whole undo runs after the mirror stored the page holding the
        // imported events (found present) and before it saved that in its
        // checkpoint: the undo's passes over the checkpoints saw none of it.
        let undone = false;
        const racing = new Proxy(store, {
          get: (target, name, receiver) =>
            name === 'setMirrorCheckpoint'
              ? async (...args: Parameters<EventStore['setMirrorCheckpoint']>) => {
                  const state = JSON.parse(args[2] ?? '{}') as { skipped?: object };
                  if (!undone && state.skipped && imported in state.skipped) {
                    undone = true;
                    assert.equal((await undoIngestRun(store, imported)).deleted, 3);
                  }
                  return store.setMirrorCheckpoint(...args);
                }
              : (Reflect.get(target, name, receiver) as unknown),
        });
        const mirrored = await runMirror(options(racing, baseUrl));
        assert.equal(undone, true);
        // It walked again from the top once it saw the undo: the 3 copied then too.
        assert.equal(mirrored.copied, 20);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
        assert.equal((await runMirror(options(store, baseUrl))).copied, 0);
      });
    });

    test('an undo killed after marking the run undone, before its last pass over the checkpoints: the next mirror run winds back and copies the undone events', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        const imported = await importRun(store, events.slice(5, 8));
        assert.deepEqual(
          await runMirror(options(store, baseUrl)).then((m) => [m.copied, m.skipped]),
          [17, 3],
        );
        // Every pass over the checkpoints missed this one (a mirror saved it
        // after each), and the process died once the run was marked undone.
        const killed = new Proxy(store, {
          get: (target, name, receiver) =>
            name === 'rewriteMirrorCheckpoints'
              ? () => Promise.resolve(0)
              : name === 'updateIngestRun'
                ? async (...args: Parameters<EventStore['updateIngestRun']>) => {
                    await store.updateIngestRun(...args);
                    if (args[1].status === 'undone') throw new Error('killed');
                  }
                : (Reflect.get(target, name, receiver) as unknown),
        });
        await assert.rejects(undoIngestRun(killed, imported), /killed/);
        assert.equal((await store.getIngestRun(imported))?.status, 'undone');
        const again = await runMirror(options(store, baseUrl));
        assert.equal(again.copied, 3);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
      });
    });

    test("undoing an import older than the first run's --since: the next mirror run copies nothing --since left out", async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        // The ten newest (events are 1 s apart, newest first).
        const since = events[9]!.at;
        assert.equal((await runMirror(options(store, baseUrl, { since }))).copied, 10);
        // An unrelated import, older than the whole source, then undone.
        const imported = await importRun(
          store,
          eventsSecondApart(1, { base: BASE - 86_400_000, orgId: ORG, idTag: 'cdcdcdcd' }),
        );
        assert.equal((await undoIngestRun(store, imported)).deleted, 1);
        const again = await runMirror(options(store, baseUrl));
        assert.equal(again.copied, 0, 'what --since left out was not copied');
        assert.deepEqual(
          await copyIds(store, ORG),
          events.slice(0, 10).map((e) => e.id),
        );
      });
    });

    test("undoing an import older than a prune's cutoff (events prune): the pruned events stay pruned", async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        assert.equal((await runMirror(options(store, baseUrl))).copied, 20);
        assert.equal((await pruneEvents(store, ORG, events[10]!.at)).deleted, 9);
        const imported = await importRun(
          store,
          eventsSecondApart(1, { base: BASE - 86_400_000, orgId: ORG, idTag: 'cdcdcdcd' }),
        );
        assert.equal((await undoIngestRun(store, imported)).deleted, 1);
        const again = await runMirror(options(store, baseUrl));
        assert.equal(again.copied, 0, 'the pruned events were not copied back');
        assert.deepEqual(
          await copyIds(store, ORG),
          events.slice(0, 11).map((e) => e.id),
        );
      });
    });

    test('a prune while a mirror of that source is mid-walk: the walk stops at the cutoff and copies nothing older', async () => {
      const events = twentyEvents();
      // Pruned while the 3rd page is being served, when nothing older than the cutoff has been read.
      const cutoff = events[14]!.at;
      let store: EventStore | undefined;
      let pruned = -1;
      const faults = {
        before: async (request: number) => {
          if (request === 3) pruned = (await pruneEvents(store!, ORG, cutoff)).deleted;
        },
      };
      await withSourceAndCopy(open, events, faults, async (opened, baseUrl) => {
        store = opened;
        const mirrored = await runMirror(options(opened, baseUrl));
        assert.equal(pruned, 0, 'nothing older than the cutoff was copied when it ran');
        // The cutoff's own event stays (a prune deletes those created before it).
        assert.equal(mirrored.copied, 15);
        assert.deepEqual(
          await copyIds(opened, ORG),
          events.slice(0, 15).map((e) => e.id),
        );
        assert.equal((await runMirror(options(opened, baseUrl))).copied, 0);
      });
    });

    test('undoing an import the mirror skipped, after a prune of older events: only the undone range is copied again', async () => {
      const events = twentyEvents();
      await withSourceAndCopy(open, events, {}, async (store, baseUrl) => {
        const imported = await importRun(store, events.slice(2, 5));
        const mirrored = await runMirror(options(store, baseUrl));
        assert.deepEqual([mirrored.copied, mirrored.skipped], [17, 3]);
        assert.equal(await store.deleteEvents(ORG, { before: events[10]!.at }), 9);
        await undoIngestRun(store, imported);
        const again = await runMirror(options(store, baseUrl));
        // The three undone come back (and the two newer events are read again, skipped).
        assert.equal(again.copied, 3);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.slice(0, 11).map((e) => e.id),
        );
      });
    });
  });
}
