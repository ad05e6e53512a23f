import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { objectIdAt } from '@/lib/domain/object-id';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { StoreUnavailableError, translateStoreError } from './errors';
import { setStoreLogger } from './log';
import { eventsOneMinuteApart } from './testing/fixtures';
import { PostgresStore } from './postgres';

/**
 * What the store does when its PostgreSQL connections die under it. The
 * machine's cluster is shared, so the outage is made on a throwaway database
 * only: its backends are terminated (what a restart does to every open
 * connection), and new connections are refused while ALLOW_CONNECTIONS is off.
 */
describe('PostgreSQL store during an outage', () => {
  const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'dddddddddddddddd');
  const base = Date.UTC(2026, 0, 1);
  const events = eventsOneMinuteApart(orgId, 500, { from: base });
  let database: { url: string; drop: () => Promise<void> };
  let name: string;
  let admin: pg.Client;
  let store: PostgresStore;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  const logged: { details: Record<string, unknown>; message: string }[] = [];

  before(async () => {
    process.on('uncaughtException', onUncaught);
    setStoreLogger({ warn: (details, message) => logged.push({ details, message }) });
    database = await createTestDatabase();
    name = new URL(database.url).pathname.slice(1);
    store = await PostgresStore.open(database.url, 4);
    await store.createOrg({ id: orgId, name: 'Outage Org', created: base });
    await store.insertEvents(orgId, events);
    // Another database, so this connection survives the terminations.
    admin = new pg.Client({ connectionString: database.url.replace(`/${name}`, '/postgres') });
    await admin.connect();
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    setStoreLogger(undefined);
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await store.close();
    await database.drop();
  });

  const terminateBackends = () =>
    admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
      name,
    ]);
  const list = () =>
    store.listEvents({ orgId, offset: 0, limit: 50, includeCount: true, includeRaw: false });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  test('terminated connections: no uncaught exception, StoreUnavailableError, then answers again', async () => {
    const failures: unknown[] = [];
    let running = true;
    let answered = 0;
    // Four request loops keep the pool's connections busy and idle in turn.
    const loops = Array.from({ length: 4 }, async () => {
      while (running) {
        try {
          const page = await list();
          assert.equal(page.totalCount, events.length);
          answered++;
        } catch (error) {
          failures.push(error);
        }
      }
    });
    for (let round = 0; round < 5; round++) {
      await pause(150);
      await terminateBackends();
    }
    await pause(150);
    running = false;
    await Promise.all(loops);
    // Idle connections learn of their end asynchronously: give them time to.
    await terminateBackends();
    await pause(300);

    assert.deepEqual(uncaught, [], 'no uncaught exception');
    assert.ok(failures.length > 0, 'some queries ran into a terminated connection');
    for (const failure of failures) {
      assert.ok(
        failure instanceof StoreUnavailableError,
        `a StoreUnavailableError, not ${String(failure)}`,
      );
    }
    assert.ok(answered > 0);
    assert.ok(
      logged.some((line) => /connection lost/.test(line.message) && line.details.code === '57P01'),
      'a lost idle connection is logged, with its code',
    );
    assert.equal((await list()).totalCount, events.length, 'the next query succeeds');
  });

  test("an export cursor whose connection died closes without throwing, and the pool's other connections serve on", async () => {
    const cursor = await store.openEventCursor(
      { orgId, eventTypes: [], excludeEventTypes: [] },
      { includeRaw: false, batchSize: 10 },
    );
    assert.equal((await cursor.read()).length, 10);
    // What a restart, a failover or idle_in_transaction_session_timeout does to it.
    await terminateBackends();
    await pause(100);
    // Closed as a client gone away closes it (node-adapter: `void stream.cancel()`):
    // a rollback failing here was an unhandled rejection that ended the server.
    await cursor.close();
    assert.equal(cursor.closed, true);
    assert.ok(
      logged.some((line) => /snapshot/.test(line.message)),
      JSON.stringify(logged.map((line) => line.message)),
    );
    let page: Awaited<ReturnType<typeof list>> | undefined;
    for (let attempt = 0; attempt < 20 && !page; attempt++) {
      page = await list().catch(() => undefined);
    }
    assert.equal(page?.totalCount, events.length);
    assert.deepEqual(uncaught, []);
  });

  test('a session PostgreSQL ends for idling (idle_in_transaction_session_timeout, idle_session_timeout) is unavailable, not an unexpected error', async () => {
    await admin.query(`ALTER DATABASE ${name} SET idle_in_transaction_session_timeout = '300ms'`);
    // Connections opened from now on take the setting.
    await terminateBackends();
    await pause(100);
    try {
      let cursor: Awaited<ReturnType<typeof store.openEventCursor>> | undefined;
      for (let attempt = 0; attempt < 20 && !cursor; attempt++) {
        cursor = await store
          .openEventCursor(
            { orgId, eventTypes: [], excludeEventTypes: [] },
            { includeRaw: false, batchSize: 10 },
          )
          .catch(() => undefined);
      }
      assert.equal((await cursor!.read()).length, 10);
      // A client that reads nothing for longer: PostgreSQL ends the session (25P03).
      await pause(800);
      await assert.rejects(cursor!.read(), StoreUnavailableError);
      await cursor!.close();
    } finally {
      await admin.query(`ALTER DATABASE ${name} RESET idle_in_transaction_session_timeout`);
      await terminateBackends();
      await pause(100);
    }
    for (const code of ['57P05', '25P03']) {
      const ended = Object.assign(new Error(`terminating connection (${code})`), { code });
      assert.ok(translateStoreError(ended) instanceof StoreUnavailableError, code);
    }
  });

  test('refused connections: StoreUnavailableError and not ready; recovers by itself', async () => {
    assert.deepEqual(await store.health(), { ready: true, pendingMigrations: [] });
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await terminateBackends();
    await pause(100);
    await assert.rejects(list(), StoreUnavailableError);
    await assert.rejects(store.getOrg(orgId), StoreUnavailableError);
    const down = await store.health();
    assert.equal(down.ready, false);
    assert.match(down.reason ?? '', /unavailable/i);

    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    assert.equal((await list()).totalCount, events.length);
    assert.deepEqual(await store.health(), { ready: true, pendingMigrations: [] });
    assert.deepEqual(uncaught, [], 'no uncaught exception');
  });

  test('a server that stops answering (frozen, or packets dropped): StoreUnavailableError at the query deadline, then answers again', async () => {
    const proxy = await silenceableProxy(new URL(database.url).port || '5432');
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const silent = await PostgresStore.open(url.toString(), 2, {
      queryDeadlineMs: 1000,
      cancelGraceMs: 500,
    });
    try {
      const listThrough = () =>
        silent.listEvents({ orgId, offset: 0, limit: 50, includeCount: true, includeRaw: false });
      assert.equal((await listThrough()).totalCount, events.length);
      proxy.silence(true);
      const started = performance.now();
      const hung = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('still waiting after 10 s')), 10_000).unref(),
      );
      await assert.rejects(Promise.race([listThrough(), hung]), (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError, String(error));
        assert.match(error.message, /did not answer within 1.5 s/);
        return true;
      });
      assert.ok(performance.now() - started < 5000, 'failed at the deadline and its grace');
      proxy.silence(false);
      assert.equal((await listThrough()).totalCount, events.length, 'a new connection answers');
      assert.deepEqual(uncaught, [], 'no uncaught exception');
    } finally {
      await silent.close();
      proxy.close();
    }
  });

  test('a query still running at the deadline on a healthy server is cancelled there: StoreUnavailableError (timed out), nothing of it committed, the connection kept', async () => {
    const slow = await PostgresStore.open(database.url, 1, {
      queryDeadlineMs: 1000,
      cancelGraceMs: 5000,
    });
    try {
      const db = (slow as unknown as { db: Kysely<unknown> }).db;
      await sql`CREATE TABLE deadline_probe (n int)`.execute(db);
      const backend = async () =>
        (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(db)).rows[0]!.pid;
      const before = await backend();
      const started = performance.now();
      await assert.rejects(
        sql`INSERT INTO deadline_probe SELECT 1 FROM pg_sleep(4)`.execute(db),
        (error: unknown) => {
          assert.ok(error instanceof StoreUnavailableError, String(error));
          assert.equal(error.timedOut, true, error.message);
          return true;
        },
      );
      assert.ok(
        performance.now() - started < 3000,
        'cancelled at the deadline, not after the grace',
      );
      const { rows } = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM deadline_probe`.execute(db);
      assert.deepEqual(rows, [{ n: 0 }], 'the cancelled insert committed nothing');
      assert.equal(await backend(), before, 'the same connection answered');
      await sql`DROP TABLE deadline_probe`.execute(db);
    } finally {
      await slow.close();
    }
  });

  test('a database missing a migration is not ready', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(
        "DELETE FROM kysely_migration WHERE name = '0003_type_counters_by_day' RETURNING name",
      );
    } finally {
      await client.end();
    }
    const health = await store.health();
    assert.equal(health.ready, false);
    assert.deepEqual(health.pendingMigrations, ['0003_type_counters_by_day']);
  });

  test('opening a store on a port where nothing listens throws StoreUnavailableError', async () => {
    await assert.rejects(
      PostgresStore.open('postgres://postgres@127.0.0.1:1/none'),
      StoreUnavailableError,
    );
  });
});

/**
 * A TCP proxy to the local PostgreSQL that can go silent: while silent it
 * passes no byte either way and closes nothing, as a frozen server or a
 * network dropping packets does.
 */
async function silenceableProxy(targetPort: string) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(targetPort), '127.0.0.1');
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => {
        if (!silent) to.write(chunk);
      });
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    silence: (on: boolean) => {
      silent = on;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
