import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { runMirror } from '@/lib/mirror/mirror';
import { groupCreatedDocument, listingSource, type SourceEvent } from '@/tests/helpers/mirror-copy';
import { openSqliteTestStore } from '@/tests/helpers/test-stores';

/**
 * A source that never finishes an answer: one dripping a byte at a time
 * (the socket is never idle) is cut at the request's deadline and retried;
 * a stop request ends the mirror without waiting for a hung request or a
 * long Retry-After. The node:test timeouts are only there to turn the old
 * hang into a failure.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0051');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0052');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

const events = Array.from({ length: 6 }, (_, i): SourceEvent => {
  const at = BASE + (6 - i) * 1000;
  const id = objectIdAt(at, `cdcdcdcd${String(i).padStart(8, '0')}`);
  return { id, at, doc: groupCreatedDocument({ at, id, orgId: SOURCE_ORG, groupId: SOURCE_ORG }) };
});

async function mirror(baseUrl: string, more: { timeoutMs: number; shouldStop?: () => boolean }) {
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    return await runMirror({
      store,
      orgId: ORG,
      shouldStop: more.shouldStop,
      source: {
        baseUrl,
        orgId: SOURCE_ORG,
        publicKey: 'p',
        privateKey: 'k',
        timeoutMs: more.timeoutMs,
        backoffMs: 1,
      },
    });
  } finally {
    await store.close();
    await drop();
  }
}

test(
  'an answer dripping a byte at a time is cut at the deadline and retried',
  { timeout: 60_000 },
  async () => {
    const timers: NodeJS.Timeout[] = [];
    const src = await listingSource(events, {
      misbehave: (n, res) => {
        if (n !== 1) return false;
        res.writeHead(200, { 'content-type': 'application/json' });
        timers.push(setInterval(() => res.write(' '), 50));
        return true;
      },
    });
    try {
      const summary = await mirror(src.baseUrl, { timeoutMs: 1000 });
      assert.equal(summary.copied, 6);
      assert.equal(summary.retries, 1);
    } finally {
      timers.forEach(clearInterval);
      src.close();
    }
  },
);

test('a stop request does not wait for a request that hangs', { timeout: 30_000 }, async () => {
  let stop = false;
  const src = await listingSource(events, {
    misbehave: (n) => {
      if (n !== 2) return false;
      stop = true; // never answered
      return true;
    },
  });
  try {
    const summary = await mirror(src.baseUrl, { timeoutMs: 600_000, shouldStop: () => stop });
    assert.deepEqual([summary.stopped, summary.copied], [true, 6]);
  } finally {
    src.close();
  }
});

test('a stop request does not wait out a long Retry-After', { timeout: 30_000 }, async () => {
  let stop = false;
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n !== 2) return false;
      stop = true;
      res.writeHead(429, { 'retry-after': '600', 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 429, errorCode: 'RATE_LIMITED' }));
      return true;
    },
  });
  try {
    const summary = await mirror(src.baseUrl, { timeoutMs: 600_000, shouldStop: () => stop });
    assert.deepEqual([summary.stopped, summary.copied], [true, 6]);
  } finally {
    src.close();
  }
});
