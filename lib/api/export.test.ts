import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueApiKey } from '@/lib/auth/api-keys';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import { translateStoreError } from '@/lib/store/errors';
import type { EventCursor, EventStore } from '@/lib/store/types';
import { answerChallenge } from '@/tests/helpers/digest-client';
import { generateEvents } from '@/tests/helpers/test-events';
import { exportLimit } from './export';
import { createApiHandler } from './handler';
import { createNodeApiHandler } from './node-adapter';

/**
 * The export through the node:http adapter, in process over a real SQLite
 * file, where the store's cursor can be watched: a client that goes away
 * ends the query, and an import committed while the body is being read is
 * neither in it nor doubled. (tests/api/suites/export.ts checks the content
 * through both front doors.)
 */

const orgId = objectIdAt(Date.UTC(2025, 0, 1), '00000000000000e1');
const EVENTS = 20_000;

let dir: string;
let store: EventStore;
let server: http.Server;
let baseUrl: string;
let key: { publicKey: string; privateKey: string };
/** Every cursor the API opened, with how many events it handed out. */
const cursors: { cursor: EventCursor; delivered: number }[] = [];
/**
 * Set, the next cursor's first read fails as a session PostgreSQL ended
 * fails (the real store's translation of SQLSTATE 57P05).
 */
let failFirstRead = false;
/**
 * Set, the cursors' reads after their first wait for it: an export is then
 * surely still reading, whatever the machine's pace (its whole body could
 * otherwise be read into the sockets' buffers before the client's first read).
 */
let holdAfterFirstRead: Promise<void> | undefined;

/** Watches the real store's cursors: nothing else about the store changes. */
function watched(real: EventStore): EventStore {
  return new Proxy(real, {
    get(target, name, receiver) {
      if (name !== 'openEventCursor') return Reflect.get(target, name, receiver) as unknown;
      return async (...args: Parameters<EventStore['openEventCursor']>) => {
        const cursor = await target.openEventCursor(...args);
        const entry = { cursor, delivered: 0 };
        cursors.push(entry);
        const read = cursor.read.bind(cursor);
        const failing = failFirstRead;
        failFirstRead = false;
        cursor.read = async () => {
          if (failing && entry.delivered === 0) {
            throw translateStoreError(
              Object.assign(new Error('terminating connection due to idle-session timeout'), {
                code: '57P05',
              }),
            );
          }
          if (entry.delivered > 0) await holdAfterFirstRead;
          const batch = await read();
          entry.delivered += batch.length;
          return batch;
        };
        return cursor;
      };
    },
  });
}

async function authorization(url: string): Promise<string> {
  return answerChallenge(
    (await fetch(`${baseUrl}${url}`)).headers.get('www-authenticate'),
    key,
    url,
  );
}

/** Waits (bounded) for a condition another part of the process brings about. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(condition(), what);
}

before(async () => {
  setConfigForTesting({
    EVENTS_VARIANT: 'hosted',
    DIGEST_REALM: 'MMS Public API',
    PUBLIC_BASE_URL: undefined,
    TRUST_PROXY: false,
    NONCE_TTL_SECONDS: 300,
    ORG_EVENTS_SECRET: undefined,
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-export-'));
  store = await openStore(`file:${path.join(dir, 'test.db')}`);
  await store.createOrg({ id: orgId, name: 'Export Co', created: Date.UTC(2025, 0, 1) });
  const events = generateEvents(orgId, EVENTS, { seed: 5, days: 30 });
  for (let i = 0; i < events.length; i += 5000) {
    await store.insertEvents(orgId, events.slice(i, i + 5000));
  }
  const issued = await issueApiKey(store, {
    orgId,
    role: 'ORG_MEMBER',
    description: 'export',
    realm: getConfig().DIGEST_REALM,
  });
  key = { publicKey: issued.record.publicKey, privateKey: issued.privateKey };
  const handler = createApiHandler({ store: () => Promise.resolve(watched(store)) });
  server = http.createServer(createNodeApiHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('export over node:http', () => {
  test('a client that goes away ends the query: the cursor is closed before it was read out', async () => {
    const url = `/api/public/v1.0/orgs/${orgId}/events/export?includeRaw=true`;
    const abort = new AbortController();
    const res = await fetch(`${baseUrl}${url}`, {
      headers: { authorization: await authorization(url) },
      signal: abort.signal,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-total-count'), String(EVENTS));
    const reader = res.body!.getReader();
    assert.ok(!(await reader.read()).done);
    const watch = cursors.at(-1)!;
    abort.abort();
    await until(() => watch.cursor.closed, 'the cursor closed after the client went away');
    assert.ok(
      watch.delivered < EVENTS,
      `the query stopped early (${watch.delivered} of ${EVENTS} read)`,
    );
  });

  test('exports past EXPORT_MAX_CONCURRENT are answered 429 TOO_MANY_EXPORTS; one whose client stops reading is ended after EXPORT_IDLE_SECONDS, its cursor closed and its place given back', async () => {
    // Before, clients that stopped reading held their snapshots for as long
    // as they stayed connected: on PostgreSQL, ten of them took every pooled
    // connection and every other request of the instance failed with 503.
    const saved = getConfig();
    const url = `/api/public/v1.0/orgs/${orgId}/events/export?includeRaw=true`;
    const open = async () =>
      fetch(`${baseUrl}${url}`, { headers: { authorization: await authorization(url) } });
    const aborts: AbortController[] = [];
    /** Two exports whose clients read one chunk and then nothing more. */
    const stallTwo = async () => {
      const stalled = [];
      for (let i = 0; i < 2; i++) {
        const abort = new AbortController();
        aborts.push(abort);
        const res = await fetch(`${baseUrl}${url}`, {
          headers: { authorization: await authorization(url) },
          signal: abort.signal,
        });
        assert.equal(res.status, 200);
        // One chunk read, then nothing more: the body is far larger than the socket's buffers.
        assert.ok(!(await res.body!.getReader().read()).done);
        stalled.push(cursors.at(-1)!);
      }
      return stalled;
    };
    try {
      // The limit, with an idle time no busy machine reaches between two
      // requests: with 1 s, the two stalled exports were at times ended
      // before the third request arrived, and it was (rightly) let through.
      setConfigForTesting({ EXPORT_MAX_CONCURRENT: 2, EXPORT_IDLE_SECONDS: 3600 });
      const held = await stallTwo();
      const refused = await open();
      assert.ok(
        held.every((watch) => !watch.cursor.closed),
        'the two exports were still held when the third was asked for',
      );
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.deepEqual(await refused.json(), {
        detail: 'This instance is streaming 2 exports already, its limit. Retry in 5 seconds.',
        error: 429,
        errorCode: 'TOO_MANY_EXPORTS',
        parameters: ['2'],
        reason: 'Too Many Requests',
      });
      // Their clients go away: their places are given back.
      for (const abort of aborts.splice(0)) abort.abort();
      for (const watch of held) {
        await until(() => watch.cursor.closed, 'the export ended when its client went away');
      }

      // Idle exports end themselves, with no client going away.
      setConfigForTesting({ EXPORT_IDLE_SECONDS: 1 });
      const stalled = await stallTwo();
      for (const watch of stalled) {
        await until(() => watch.cursor.closed, 'the stalled export ended after its idle time');
        assert.ok(watch.delivered < EVENTS, `${watch.delivered} of ${EVENTS} read`);
      }
      // The places are free again. This export is read out whole, with the
      // long idle time back: the test's client shares the server's process,
      // and on a busy machine a 1 s pause of the process ended it midway.
      setConfigForTesting({ EXPORT_IDLE_SECONDS: 3600 });
      const again = await open();
      assert.equal(again.status, 200);
      const lines = (await again.text()).split('\n').length - 1;
      assert.equal(lines, EVENTS);
    } finally {
      for (const abort of aborts) abort.abort();
      setConfigForTesting(saved);
    }
  });

  test('a store outage before the first event is answered 503 with Retry-After, its cursor closed and its place given back', async () => {
    // The status line went out before the first read, so the client got a
    // connection closed with no answer at all.
    const saved = getConfig();
    setConfigForTesting({ EXPORT_MAX_CONCURRENT: 1 });
    const url = `/api/public/v1.0/orgs/${orgId}/events/export`;
    try {
      failFirstRead = true;
      const refused = await fetch(`${baseUrl}${url}`, {
        headers: { authorization: await authorization(url) },
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.equal(
        ((await refused.json()) as { errorCode: string }).errorCode,
        'SERVICE_UNAVAILABLE',
      );
      assert.equal(cursors.at(-1)!.cursor.closed, true);
      const again = await fetch(`${baseUrl}${url}`, {
        headers: { authorization: await authorization(url) },
      });
      assert.equal(again.status, 200, 'the one export allowed is free again');
      assert.equal((await again.text()).split('\n').length - 1, EVENTS);
    } finally {
      failFirstRead = false;
      setConfigForTesting(saved);
    }
  });

  test('an import committed while the body is read is neither in it nor doubled', async () => {
    const url = `/api/public/v1.0/orgs/${orgId}/events/export`;
    let release = () => {};
    holdAfterFirstRead = new Promise<void>((resolve) => (release = resolve));
    const res = await fetch(`${baseUrl}${url}`, {
      headers: { authorization: await authorization(url) },
    });
    assert.equal(res.status, 200);
    const total = Number(res.headers.get('x-total-count'));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const first = await reader.read();
    text += decoder.decode(first.value, { stream: true });
    const watch = cursors.at(-1)!;
    assert.equal(watch.cursor.closed, false, 'the export is still reading when the import runs');
    // Newer and older than what is left to read, on the store's own connection.
    const extra = generateEvents(orgId, 2000, { seed: 6, days: 30 }).filter((e, i) => i % 2 === 0);
    const inserted = await store.insertEvents(orgId, extra);
    assert.ok(inserted.inserted > 0);
    release();
    holdAfterFirstRead = undefined;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
    }
    const ids = text
      .split('\n')
      .slice(0, -1)
      .map((line) => (JSON.parse(line) as { id: string }).id);
    assert.equal(ids.length, total);
    assert.equal(new Set(ids).size, ids.length, 'no event twice');
    const added = new Set(extra.map((e) => e.id));
    assert.equal(ids.filter((id) => added.has(id)).length, 0, 'none of the import');
    assert.equal(await store.countEvents({ orgId }), total + inserted.inserted);
  });
});

test('exportLimit: EXPORT_MAX_CONCURRENT when set; else 4, leaving two PostgreSQL pool connections to other requests, and at least one', () => {
  const limit = (EXPORT_MAX_CONCURRENT?: number, DATABASE_POOL_SIZE?: number) =>
    exportLimit({ EXPORT_MAX_CONCURRENT, DATABASE_POOL_SIZE });
  assert.deepEqual(
    [limit(), limit(undefined, 20), limit(undefined, 5), limit(undefined, 3), limit(undefined, 2)],
    [4, 4, 3, 1, 1],
  );
  assert.equal(limit(12, 5), 12);
});
