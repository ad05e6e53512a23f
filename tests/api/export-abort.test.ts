import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { answerChallenge } from '@/tests/helpers/digest-client';

/**
 * A client that goes away ends the export's query, through both front doors:
 * on PostgreSQL the export is a REPEATABLE READ transaction FETCHing from a
 * cursor, visible in pg_stat_activity while it runs and gone once the
 * client has left (lib/api/export.test.ts shows the same for the cursor
 * itself, in process).
 */
// A body (~45 MB with raw) larger than every buffer between the server and
// a client that reads nothing (a loopback socket's receive buffer grows to
// 32 MB here): at 12,000 events (~9 MB) the whole body could fit in them
// under load, so a stalled client was never stalled ("the whole body").
const EVENTS = 60_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let npmStart: TestServer;
let nextStart: TestServer;
let watcher: pg.Client;

/** Backends of the server's database inside the export's cursor transaction. */
async function exportBackends(): Promise<number> {
  const { rows } = await watcher.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND query ILIKE 'FETCH FORWARD%event_cursor%'`,
  );
  return Number(rows[0]?.n ?? 0);
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(what);
}

before(async () => {
  database = await createTestDatabase();
  npmStart = await startTestServer({ databaseUrl: database.url, eventCount: EVENTS });
  nextStart = await startTestServer({ door: 'next start', shareDataWith: npmStart });
  watcher = new pg.Client({ connectionString: database.url });
  await watcher.connect();
});
after(async () => {
  await watcher?.end();
  await nextStart?.stop();
  await npmStart?.stop();
  await database?.drop();
});

/** The whole-org export with raw, and a Digest answer to the server's challenge for it. */
async function exportRequest(server: TestServer): Promise<{ url: string; authorization: string }> {
  const url = `/api/public/v1.0/orgs/${server.orgId}/events/export?includeRaw=true`;
  const challenge = (await fetch(`${server.baseUrl}${url}`)).headers.get('www-authenticate');
  return { url, authorization: answerChallenge(challenge, server.keys.member, url) };
}

describe('export: a client that goes away ends the query', () => {
  for (const door of ['npm start', 'next start'] as const) {
    test(door, async () => {
      const server = door === 'npm start' ? npmStart : nextStart;
      const { url, authorization } = await exportRequest(server);
      const abort = new AbortController();
      const res = await fetch(`${server.baseUrl}${url}`, {
        headers: { authorization },
        signal: abort.signal,
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-total-count'), String(EVENTS));
      const reader = res.body!.getReader();
      assert.ok(!(await reader.read()).done);
      const firstChunk = performance.now();
      // The client reads no further: backpressure keeps the transaction open, mid-set.
      await until(async () => (await exportBackends()) === 1, 'the export transaction is open');
      const held = performance.now() - firstChunk;
      abort.abort();
      await until(async () => (await exportBackends()) === 0, 'the transaction ended');
      // Its log line is written when the body ended, cut short by the client.
      const line = await logLine(server, res.headers.get('x-request-id')!);
      assert.equal(line.status, 499);
      assert.ok(Number(line.durationMs) >= held, `${String(line.durationMs)} ms >= ${held} ms`);
    });
  }
});

/** The request's one access-log line, once the server has written it. */
async function logLine(server: TestServer, requestId: string): Promise<Record<string, unknown>> {
  let lines: Record<string, unknown>[] = [];
  await until(async () => {
    lines = server.logLines().filter((l) => l.requestId === requestId && l.msg === 'request');
    return Promise.resolve(lines.length > 0);
  }, `the log line of ${requestId}`);
  assert.equal(lines.length, 1, 'one line per request');
  return lines[0]!;
}

describe("export: the access log's duration covers the whole body", () => {
  const PAUSE_MS = 400;
  for (const door of ['npm start', 'next start'] as const) {
    test(door, async () => {
      const server = door === 'npm start' ? npmStart : nextStart;
      const { url, authorization } = await exportRequest(server);
      const res = await fetch(`${server.baseUrl}${url}`, { headers: { authorization } });
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      assert.ok(!(await reader.read()).done);
      // The client pauses. Buffers between the two (sockets, Next's stream)
      // may take part of the body meanwhile, so what the log must cover is
      // how long the export's transaction was seen still running after the
      // first chunk (backpressure holds the rest of the set).
      const firstChunk = performance.now();
      let seenRunningFor = 0;
      while (performance.now() - firstChunk < PAUSE_MS && (await exportBackends()) === 1) {
        seenRunningFor = performance.now() - firstChunk;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(seenRunningFor > 0, 'the export was still running while the client paused');
      while (!(await reader.read()).done);
      const line = await logLine(server, res.headers.get('x-request-id')!);
      assert.equal(line.status, 200);
      assert.equal(line.route, 'exportOrgEvents');
      assert.ok(
        Number(line.durationMs) >= seenRunningFor,
        `${String(line.durationMs)} ms >= ${seenRunningFor} ms`,
      );
    });
  }
});

describe('export: a client that stops reading is ended after EXPORT_IDLE_SECONDS, its connection cut and logged as 408 while it still reads nothing', () => {
  for (const door of ['npm start', 'next start'] as const) {
    test(door, async () => {
      // It was logged at error level as "request failed" with status 500, and
      // counted so in /metrics: a stalled client fired 5xx alerts.
      const server = await startTestServer({
        door,
        shareDataWith: npmStart,
        env: { EXPORT_IDLE_SECONDS: '1' },
      });
      try {
        const { url, authorization } = await exportRequest(server);
        const res = await fetch(`${server.baseUrl}${url}`, { headers: { authorization } });
        assert.equal(res.status, 200);
        const reader = res.body!.getReader();
        assert.ok(!(await reader.read()).done);
        // The client reads nothing from here: the export is ended after one
        // second and its connection cut, logged meanwhile. (It stayed open,
        // unlogged, until the client read again.)
        let lines: Record<string, unknown>[] = [];
        const id = res.headers.get('x-request-id')!;
        await until(async () => {
          lines = server.logLines().filter((l) => l.requestId === id && 'status' in l);
          return Promise.resolve(lines.length > 0);
        }, 'the export ended and was logged while its client read nothing');
        // Reading again, the client gets what the buffers held, then the cut.
        const rest = await (async () => {
          while (!(await reader.read()).done);
          return 'the whole body';
        })().catch(() => 'a cut connection');
        assert.equal(rest, 'a cut connection');
        assert.equal(lines.length, 1);
        assert.equal(lines[0]!.status, 408, JSON.stringify(lines[0]));
        assert.equal(lines[0]!.msg, 'request');
        assert.ok(
          !server.logLines().some((l) => l.requestId === id && l.msg === 'stream failure'),
          'no error line for it',
        );
      } finally {
        await server.stop();
      }
    });
  }
});

describe('export: the database lost mid-body is logged once, as the outage it is (a 503 warning), with no error line', () => {
  test('npm start', async () => {
    // It was logged twice: the request's line (a warning, 503, with the
    // cause) and an error line "stream failure" with the same stack, so an
    // alert on error lines fired for an outage answered as designed.
    const server = npmStart;
    const { url, authorization } = await exportRequest(server);
    const res = await fetch(`${server.baseUrl}${url}`, { headers: { authorization } });
    assert.equal(res.status, 200);
    const id = res.headers.get('x-request-id')!;
    const reader = res.body!.getReader();
    assert.ok(!(await reader.read()).done);
    await until(async () => (await exportBackends()) === 1, 'the export transaction is open');
    // The database ends the export's connection, as a restart or a failover does.
    await watcher.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND query ILIKE 'FETCH FORWARD%event_cursor%'`,
    );
    const rest = await (async () => {
      while (!(await reader.read()).done);
      return 'the whole body';
    })().catch(() => 'a cut connection');
    assert.equal(rest, 'a cut connection');
    let lines: Record<string, unknown>[] = [];
    await until(async () => {
      lines = server.logLines().filter((l) => l.requestId === id);
      return Promise.resolve(lines.some((l) => 'status' in l));
    }, 'the export was logged');
    // Anything else the cut writes comes within the same turn; give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    lines = server.logLines().filter((l) => l.requestId === id);
    assert.deepEqual(
      lines.map((l) => [l.level, l.msg, l.status]),
      [['warn', 'service unavailable', 503]],
    );
  });
});
