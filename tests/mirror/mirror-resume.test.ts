import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { type MirrorOptions, MirrorError, runMirror } from '@/lib/mirror/mirror';
import type { EventStore } from '@/lib/store/types';
import {
  copyIds,
  eventsSecondApart,
  groupCreatedDocument,
  listingSource,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { openSqliteTestStore } from '@/tests/helpers/test-stores';

/**
 * What a run leaves for the next one when it ends early: a walk stopped
 * inside a busy second resumes right with another page size; a run the
 * source refused before its first answer leaves no walk behind for the next
 * run to take over (its --since is honoured); a source that ignores minDate
 * is refused, never copied from before --since.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe00a1');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe00a2');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

/**
 * Three events a second apart, then `busy` events shown in one second
 * (the source orders them by a hidden millisecond, newest first), then three
 * older ones a second apart: 6 + busy, newest first.
 */
function withBusySecond(busy: number): SourceEvent[] {
  const second = BASE + 10_000;
  const inSecond = Array.from({ length: busy }, (_, i) => {
    const at = second + 900 - i * 10;
    const id = objectIdAt(second, `b0b0${String(i).padStart(12, '0')}`);
    return {
      id,
      at,
      doc: groupCreatedDocument({ at: second, id, orgId: SOURCE_ORG, groupId: SOURCE_ORG }),
    };
  });
  const newer = eventsSecondApart(3, { base: second, orgId: SOURCE_ORG, idTag: 'aeae' });
  const older = eventsSecondApart(3, { base: BASE, orgId: SOURCE_ORG, idTag: 'cece' });
  return [...newer, ...inSecond, ...older];
}

/** The key of a source's checkpoint (lib/mirror/mirror.ts): its base URL and org. */
function checkpointKey(baseUrl: string): string {
  return `${baseUrl}#${SOURCE_ORG}`;
}

async function withCopy(body: (store: EventStore) => Promise<void>): Promise<void> {
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    await body(store);
  } finally {
    await store.close();
    await drop();
  }
}

function options(store: EventStore, baseUrl: string, more: Partial<MirrorOptions>): MirrorOptions {
  return {
    store,
    orgId: ORG,
    source: { baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k', backoffMs: 1 },
    ...more,
  };
}

/** Answers `res` with the listing source's own answer to `target` (its path and query). */
function forwardTo(source: { baseUrl: string }, target: string, res: http.ServerResponse): void {
  http
    .request(`${new URL(source.baseUrl).origin}${target}`, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    })
    .end();
}

/**
 * A source at a base URL of its own (so a checkpoint of its own) that
 * answers each request with `respond`, which `answerWith` swaps.
 */
async function sourceInFront(respond: http.RequestListener) {
  let current = respond;
  const server = http.createServer((req, res) => current(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
    answerWith: (next: http.RequestListener) => (current = next),
    close: () => server.close(),
  };
}

test('a walk stopped inside a busy second, resumed with another page size, copies every event', async () => {
  const events = withBusySecond(24);
  const source = await listingSource(events);
  try {
    await withCopy(async (store) => {
      let pages = 0;
      const cut = await runMirror(
        options(store, source.baseUrl, {
          itemsPerPage: 4,
          eventsPerWrite: 4,
          // Pages counted as they are stored (shouldStop is also asked by a
          // timer): page 1 (3 newer and the busy second's first), then pages
          // 1-3 of the busy second.
          onProgress: () => pages++,
          shouldStop: () => pages >= 4,
        }),
      );
      assert.equal(cut.stopped, true);
      const saved = JSON.parse(
        (await store.getMirrorCheckpoint(ORG, checkpointKey(source.baseUrl)))!,
      ) as {
        segment: { pageNum: number; itemsPerPage?: number };
      };
      assert.ok(saved.segment.pageNum > 1, JSON.stringify(saved));
      assert.equal(saved.segment.itemsPerPage, 4);

      // Asked with 10 a page, page n of the second starts at 10 × (n-1), past
      // what pages of 4 had reached: what lay between was never read.
      const rest = await runMirror(options(store, source.baseUrl, { itemsPerPage: 10 }));
      assert.equal(rest.interrupted, false);
      assert.equal(cut.copied + rest.copied, events.length);
      assert.deepEqual((await copyIds(store, ORG)).sort(), events.map((event) => event.id).sort());
    });
  } finally {
    source.close();
  }
});

test('a first run refused before any answer leaves no walk behind: the next run keeps to its --since', async () => {
  const events = eventsSecondApart(20, { base: BASE, orgId: SOURCE_ORG, idTag: 'dede' });
  const source = await listingSource(events);
  // The same source, refusing the key (401 without a challenge to answer).
  const front = await sourceInFront((_req, res) =>
    res
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: 401, errorCode: 'UNAUTHORIZED', detail: 'wrong key' })),
  );
  const refusedUrl = front.baseUrl;
  try {
    await withCopy(async (store) => {
      // Both runs are of the one checkpoint: the source is keyed by its URL.
      const wrongKey = options(store, refusedUrl, { itemsPerPage: 5 });
      await assert.rejects(runMirror(wrongKey), MirrorError);
      const left = await store.getMirrorCheckpoint(ORG, checkpointKey(refusedUrl));
      assert.ok(left === null || !('segment' in JSON.parse(left)), String(left));

      // The second run: as if the key were right now (the same checkpoint
      // key), answered as the listing source answers.
      front.answerWith((req, res) => forwardTo(source, req.url!, res));
      const since = events[4]!.at;
      const run = await runMirror({ ...wrongKey, since });
      const copied = events.filter((event) => event.at >= since).map((event) => event.id);
      assert.equal(run.copied, copied.length);
      assert.deepEqual((await copyIds(store, ORG)).sort(), copied.sort());
    });
  } finally {
    front.close();
    source.close();
  }
});

test('a page failing a check (an event newer than its window) ends the mirror with the pages gathered before it stored and the walk saved at that page', async () => {
  // Before, the pages gathered since the last write (all of them here: a
  // write is 5,000 events) were dropped with the failing page, and read again.
  const events = eventsSecondApart(9, { base: BASE, orgId: SOURCE_ORG, idTag: 'abab' });
  const source = await listingSource(events);
  let requests = 0;
  // The third page answered with the first's events, newer than its window.
  const front = await sourceInFront((req, res) => {
    if (++requests !== 3) return forwardTo(source, req.url!, res);
    const results = events.slice(0, 3).map((event) => event.doc);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
  });
  try {
    await withCopy(async (store) => {
      await assert.rejects(
        runMirror(options(store, front.baseUrl, { itemsPerPage: 3 })),
        /for a window ending .*: it does not filter by maxDate/,
      );
      // Pages 1 and 2: events 0-2, then 2-4 (the first's oldest second again).
      const stored = events.slice(0, 5).map((event) => event.id);
      assert.deepEqual((await copyIds(store, ORG)).sort(), [...stored].sort());
      // The walk is saved at the failing page: the window ending with event 4's second.
      const saved = JSON.parse(
        (await store.getMirrorCheckpoint(ORG, checkpointKey(front.baseUrl)))!,
      ) as { segment: { hi: string; pageNum: number } };
      assert.deepEqual(
        [saved.segment.hi, saved.segment.pageNum],
        [new Date(events[4]!.at + 999).toISOString(), 1],
      );

      front.answerWith((req, res) => forwardTo(source, req.url!, res));
      const rest = await runMirror(options(store, front.baseUrl, { itemsPerPage: 3 }));
      assert.equal(rest.copied, events.length - stored.length);
      assert.deepEqual((await copyIds(store, ORG)).sort(), events.map((event) => event.id).sort());
    });
  } finally {
    front.close();
    source.close();
  }
});

test('a source that ignores minDate is refused, saying so, never copied from before --since', async () => {
  const events = eventsSecondApart(12, { base: BASE, orgId: SOURCE_ORG, idTag: 'fafa' });
  const listing = await listingSource(events);
  // Drops minDate from every request before the listing source sees it.
  const ignoring = await sourceInFront((req, res) => {
    const url = new URL(req.url!, 'http://source');
    url.searchParams.delete('minDate');
    forwardTo(listing, `${url.pathname}${url.search}`, res);
  });
  try {
    await withCopy(async (store) => {
      const since = events[5]!.at;
      await assert.rejects(
        runMirror(options(store, ignoring.baseUrl, { itemsPerPage: 20, since })),
        (error) =>
          error instanceof MirrorError &&
          error.code === 'SOURCE_FAILED' &&
          /for a window starting .*: it does not filter by minDate/.test(error.message),
      );
      const older = new Set(events.filter((event) => event.at < since).map((event) => event.id));
      assert.deepEqual(
        (await copyIds(store, ORG)).filter((id) => older.has(id)),
        [],
      );
    });
  } finally {
    ignoring.close();
    listing.close();
  }
});
