import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { MirrorError } from '@/lib/mirror/mirror';
import { groupCreatedDocument, mirrorIntoFreshStore } from '@/tests/helpers/mirror-copy';
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
  return groupCreatedDocument({
    at,
    id,
    orgId: SOURCE_ORG,
    groupId: objectIdAt(BASE, 'aaaaaaaaaaaa0001'),
  });
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
