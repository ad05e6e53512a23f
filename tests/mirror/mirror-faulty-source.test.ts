import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { MirrorError } from '@/lib/mirror/mirror';
import {
  eventsSecondApart,
  groupCreatedDocument,
  listingSource,
  mirrorIntoFreshStore,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { openSqliteTestStore } from '@/tests/helpers/test-stores';

/**
 * A source serving what no real service sends (null, a number, records
 * without a valid created): the mirror rejects what is no event, once, and
 * pages on, or stops with a clear error where it cannot; it never fails
 * with a TypeError (it read fields of `null`) nor stops for good at one
 * undated record at a page's edge.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0031');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0032');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

function sourceEvent(at: number, tail: string): Record<string, unknown> {
  const id = objectIdAt(at, tail);
  return groupCreatedDocument({
    at,
    id,
    orgId: SOURCE_ORG,
    groupId: objectIdAt(BASE, 'aaaaaaaaaaaa0001'),
  });
}

/** A source answering `body` to the first window (no maxDate) and nothing older. */
async function fixedSource(body: string) {
  const server = http.createServer((req, res) => {
    const older = new URL(req.url!, 'http://source').searchParams.has('maxDate');
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(older ? '{"links":[],"results":[]}' : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`, close: () => server.close() };
}

async function mirrorFrom(body: string, onRejected?: (record: unknown, message: string) => void) {
  const source = await fixedSource(body);
  try {
    const { summary, events } = await mirrorIntoFreshStore(openSqliteTestStore, {
      baseUrl: source.baseUrl,
      sourceOrg: SOURCE_ORG,
      orgId: ORG,
      created: BASE,
      onRejected,
    });
    return { summary, ids: events.map((e) => e.id) };
  } finally {
    source.close();
  }
}

test('elements of results that are no event objects (null, a number) are rejected and the events around them copied', async () => {
  const newer = sourceEvent(BASE + 2000, 'bbbbbbbbbbbb0001');
  const older = sourceEvent(BASE, 'bbbbbbbbbbbb0002');
  const rejected: [unknown, string][] = [];
  const { summary, ids } = await mirrorFrom(
    JSON.stringify({ links: [], results: [newer, null, 42, older] }),
    (record, message) => rejected.push([record, message]),
  );
  assert.deepEqual([summary.copied, summary.skipped, summary.rejected], [2, 0, 2]);
  assert.deepEqual(ids, [newer.id, older.id]);
  assert.deepEqual(
    rejected.map(([record]) => record),
    [null, 42],
  );
  for (const [, message] of rejected) assert.match(message, /object/i);
});

test('a body of null, an array, a string or a null results: SOURCE_FAILED saying it has no results list', async () => {
  for (const body of ['null', '[]', '{"results": null}', '"results"']) {
    await assert.rejects(
      mirrorFrom(body),
      (error: unknown) =>
        error instanceof MirrorError &&
        error.code === 'SOURCE_FAILED' &&
        /has no "results" list/.test(error.message),
      body,
    );
  }
});

test('records without a valid created, even at the end or start of a page, are rejected once and the paging goes on', async () => {
  // Nine events a second apart, newest first; pages of 3 end (and the
  // first begins) with a record whose created is missing or broken.
  const events: SourceEvent[] = Array.from({ length: 9 }, (_, i) => {
    const at = BASE + (9 - i) * 1000;
    const id = objectIdAt(at, `cccccccccccc000${i}`);
    const doc = groupCreatedDocument({ at, id, orgId: SOURCE_ORG, groupId: SOURCE_ORG });
    if (i === 0 || i === 2) delete doc.created;
    if (i === 5) doc.created = 'yesterday';
    return { id, at, doc };
  });
  const undated = new Set([0, 2, 5].map((i) => events[i]!.id));
  const source = await listingSource(events);
  const rejected: unknown[] = [];
  try {
    const { summary, events: copied } = await mirrorIntoFreshStore(openSqliteTestStore, {
      baseUrl: source.baseUrl,
      sourceOrg: SOURCE_ORG,
      orgId: ORG,
      created: BASE,
      itemsPerPage: 3,
      onRejected: (record) => rejected.push(record),
    });
    assert.deepEqual([summary.copied, summary.skipped, summary.rejected], [6, 0, 3]);
    assert.deepEqual(
      copied.map((e) => e.id),
      events.filter((e) => !undated.has(e.id)).map((e) => e.id),
    );
    assert.deepEqual(
      rejected.map((record) => (record as { id: string }).id),
      [0, 2, 5].map((i) => events[i]!.id),
    );
  } finally {
    source.close();
  }
});

test('a full page none of whose records has a valid created is a clear error', async () => {
  const events: SourceEvent[] = [0, 1, 2].map((i) => {
    const at = BASE + i * 1000;
    const id = objectIdAt(at, `dddddddddddd000${i}`);
    const { created: _, ...doc } = groupCreatedDocument({
      at,
      id,
      orgId: SOURCE_ORG,
      groupId: SOURCE_ORG,
    });
    return { id, at, doc };
  });
  const source = await listingSource(events);
  try {
    await assert.rejects(
      copyFrom(source.baseUrl, 3),
      (error: unknown) =>
        error instanceof MirrorError &&
        error.code === 'SOURCE_FAILED' &&
        /none of which has a valid created date/.test(error.message),
    );
  } finally {
    source.close();
  }
});

/** Copies the source at `baseUrl` into a fresh SQLite store, `itemsPerPage` a page. */
function copyFrom(baseUrl: string, itemsPerPage: number) {
  return mirrorIntoFreshStore(openSqliteTestStore, {
    baseUrl,
    sourceOrg: SOURCE_ORG,
    orgId: ORG,
    created: BASE,
    itemsPerPage,
  });
}

/** Forty events a second apart, newest first. */
function fortyEvents(): SourceEvent[] {
  return eventsSecondApart(40, { base: BASE, orgId: SOURCE_ORG, idTag: 'eeeeeeeeee' });
}

for (const [name, faults] of [
  ['one answer cut short (3 of 10) mid-window', { truncate: { request: 2, to: 3 } }],
  ['a source serving at most 7 of the 10 asked every page', { clamp: 7 }],
] as const) {
  test(`a page shorter than asked does not end the window: ${name}, the copy is complete`, async () => {
    const events = fortyEvents();
    const source = await listingSource(events, faults);
    try {
      const { summary, events: copied } = await copyFrom(source.baseUrl, 10);
      assert.deepEqual(
        copied.map((e) => e.id),
        events.map((e) => e.id),
      );
      assert.deepEqual([summary.copied, summary.rejected], [40, 0]);
      // The pages, one re-read of the last page's oldest second, one empty page.
      assert.ok(source.requests() <= Math.ceil(40 / 7) * 2 + 2, String(source.requests()));
    } finally {
      source.close();
    }
  });
}

test('a source that ignores maxDate is a clear error, not an endless walk', async () => {
  const events = fortyEvents();
  const body = JSON.stringify({ links: [], results: events.slice(0, 10).map((e) => e.doc) });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    await assert.rejects(
      mirrorIntoFreshStore(openSqliteTestStore, {
        baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
        sourceOrg: SOURCE_ORG,
        orgId: ORG,
        created: BASE,
        itemsPerPage: 10,
      }),
      (error: unknown) =>
        error instanceof MirrorError &&
        error.code === 'SOURCE_FAILED' &&
        /does not filter by maxDate/.test(error.message),
    );
  } finally {
    server.close();
  }
});

test('a source listing each page oldest first: the copy is complete, nothing counted as already present, and complete through the newest event', async () => {
  // The next window and `through` came from a page's first and last records,
  // taken for its newest and oldest: windows overlapped (their events
  // counted as already present) and `through` was the oldest page's top.
  const events = fortyEvents();
  const source = await listingSource(events, { reversePages: true });
  try {
    const { summary, events: copied } = await copyFrom(source.baseUrl, 10);
    assert.deepEqual(new Set(copied.map((e) => e.id)), new Set(events.map((e) => e.id)));
    assert.deepEqual([summary.copied, summary.skipped], [40, 0]);
    assert.equal(summary.through, new Date(events[0]!.at).toISOString().replace('.000Z', 'Z'));
  } finally {
    source.close();
  }
});

test('an id the source lists twice in one write is copied once and not counted as already present', async () => {
  const events = fortyEvents();
  // The 30th event listed again in an older second, with other content.
  const again = events[29]!;
  const older = BASE - 5000;
  const repeated: SourceEvent = {
    id: again.id,
    at: older,
    doc: groupCreatedDocument({ at: older, id: again.id, orgId: SOURCE_ORG, groupId: ORG }),
  };
  const source = await listingSource([...events, repeated]);
  try {
    const { summary, events: copied } = await copyFrom(source.baseUrl, 100);
    assert.deepEqual([summary.copied, summary.skipped], [40, 0]);
    // The first listed is kept.
    assert.equal(
      (JSON.parse(copied.find((e) => e.id === again.id)!.doc) as { created: string }).created,
      again.doc.created,
    );
  } finally {
    source.close();
  }
});

test('a page within one second cut short by a fault is asked for again: the page after it would start where a whole one ends', async () => {
  // Ten events in one second, pages of 3; the third answer is cut to 2.
  // Before, the next page started at the 7th event, and the 6th was never copied.
  const second = BASE + 60_000;
  const events: SourceEvent[] = Array.from({ length: 10 }, (_, i) => {
    const id = objectIdAt(second, `dddddddddddd${String(i).padStart(4, '0')}`);
    return {
      id,
      at: second + 900 - i * 10,
      doc: groupCreatedDocument({ at: second, id, orgId: SOURCE_ORG, groupId: SOURCE_ORG }),
    };
  });
  const source = await listingSource(events, { truncate: { request: 3, to: 2 } });
  try {
    const { summary, events: copied } = await copyFrom(source.baseUrl, 3);
    assert.deepEqual([summary.copied, summary.skipped], [10, 0]);
    assert.deepEqual(
      copied.map((e) => e.id),
      events.map((e) => e.id),
    );
  } finally {
    source.close();
  }
});
