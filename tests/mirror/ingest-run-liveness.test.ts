import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import type { NewEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import {
  HEARTBEAT_MS,
  STALE_MS,
  settleIngestRuns,
  startIngestRun,
  endIngestRun,
} from '@/lib/ingest/ingest-runs';
import { openStore } from '@/lib/store';
import type { IngestRun } from '@/lib/store/types';
import { cli, CLI_BIN, ROOT } from '@/tests/cli/run-cli';
import { runningRun } from '@/tests/helpers/ingest-runs';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { generateEvents } from '@/tests/helpers/test-events';

/**
 * A killed import must not stay `running` forever (issue 11): with a real CLI
 * import fed on stdin, the ledger shows it `running` while its process lives
 * (heartbeat moving, undo refused without --force), and once the process is
 * SIGKILLed `imports list` shows it `interrupted` and `imports undo` removes
 * exactly what it added, every table of the org as before it. On both
 * engines. Then the rules for runs whose process cannot be checked: silent
 * longer than STALE_MS is interrupted, a fresh heartbeat is not.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0001');

type RunJson = { id: string; kind: string; status: string; detail: string | null };

function asLine(event: NewEvent): string {
  return JSON.stringify({
    ...(JSON.parse(event.doc) as Record<string, unknown>),
    ...(event.raw === null ? {} : { raw: JSON.parse(event.raw) as unknown }),
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function runs(url: string): RunJson[] {
  const listed = cli(url, 'imports', 'list', '--org', ORG, '--json');
  assert.equal(listed.code, 0, listed.stderr);
  return (listed.json as { runs: RunJson[] }).runs;
}

function liveness(engine: string, open: () => Promise<{ url: string; drop: () => Promise<void> }>) {
  describe(`a killed import's run (${engine})`, () => {
    let database: { url: string; drop: () => Promise<void> } | undefined;
    let child: ChildProcess | undefined;
    after(async () => {
      child?.kill('SIGKILL');
      await database?.drop();
    });

    test('shows running while its process lives, interrupted once SIGKILLed with the events it added counted, and undo restores the org', async () => {
      database = await open();
      const url = database.url;
      assert.equal(cli(url, 'orgs', 'create', '--name', 'Killed', '--id', ORG).code, 0);
      const events = generateEvents(ORG, 12_000, { seed: 23, days: 20 });
      const file = path.join(os.tmpdir(), `liveness-${process.pid}-${engine}.ndjson`);
      fs.writeFileSync(file, events.slice(0, 2000).map(asLine).join('\n'));
      const first = cli(url, 'import', '--org', ORG, file, '--json');
      fs.rmSync(file);
      assert.equal(first.code, 0, first.stderr);

      const store = await openStore(url);
      try {
        const before = await store.dumpOrg(ORG);
        // The second import reads stdin: it commits what it was given, then
        // waits for more, alive, until killed.
        child = spawn(process.execPath, [CLI_BIN, 'import', '--org', ORG, '-', '--database', url], {
          cwd: ROOT,
          env: { ...process.env, NODE_ENV: 'test' },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        const exited = new Promise<NodeJS.Signals | null>((resolve) =>
          child!.once('exit', (_code, signal) => resolve(signal)),
        );
        child.stdin!.write(`${events.slice(1000).map(asLine).join('\n')}\n`);
        await waitFor(
          'the stdin import to commit batches',
          async () => (await store.countEvents({ orgId: ORG })) >= 2000 + 4000,
        );
        const live = runs(url)[0]!;
        assert.equal(live.status, 'running');
        const started = (await store.getIngestRun(live.id))!;
        assert.equal(started.host, os.hostname());
        assert.equal(started.pid, child.pid);

        const refused = cli(url, 'imports', 'undo', live.id);
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /is still running \(process \d+ on .*--force/);

        await waitFor(
          'a heartbeat',
          async () => (await store.getIngestRun(live.id))!.heartbeat! > started.heartbeat!,
          HEARTBEAT_MS * 3,
        );
        assert.equal(runs(url)[0]!.status, 'running', 'still running: its process lives');

        child.kill('SIGKILL');
        assert.equal(await exited, 'SIGKILL');
        const added = (await store.countEvents({ orgId: ORG })) - 2000;
        assert.ok(added >= 4000, `${added} added before the kill`);

        const table = cli(url, 'imports', 'list', '--org', ORG);
        assert.equal(table.code, 0, table.stderr);
        assert.match(table.stdout, new RegExp(`${live.id}\\s+import\\s+interrupted`));
        assert.match(
          table.stdout,
          new RegExp(
            `Run ${live.id} interrupted: process ${child.pid} on .* ended without recording its end`,
          ),
        );
        const settled = (await store.getIngestRun(live.id))!;
        assert.equal(settled.status, 'interrupted', 'recorded, not only shown');
        assert.equal(settled.finished, settled.heartbeat);
        // Its inserted count is recounted from the events it left: the last
        // heartbeat's lagged what had committed (0 shown for 200,000 stored).
        assert.equal(settled.inserted, added);

        const undo = cli(url, 'imports', 'undo', live.id, '--json');
        assert.equal(undo.code, 0, undo.stderr);
        assert.equal((undo.json as { deleted: number }).deleted, added);
        const restored = await store.dumpOrg(ORG);
        const { ingest_runs: ledgerAfter, ...tablesAfter } = restored;
        const { ingest_runs: ledgerBefore, ...tablesBefore } = before;
        assert.deepEqual(tablesAfter, tablesBefore, 'every table of the org as before the import');
        assert.deepEqual(
          ledgerAfter!.filter((row) => row.id !== live.id),
          ledgerBefore,
        );
        assert.equal(runs(url)[0]!.status, 'undone');
      } finally {
        await store.close();
      }
    });
  });
}

liveness('SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-liveness-'));
  return Promise.resolve({
    url: `file:${path.join(dir, 'liveness.db')}`,
    drop: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
  });
});
liveness('PostgreSQL', createTestDatabase);

describe('runs whose process cannot be checked', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-liveness-stale-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a run silent longer than STALE_MS is interrupted; a fresh heartbeat or a live process is not', async () => {
    const store = await openStore(path.join(dir, 'stale.db'));
    try {
      await store.createOrg({ id: ORG, name: 'Stale', created: 0 });
      const now = Date.now();
      const elsewhere = (heartbeat: number | null): IngestRun =>
        runningRun({
          orgId: ORG,
          started: now - 3_600_000,
          inserted: 7,
          host: `not-${os.hostname()}`,
          pid: process.pid,
          heartbeat,
        });
      const silent = await store.createIngestRun(elsewhere(now - STALE_MS - 5000));
      const fresh = await store.createIngestRun(elsewhere(now - 1000));
      const legacy = await store.createIngestRun({
        ...elsewhere(null),
        host: null,
        pid: null,
      });
      const ours = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'x' });
      // The silent run's last heartbeat said 7; 3 of its events are stored.
      await store.insertEvents(ORG, generateEvents(ORG, 3, { seed: 5 }), { runId: silent.id });

      const settled = await settleIngestRuns(store, await store.listIngestRuns(ORG));
      const status = new Map(settled.map((run) => [run.id, run.status]));
      assert.equal(status.get(silent.id), 'interrupted');
      assert.equal(status.get(legacy.id), 'interrupted', 'recorded before heartbeats, long ago');
      assert.equal(status.get(fresh.id), 'running');
      assert.equal(status.get(ours.id), 'running', 'this very process');
      const stored = (await store.getIngestRun(silent.id))!;
      assert.equal(stored.status, 'interrupted');
      assert.equal(stored.inserted, 3, 'recounted from the events it left');
      assert.match(stored.detail!, /stopped answering \(no heartbeat for \d+ s\)/);

      await endIngestRun(store, ours.id, { status: 'finished' });
      assert.equal((await store.getIngestRun(ours.id))!.status, 'finished');
    } finally {
      await store.close();
    }
  });
});

test('PostgreSQL read-only (a standby): imports list shows a silent run as interrupted, says it was not recorded, and exits 0', async () => {
  const database = await createTestDatabase();
  try {
    assert.equal(cli(database.url, 'orgs', 'create', '--name', 'Standby', '--id', ORG).code, 0);
    const store = await openStore(database.url);
    const run = await store.createIngestRun(
      runningRun({
        orgId: ORG,
        host: `not-${os.hostname()}`,
        pid: process.pid,
        heartbeat: Date.now() - STALE_MS - 5000,
      }),
    );
    await store.close();
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await admin.end();

    const listed = cli(database.url, 'imports', 'list', '--org', ORG, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const document = listed.json as {
      runs: RunJson[];
      notRecorded?: { runId: string; reason: string }[];
    };
    assert.deepEqual(
      document.runs.map((r) => [r.id, r.status]),
      [[run.id, 'interrupted']],
    );
    assert.deepEqual(document.notRecorded, [
      {
        runId: run.id,
        reason: 'The database is unavailable: cannot execute UPDATE in a read-only transaction',
      },
    ]);
    assert.match(
      listed.stderr,
      new RegExp(`^Run ${run.id} is shown interrupted, but that could not be recorded`),
    );
  } finally {
    await database.drop();
  }
});
