import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { newObjectId } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import { runningRun } from '@/tests/helpers/ingest-runs';
import { emptyWal, fillDisk, mountSmallDisk, type SmallDisk } from '@/tests/helpers/small-disk';
import { generateEvents } from '@/tests/helpers/test-events';
import { cli, cliWith, CLI_BIN, ROOT } from './run-cli';

/**
 * Writing fails midway: the disk fills up (a tmpfs of a few megabytes,
 * where root may mount one) or a file reaches the process's size limit
 * (RLIMIT_FSIZE, anywhere). An import keeps whole batches only and says
 * what it stored under which run, the store's counters exact and the run
 * undone as any other; a backup or an export says which file could not be
 * written and leaves none of it behind.
 */

const ORG = '6b1c2d3e4f5a6b7c8d9e0f01';
const EVENTS = 3000;

type ImportJson = {
  runId: string;
  read: number;
  inserted: number;
  duplicates: number;
  invalid: number;
  notImported?: number;
  runNotRecorded?: string;
  error?: { code: string; message: string; exitCode: number };
};
type RunJson = { id: string; status: string; inserted: number };

describe('CLI: writing fails midway (a full disk, a file-size limit)', () => {
  let dir: string;
  let source: string;
  let file: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-full-disk-'));
    source = path.join(dir, 'source.db');
    const seeded = cli(
      source,
      ...['seed', '--org', ORG, '--events', String(EVENTS), '--create-org', '--name', 'Full'],
      ...['--from', '2026-01-01', '--to', '2026-02-01'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
    file = path.join(dir, 'events.ndjson');
    const exported = cli(source, 'events', 'export', '--org', ORG, '--out', file, '--include-raw');
    assert.equal(exported.code, 0, exported.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function smallDisk(t: TestContext, megabytes: number): SmallDisk | undefined {
    const disk = mountSmallDisk(megabytes);
    if (typeof disk === 'string') {
      t.skip(disk);
      return undefined;
    }
    t.after(() => disk.unmount());
    return disk;
  }

  test('a backup onto a full disk or past a file-size limit names its file and leaves nothing', (t) => {
    const limited = path.join(dir, 'limited-copy.db');
    const refused = cliWith({ fileSizeLimit: 1_000_000 }, source, 'backup', '--out', limited);
    assert.equal(refused.code, 1);
    // It was "Error: [object Object]": the copying thread's error lost its message.
    assert.equal(
      refused.stderr.trim(),
      `Error: Backup to ${limited} failed (disk I/O error): nothing was written`,
    );
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('copy')),
      [],
    );

    const disk = smallDisk(t, 1);
    if (!disk) return;
    const full = path.join(disk.dir, 'copy.db');
    const json = cli(source, 'backup', '--out', full, '--json');
    assert.equal(json.code, 1);
    assert.deepEqual(json.json, {
      error: {
        code: 'failed',
        message: `Cannot write ${full}: no space left on its disk (database or disk is full); nothing was written`,
        exitCode: 1,
      },
    });
    assert.deepEqual(fs.readdirSync(disk.dir), []);
  });

  test('an export onto a full disk or past a file-size limit names its file and leaves nothing', (t) => {
    const limited = path.join(dir, 'limited.ndjson');
    const refused = cliWith(
      { fileSizeLimit: 100_000 },
      source,
      ...['events', 'export', '--org', ORG, '--out', limited],
    );
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(
        `^Error: Cannot write ${limited} \\(EFBIG: file too large, write\\): nothing was written$`,
        'm',
      ),
    );
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('limited.ndjson')),
      [],
    );
    // A device written in place: no file to leave, the name said all the same.
    const device = cli(source, 'events', 'export', '--org', ORG, '--out', '/dev/full');
    assert.equal(device.code, 1);
    assert.match(
      device.stderr,
      /^Error: Cannot write \/dev\/full \(ENOSPC: no space left on device, write\)$/m,
    );

    const disk = smallDisk(t, 1);
    if (!disk) return;
    const full = path.join(disk.dir, 'events.ndjson');
    const filled = cli(source, 'events', 'export', '--org', ORG, '--out', full, '--include-raw');
    assert.equal(filled.code, 1);
    assert.match(
      filled.stderr,
      new RegExp(
        `^Error: Cannot write ${full} \\(ENOSPC: no space left on device, write\\): nothing was written$`,
        'm',
      ),
    );
    assert.deepEqual(fs.readdirSync(disk.dir), []);
  });

  async function dump(db: string) {
    const store = await openStore(`file:${db}`);
    try {
      const { ingest_runs: _runs, ...tables } = await store.dumpOrg(ORG);
      return { tables, stored: await store.countEvents({ orgId: ORG }) };
    } finally {
      await store.close();
    }
  }

  /**
   * The import `importing` (which must fail midway) printed its summary with
   * the run; the store holds exactly the batches it says, the ledger lists
   * the run, undoing it leaves every table of the org as before, and the
   * import run again stores the whole file.
   */
  async function failedMidway(
    db: string,
    importing: () => ReturnType<typeof cli>,
    expected: { error: RegExp; afterwards?: () => void },
  ) {
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Target', '--id', ORG).code, 0);
    const before = await dump(db);
    const failed = importing();
    assert.equal(failed.code, 1, failed.stderr);
    const summary = failed.json as ImportJson;
    assert.match(summary.error!.message, expected.error);
    assert.match(summary.runId, /^[0-9a-f]{24}$/, 'the run is named');
    assert.ok(
      summary.inserted > 0 && summary.inserted < EVENTS,
      `${summary.inserted} inserted: the import did not fail midway`,
    );
    // The batch that failed was read: `read` counts its events, and
    // notImported says they are not stored, as a break in the file's does.
    assert.ok(
      (summary.notImported ?? 0) > 0,
      `notImported ${summary.notImported}: the failed batch's events are not counted as read`,
    );
    assert.equal(
      summary.read,
      summary.inserted + summary.duplicates + summary.invalid + summary.notImported!,
    );
    assert.ok(summary.read <= EVENTS, `${summary.read} read of ${EVENTS}`);
    assert.match(
      summary.error!.message,
      new RegExp(
        `Batches committed before this point stay imported \\(${summary.inserted.toLocaleString('en-US')} events\\); the ${summary.notImported!.toLocaleString('en-US')} events read after the last of them are not; re-run the import`,
      ),
    );
    expected.afterwards?.();

    assert.equal((await dump(db)).stored, summary.inserted, 'the store holds what it said');
    const listed = cli(db, 'imports', 'list', '--org', ORG, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const [run] = (listed.json as { runs: RunJson[] }).runs;
    assert.deepEqual(
      { id: run!.id, status: run!.status, inserted: run!.inserted },
      {
        id: summary.runId,
        // A run that could not be recorded failed (the disk full) is
        // settled as interrupted by this reader, once there is room.
        status: summary.runNotRecorded === undefined ? 'failed' : 'interrupted',
        inserted: summary.inserted,
      },
    );
    const undone = cli(db, 'imports', 'undo', summary.runId, '--json');
    assert.equal(undone.code, 0, undone.stderr);
    assert.equal((undone.json as { deleted: number }).deleted, summary.inserted);
    assert.deepEqual(await dump(db), before, 'every table of the org as before the import');

    const again = cli(db, 'import', '--org', ORG, file, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.equal((again.json as ImportJson).inserted, EVENTS);
    return summary;
  }

  test('an import past a file-size limit prints its summary and run; the run is listed with what it stored, and can be undone and run again', async () => {
    const db = path.join(dir, 'limited.db');
    await failedMidway(
      db,
      () =>
        cliWith(
          { fileSizeLimit: 3_000_000 },
          db,
          ...['import', '--org', ORG, file, '--batch-size', '500', '--json'],
        ),
      { error: /^The database is unavailable: disk I\/O error\. / },
    );
  });

  test('an import onto a disk that fills up says so with its summary and run; with space again the run is listed, and can be undone and run again', async (t) => {
    const disk = smallDisk(t, 4);
    if (!disk) return;
    const db = path.join(disk.dir, 'full.db');
    await failedMidway(
      db,
      () => cli(db, ...['import', '--org', ORG, file, '--batch-size', '500', '--json']),
      {
        error: /^The database cannot write: its disk is full \(database or disk is full\)\. /,
        afterwards: () => disk.grow(64),
      },
    );
  });

  test('imports list on a full disk lists a killed run as interrupted though that cannot be recorded, and the next list with room records it', async (t) => {
    const disk = smallDisk(t, 4);
    if (!disk) return;
    const db = path.join(disk.dir, 'ledger.db');
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Target', '--id', ORG).code, 0);
    // A run whose process is gone (killed as the disk filled, its end never
    // recorded), with the events it had committed.
    const runId = newObjectId();
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const store = await openStore(`file:${db}`);
    try {
      await store.createIngestRun(
        runningRun({
          id: runId,
          orgId: ORG,
          source: '/data/events.ndjson',
          started: Date.now() - 60_000,
          host: os.hostname(),
          pid: dead,
          heartbeat: Date.now() - 5_000,
        }),
      );
      await store.insertEvents(ORG, generateEvents(ORG, 50, { seed: 6 }), { runId });
    } finally {
      await store.close();
    }
    // The database held open, as by the server, its WAL emptied: any write
    // now needs room the disk no longer has.
    const server = new BetterSqlite3(db);
    try {
      server.pragma('wal_checkpoint(TRUNCATE)');
      const filler = path.join(disk.dir, 'filler');
      fillDisk(filler);

      const listed = cli(db, 'imports', 'list', '--org', ORG, '--json');
      assert.equal(listed.code, 0, listed.stderr);
      const document = listed.json as {
        runs: (RunJson & { detail: string })[];
        notRecorded?: { runId: string; reason: string }[];
      };
      assert.deepEqual(
        document.runs.map((run) => [run.id, run.status, run.inserted]),
        [[runId, 'interrupted', 50]],
      );
      assert.match(
        document.runs[0]!.detail,
        new RegExp(`process ${dead} on .* ended without recording its end`),
      );
      assert.deepEqual(document.notRecorded, [
        {
          runId,
          reason: 'The database cannot write: its disk is full (database or disk is full)',
        },
      ]);
      const table = cli(db, 'imports', 'list', '--org', ORG);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, new RegExp(`${runId}\\s+import\\s+interrupted`));
      assert.match(
        table.stdout,
        new RegExp(
          `Run ${runId} interrupted: process ${dead} on .*'imports undo ${runId}' removes`,
        ),
      );
      assert.equal(
        table.stderr,
        `Run ${runId} is shown interrupted, but that could not be recorded (The database cannot write: its disk is full (database or disk is full)): the next 'imports list' or 'imports undo' that can write records it.\n`,
      );
      const ledger = () =>
        server.prepare('SELECT status, inserted FROM ingest_runs WHERE id = ?').get(runId);
      assert.deepEqual(ledger(), { status: 'running', inserted: 0 }, 'not recorded');

      // Room again: the next list records what it shows.
      fs.rmSync(filler);
      const again = cli(db, 'imports', 'list', '--org', ORG, '--json');
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stderr, '');
      assert.equal((again.json as { notRecorded?: unknown }).notRecorded, undefined);
      assert.deepEqual(ledger(), { status: 'interrupted', inserted: 50 });
    } finally {
      // Before the disk is unmounted (an open file keeps it busy).
      server.close();
    }
  });

  test('an import whose batches all committed but whose end cannot be recorded (the disk full) prints its summary and run, and the run is listed interrupted with what it stored', async (t) => {
    const disk = smallDisk(t, 16);
    if (!disk) return;
    const db = path.join(disk.dir, 'ended.db');
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Target', '--id', ORG).code, 0);
    // The file through a pipe, held open once every event is in it: the
    // import has committed its last batch and waits for the end of the file
    // while the disk fills up.
    const pipe = path.join(dir, 'events.pipe');
    assert.equal(spawnSync('mkfifo', [pipe]).status, 0);
    t.after(() => fs.rmSync(pipe, { force: true }));
    const child = spawn(
      process.execPath,
      [CLI_BIN, 'import', '--org', ORG, pipe, '--batch-size', '500', '--json', '--database', db],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    t.after(() => child.kill('SIGKILL'));

    const writer = await fs.promises.open(pipe, 'w');
    const reader = new BetterSqlite3(db, { readonly: true });
    const filler = path.join(disk.dir, 'filler');
    try {
      await writer.writeFile(fs.readFileSync(file));
      const stored = () =>
        (reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
      const deadline = Date.now() + 60_000;
      while (stored() < EVENTS) {
        assert.ok(Date.now() < deadline, `${stored()} events stored after a minute`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The write-ahead log emptied (emptyWal): the run's end needs room the disk no longer has.
      // A write of the import between the two (its heartbeat) would leave
      // frames in the log that a checkpoint then lets the run's end reuse,
      // as a loaded CI machine once saw: emptied and filled again until none came.
      for (let attempt = 1; ; attempt++) {
        emptyWal(db);
        fillDisk(filler);
        if (fs.statSync(`${db}-wal`).size === 0) break;
        assert.ok(attempt < 5, 'the import kept writing to its log while the disk was filled');
        fs.rmSync(filler);
      }
    } finally {
      await writer.close();
      reader.close();
    }
    const code = await exited;

    const full = 'The database cannot write: its disk is full (database or disk is full)';
    // Before, exit 1 and only "Error: The database cannot write: its disk is
    // full (database or disk is full)": no summary, no run id.
    assert.equal(code, 0, stderr);
    const summary = JSON.parse(stdout) as ImportJson;
    assert.match(summary.runId, /^[0-9a-f]{24}$/);
    assert.equal(summary.inserted, EVENTS);
    assert.equal(summary.error, undefined);
    assert.equal(summary.runNotRecorded, full);
    assert.match(
      stderr,
      new RegExp(
        `^Warning: run ${summary.runId} could not be recorded as finished \\(${full.replace(/[()]/g, '\\$&')}\\): 'imports list' shows it as interrupted, with the 3,000 events it inserted, and records it so once the database can write again\\.$`,
        'm',
      ),
    );

    // The disk still full: listed, interrupted, with every event it stored.
    const listed = cli(db, 'imports', 'list', '--org', ORG, '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const [run] = (listed.json as { runs: RunJson[] }).runs;
    assert.deepEqual(
      { id: run!.id, status: run!.status, inserted: run!.inserted },
      { id: summary.runId, status: 'interrupted', inserted: EVENTS },
    );
    // Room again: recorded so, and undone as any other.
    fs.rmSync(filler);
    const again = cli(db, 'imports', 'list', '--org', ORG, '--json');
    assert.equal(again.stderr, '');
    assert.equal((again.json as { notRecorded?: unknown }).notRecorded, undefined);
    const undone = cli(db, 'imports', 'undo', summary.runId, '--json');
    assert.equal(undone.code, 0, undone.stderr);
    assert.equal((undone.json as { deleted: number }).deleted, EVENTS);
  });
});
