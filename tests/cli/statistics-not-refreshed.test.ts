import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { NewEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import { createTestDatabase, databaseWithVacuumLock } from '@/tests/helpers/postgres';
import { generateEvents } from '@/tests/helpers/test-events';
import { cli, CLI_BIN, ROOT } from './run-cli';

/**
 * The statistics a load refreshes once its batches are in are upkeep, not
 * the data: an import whose every event committed, whose refresh then
 * failed (on a full disk it did, all 60,000 events stored), exited 1 and
 * recorded its run `failed`. It now succeeds, its run finished, and warns
 * (stderr, --json) that the statistics were not refreshed. Made to fail the
 * same way on both engines without a full disk: once every event is
 * stored, another session holds a lock the refresh needs longer than the
 * store waits (SQLite's busy timeout, a DBA's lock_timeout on PostgreSQL),
 * and lets it go once the import has said so.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0081');
const EVENTS = 300;

type Engine = {
  url: string;
  drop: () => Promise<void>;
  /** Holds, until `release`, a lock the statistics refresh needs and inserts do not. */
  lockRefresh: () => Promise<{ release: () => Promise<void> }>;
  /** Whether the planner has statistics for the events table (they were refreshed). */
  analyzed: () => Promise<boolean>;
};

function asLine(event: NewEvent): string {
  return JSON.stringify({
    ...(JSON.parse(event.doc) as Record<string, unknown>),
    ...(event.raw === null ? {} : { raw: JSON.parse(event.raw) as unknown }),
  });
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function suite(name: string, open: () => Promise<Engine>) {
  describe(`an import whose statistics refresh fails (${name})`, () => {
    let engine: Engine | undefined;
    after(() => engine?.drop());

    test('exits 0 with its run finished and every event stored, and warns that the statistics were not refreshed', async () => {
      engine = await open();
      const { url } = engine;
      assert.equal(cli(url, 'orgs', 'create', '--name', 'Stats', '--id', ORG).code, 0);
      const events = generateEvents(ORG, EVENTS + 100, { seed: 81, days: 20 });
      const store = await openStore(url);
      let lock: { release: () => Promise<void> } | undefined;
      try {
        // From stdin: what it was given is inserted after a second's pause,
        // and the refresh comes only once stdin ends, after the lock is taken.
        const child = spawn(
          process.execPath,
          [CLI_BIN, 'import', '--org', ORG, '-', '--json', '--database', url],
          {
            cwd: ROOT,
            env: { ...process.env, NODE_ENV: 'test' },
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        let exited = false;
        const exit = new Promise<number | null>((resolve) =>
          child.once('exit', (code) => {
            exited = true;
            resolve(code);
          }),
        );
        child.stdin.write(`${events.slice(0, EVENTS).map(asLine).join('\n')}\n`);
        await waitFor(
          'every event to be stored',
          async () => (await store.countEvents({ orgId: ORG })) === EVENTS,
        );
        lock = await engine.lockRefresh();
        child.stdin.end();
        // Let go once the import has said the refresh failed (or has ended):
        // its run's end, written next, must not wait for the lock too.
        await waitFor('the import to report the refresh', () =>
          Promise.resolve(exited || /statistics were not refreshed/.test(stderr)),
        );
        await lock.release();
        lock = undefined;
        const code = await exit;
        assert.equal(code, 0, `${stdout}\n${stderr}`);

        const summary = JSON.parse(stdout) as {
          runId: string;
          inserted: number;
          statisticsNotRefreshed?: string;
          error?: unknown;
        };
        assert.equal(summary.inserted, EVENTS);
        assert.equal(summary.error, undefined);
        assert.match(summary.statisticsNotRefreshed ?? '', /\S/, 'why, in the summary');
        assert.match(
          stderr,
          new RegExp(
            `^Warning: the query statistics were not refreshed after this import \\(${escaped(summary.statisticsNotRefreshed!)}\\): ` +
              `what it inserted \\(${EVENTS} events\\) is stored, but queries may be planned less well until the statistics are refreshed, ` +
              `which the next import, seed or mirror that adds events \\(or prune or undo that removes some\\) does\\.$`,
            'm',
          ),
        );
        assert.equal(await store.countEvents({ orgId: ORG }), EVENTS);
        const run = await store.getIngestRun(summary.runId);
        assert.deepEqual(
          { status: run?.status, inserted: run?.inserted, detail: run?.detail },
          { status: 'finished', inserted: EVENTS, detail: null },
        );
        assert.equal(await engine.analyzed(), false, 'the refresh did fail');

        // What the warning says: the next import that adds events refreshes them.
        const rest = path.join(os.tmpdir(), `stats-${process.pid}-${name}.ndjson`);
        fs.writeFileSync(rest, events.slice(EVENTS).map(asLine).join('\n'));
        const next = cli(url, 'import', '--org', ORG, rest, '--json');
        fs.rmSync(rest);
        assert.equal(next.code, 0, next.stderr);
        assert.equal(
          (next.json as { statisticsNotRefreshed?: string }).statisticsNotRefreshed,
          undefined,
        );
        assert.doesNotMatch(next.stderr, /statistics/);
        assert.equal(await engine.analyzed(), true);
      } finally {
        await lock?.release();
        await store.close();
      }
    });
  });
}

suite('SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-statistics-'));
  const file = path.join(dir, 'stats.db');
  return Promise.resolve({
    url: `file:${file}`,
    drop: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
    // SQLite has one write lock: the refresh (ANALYZE) waits the store's busy timeout for it.
    lockRefresh: () => {
      const db = new BetterSqlite3(file);
      db.exec('BEGIN IMMEDIATE');
      return Promise.resolve({
        release: () => {
          db.exec('COMMIT');
          db.close();
          return Promise.resolve();
        },
      });
    },
    analyzed: () => {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        const stat = db
          .prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 'sqlite_stat1'")
          .get() as { n: number };
        if (stat.n === 0) return Promise.resolve(false);
        const rows = db
          .prepare("SELECT count(*) AS n FROM sqlite_stat1 WHERE tbl = 'events'")
          .get() as { n: number };
        return Promise.resolve(rows.n > 0);
      } finally {
        db.close();
      }
    },
  });
});

suite('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const name = new URL(database.url).pathname.slice(1);
  const query = async (text: string) => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return await client.query(text);
    } finally {
      await client.end();
    }
  };
  // As a DBA may set it for every connection: a lock waited for longer fails the statement.
  await query(`ALTER DATABASE ${name} SET lock_timeout = '500ms'`);
  // Only the store's refresh analyzes the events table here.
  await openStore(database.url).then((store) => store.close());
  await query('ALTER TABLE events SET (autovacuum_enabled = false)');
  return {
    ...database,
    // VACUUM takes SHARE UPDATE EXCLUSIVE, which inserts (ROW EXCLUSIVE) do not
    // wait for: another VACUUM, an ANALYZE, a CREATE INDEX CONCURRENTLY hold it.
    lockRefresh: async () => {
      const locker = new pg.Client({ connectionString: database.url });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE event_counts IN SHARE UPDATE EXCLUSIVE MODE');
      return {
        release: async () => {
          await locker.query('COMMIT');
          await locker.end();
        },
      };
    },
    // reltuples is -1 until the table is first analyzed or vacuumed (PostgreSQL 14 and later).
    analyzed: async () => {
      const { rows } = await query(
        "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'events'::regclass",
      );
      return Number((rows[0] as { n: number }).n) >= 0;
    },
  };
});

/**
 * The same for a deletion, which has committed when its refresh fails: an
 * undo failed (exit 1) and stayed recorded unfinished, a prune failed
 * after deleting. PostgreSQL only, where a lock VACUUM needs can be held
 * without holding up deletes; lib/ingest/deletion-statistics.test.ts has
 * the rest.
 */
describe('an undo and a prune whose statistics refresh fails (PostgreSQL)', () => {
  test('exit 0 with the deletion done and recorded, and warn that the statistics were not refreshed', async () => {
    const database = await databaseWithVacuumLock();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-deletion-stats-'));
    try {
      const url = database.url;
      assert.equal(cli(url, 'orgs', 'create', '--name', 'Stats', '--id', ORG).code, 0);
      const events = generateEvents(ORG, 200, { seed: 82, days: 20 });
      const file = path.join(dir, 'events.ndjson');
      fs.writeFileSync(file, events.slice(0, 100).map(asLine).join('\n'));
      const imported = cli(url, 'import', '--org', ORG, file, '--json');
      assert.equal(imported.code, 0, imported.stderr);
      fs.writeFileSync(file, events.slice(100).map(asLine).join('\n'));
      assert.equal(cli(url, 'import', '--org', ORG, file).code, 0);
      const runId = (imported.json as { runId: string }).runId;

      await database.holdVacuumLock();
      const undo = cli(url, 'imports', 'undo', runId, '--json');
      assert.equal(undo.code, 0, undo.stderr);
      const undone = undo.json as { deleted: number; statisticsNotRefreshed?: string };
      assert.equal(undone.deleted, 100);
      assert.match(undone.statisticsNotRefreshed ?? '', /lock timeout/);
      assert.match(
        undo.stderr,
        new RegExp(
          `^Warning: the query statistics were not refreshed after this undo \\(${escaped(undone.statisticsNotRefreshed!.replace(/\.$/, ''))}\\): ` +
            'what it removed \\(100 events\\) is gone, but queries may be planned less well until the statistics are refreshed, ',
          'm',
        ),
      );
      const list = cli(url, 'imports', 'list', '--org', ORG, '--json');
      const runs = (list.json as { runs: { id: string; status: string }[] }).runs;
      assert.equal(runs.find((run) => run.id === runId)?.status, 'undone');

      // The newest left stays: a prune deletes what was created before it.
      const before = new Date(Math.max(...events.slice(100).map((e) => e.created))).toISOString();
      const prune = cli(url, 'events', 'prune', '--org', ORG, '--before', before);
      assert.equal(prune.code, 0, prune.stderr);
      assert.match(prune.stdout, /^Deleted 99 events of /m);
      assert.match(
        prune.stderr,
        /^Warning: the query statistics were not refreshed after this prune \(.*lock timeout.*\): what it deleted \(99 events\) is gone, /m,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
