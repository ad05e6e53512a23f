import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { formatCreated } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import { MirrorError, runMirror } from '@/lib/mirror/mirror';
import { openSqliteTestStore } from '@/tests/helpers/test-stores';

/**
 * A source answering 200 with a body no real service sends: the mirror
 * rejects what is no event, or stops with a clear error, and never fails
 * with a TypeError (it read fields of `null`).
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0031');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0032');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

function sourceEvent(at: number, tail: string): Record<string, unknown> {
  const id = objectIdAt(at, tail);
  return {
    created: formatCreated(at),
    eventTypeName: 'GROUP_CREATED',
    groupId: objectIdAt(BASE, 'aaaaaaaaaaaa0001'),
    id,
    isGlobalAdmin: false,
    links: [],
    orgId: SOURCE_ORG,
  };
}

/** A source answering every request with `body`. */
async function fixedSource(body: string) {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`, close: () => server.close() };
}

async function mirrorFrom(body: string, onRejected?: (record: unknown, message: string) => void) {
  const source = await fixedSource(body);
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Mirror copy', created: BASE });
    const summary = await runMirror({
      store,
      orgId: ORG,
      source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
      onRejected,
    });
    const page = await store.listEvents({
      orgId: ORG,
      offset: 0,
      limit: 100,
      includeCount: true,
      includeRaw: false,
    });
    return { summary, ids: page.events.map((e) => e.id) };
  } finally {
    source.close();
    await store.close();
    await drop();
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
