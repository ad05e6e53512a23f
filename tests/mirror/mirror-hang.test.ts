import assert from 'node:assert/strict';
import type http from 'node:http';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import {
  eventsSecondApart,
  listingSource,
  mirrorIntoFreshStore,
} from '@/tests/helpers/mirror-copy';
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

const events = eventsSecondApart(6, { base: BASE, orgId: SOURCE_ORG, idTag: 'cdcdcdcd' });

async function mirror(baseUrl: string, more: { timeoutMs: number; shouldStop?: () => boolean }) {
  const { summary } = await mirrorIntoFreshStore(openSqliteTestStore, {
    baseUrl,
    sourceOrg: SOURCE_ORG,
    orgId: ORG,
    created: BASE,
    shouldStop: more.shouldStop,
    source: { timeoutMs: more.timeoutMs, backoffMs: 1 },
  });
  return summary;
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

for (const [name, answerSecond] of [
  ['wait for a request that hangs', () => undefined], // never answered
  [
    'wait out a long Retry-After',
    (res: http.ServerResponse) => {
      res.writeHead(429, { 'retry-after': '600', 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 429, errorCode: 'RATE_LIMITED' }));
    },
  ],
] as const) {
  test(`a stop request does not ${name}`, { timeout: 30_000 }, async () => {
    let stop = false;
    const src = await listingSource(events, {
      misbehave: (n, res) => {
        if (n !== 2) return false;
        stop = true;
        answerSecond(res);
        return true;
      },
    });
    try {
      const summary = await mirror(src.baseUrl, { timeoutMs: 600_000, shouldStop: () => stop });
      // No retry was made: the wait (or the request) cut short is none.
      assert.deepEqual([summary.stopped, summary.copied, summary.retries], [true, 6, 0]);
    } finally {
      src.close();
    }
  });
}
