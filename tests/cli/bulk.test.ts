import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { endIngestRun, startIngestRun } from '@/lib/ingest/ingest-runs';
import { generateEventBatches, generateEvents } from '@/lib/ingest/seed';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { cli, CLI_BIN, cliFrom, cliWithInput, ROOT } from './run-cli';
import { runningRun } from '@/tests/helpers/ingest-runs';

const ORG = '6b1c2d3e4f5a6b7c8d9e0b01';

type Json = Record<string, unknown>;

/** A mirror run from `source` that ended failed saying `detail`, as a refused mirror leaves the ledger. */
async function failedMirrorRun(store: EventStore, orgId: string, source: string, detail: string) {
  const run = await startIngestRun(store, { orgId, kind: 'mirror', source });
  await endIngestRun(store, run.id, { status: 'failed', detail });
  return run;
}

/** seed and import, as the admin runs them: from anywhere, their runs recorded truthfully. */
describe('CLI: seed and import', () => {
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-bulk-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('seed and import run from a directory outside the project', () => {
    const db = path.join(dir, 'elsewhere.db');
    const elsewhere = fs.mkdtempSync(path.join(dir, 'cwd-'));
    const seeded = cliFrom(
      elsewhere,
      db,
      ...['seed', '--org', ORG, '--events', '10', '--create-org', '--name', 'Elsewhere'],
      ...['--from', '2026-01-01', '--to', '2026-01-02', '--json'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
    assert.equal((seeded.json as Json).inserted, 10);

    const exported = path.join(elsewhere, 'all.ndjson');
    assert.equal(cli(db, 'events', 'export', '--org', ORG, '--out', exported).code, 0);
    const other = '6b1c2d3e4f5a6b7c8d9e0b02';
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Copy', '--id', other).code, 0);
    const imported = cliFrom(elsewhere, db, 'import', '--org', other, 'all.ndjson', '--rehome');
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /10 read, 10 inserted/);
    // The ledger names the file by its absolute path, not as typed.
    const listed = cli(db, 'imports', 'list', '--org', other, '--json');
    assert.equal(
      (listed.json as { runs: Json[] }).runs[0]?.source,
      path.join(fs.realpathSync(elsewhere), 'all.ndjson'),
    );
  });

  test('a bad option value records no import run; a load that throws ends its run as failed', () => {
    const db = path.join(dir, 'runs.db');
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Runs', '--id', ORG).code, 0);
    const events = [
      ...generateEvents({
        orgId: ORG,
        count: 30,
        seed: 4,
        from: Date.UTC(2026, 0, 1),
        to: Date.UTC(2026, 0, 2),
      }),
    ];
    const file = path.join(dir, 'runs.ndjson');
    fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n'));
    const runs = () => {
      const listed = cli(db, 'imports', 'list', '--org', ORG, '--json');
      assert.equal(listed.code, 0, listed.stderr);
      return (listed.json as { runs: Json[] }).runs;
    };

    for (const bad of [
      ['--batch-size', '0'],
      ['--max-record-bytes', '1023'],
      // Longer than Node can hold as one text: refused, not a RangeError's stack trace.
      ['--max-record-bytes', String((256 << 20) + 1)],
    ]) {
      const refused = cli(db, 'import', '--org', ORG, file, ...bad);
      assert.equal(refused.code, 64, refused.stderr);
      assert.match(refused.stderr, new RegExp(`^Error: ${bad[0]} must be a whole number`));
    }
    assert.deepEqual(runs(), []);
    // Nor does seed's --create-org create anything before its options are checked.
    const unseeded = '6b1c2d3e4f5a6b7c8d9e0b03';
    const seedArgs = ['seed', '--org', unseeded, '--events', '10', '--create-org', '--name', 'N'];
    assert.equal(cli(db, ...seedArgs, '--batch-size', '0').code, 64);
    const orgs = cli(db, 'orgs', 'list', '--json').json as Json[];
    assert.deepEqual(
      orgs.map((org) => org.id),
      [ORG],
    );

    // The second batch's insert fails (a trigger refuses one of its events).
    const sqlite = new Database(db);
    sqlite.exec(`CREATE TRIGGER refuse BEFORE INSERT ON events WHEN NEW.id = '${events[14]!.id}'
      BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
    sqlite.close();
    const failed = cli(db, 'import', '--org', ORG, file, '--batch-size', '10');
    assert.equal(failed.code, 1, failed.stdout);
    assert.match(failed.stderr, /refused by the test/);
    const [run] = runs();
    assert.deepEqual(
      [run?.status, run?.inserted, run?.finished === null],
      ['failed', 10, false],
      JSON.stringify(run),
    );
    assert.match(String(run?.detail), /refused by the test/);
  });

  /** A new database `name`.db holding org `org`, and `count` events of `eventsOrg` (default `org`) as NDJSON. */
  function orgAndEvents(name: string, org: string, count: number, eventsOrg = org) {
    const db = path.join(dir, `${name}.db`);
    assert.equal(cli(db, 'orgs', 'create', '--name', name, '--id', org).code, 0);
    const text = [...generateEvents({ orgId: eventsOrg, count, seed: name })]
      .map((event) => JSON.stringify(event))
      .join('\n');
    return { db, text };
  }

  test('a file the user may not read is refused before an import run is recorded, as a missing one is', () => {
    // Root reads any file: the CLI then runs as nobody.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    // Not under `dir`, which only its owner may enter.
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-unreadable-'));
    after(() => fs.rmSync(home, { recursive: true, force: true }));
    fs.chmodSync(home, 0o777);
    const db = path.join(home, 'unreadable.db');
    const run = (...args: string[]) => {
      const result = spawnSync(process.execPath, [CLI_BIN, ...args, '--database', db], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NODE_ENV: 'test' },
        ...asUser,
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    assert.equal(run('orgs', 'create', '--name', 'Unreadable', '--id', ORG).code, 0);
    const file = path.join(home, 'events.ndjson');
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o000);

    const refused = run('import', '--org', ORG, file, '--json');
    assert.equal(refused.code, 1, refused.stderr);
    assert.deepEqual(JSON.parse(refused.stdout), {
      error: {
        code: 'failed',
        message: `Cannot read ${file}: permission denied`,
        exitCode: 1,
      },
    });
    const listed = run('imports', 'list', '--org', ORG, '--json');
    assert.deepEqual((JSON.parse(listed.stdout) as { runs: Json[] }).runs, []);
  });

  /**
   * Runs `import --org org - --batch-size 100` (and `options`) with `input` on
   * its stdin, and sends it SIGINT once the org holds `stored` events. Its
   * input stays open: the import cannot end by itself, only by the signal.
   */
  async function importStoppedOnceStored(
    db: string,
    org: string,
    input: string | Buffer,
    stored: number,
    ...options: string[]
  ) {
    const child = spawn(
      process.execPath,
      [CLI_BIN, 'import', '--org', org, '-', '--batch-size', '100', ...options, '--database', db],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.stdin.write(input);
    const store = await openStore(db);
    try {
      const deadline = Date.now() + 60_000;
      while ((await store.countEvents({ orgId: org })) < stored) {
        assert.ok(Date.now() < deadline, `two batches were not committed: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await store.close();
    }
    child.kill('SIGINT');
    const code = await exited;
    child.stdin.destroy();
    return { code, stdout, stderr };
  }

  test('an import stopped with SIGINT keeps its committed batches, records the run as interrupted, prints its summary and exits 130; run again, it skips them', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0a';
    const { db, text } = orgAndEvents('stopped', org, 300);
    const lines = text.split('\n');
    const { code, stdout, stderr } = await importStoppedOnceStored(
      db,
      org,
      `${lines.slice(0, 250).join('\n')}\n`,
      200,
    );
    assert.equal(code, 130, stderr);
    assert.match(stderr, /Stopping after the batches being written/);
    assert.match(
      stdout,
      new RegExp(
        `^Stopped importing - into ${org} on request after [\\d.]+ s: 200 inserted, 0 already present, 0 invalid, up to byte ${Buffer.byteLength(`${lines.slice(0, 200).join('\n')}\n`).toLocaleString('en-US')} of the file\\. Run [0-9a-f]{24}: re-running the import skips what is already there; 'imports undo [0-9a-f]{24}' removes what it added\\.$`,
        'm',
      ),
    );
    const runs = (cli(db, 'imports', 'list', '--org', org, '--json').json as { runs: Json[] }).runs;
    assert.deepEqual(
      runs.map((run) => [run.status, run.inserted, run.detail]),
      [
        [
          'interrupted',
          200,
          'stopped on request after 200 inserted; re-running the import skips what is already there',
        ],
      ],
    );
    const again = cliWithInput(db, text, 'import', '--org', org, '-', '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual([(again.json as Json).inserted, (again.json as Json).duplicates], [100, 200]);
  });

  test('an import stopped with SIGINT says where it stopped: read counts the records up to the end of its last stored batch, and bytes is the offset just past the last of them, from which the rest of the file imports', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0d';
    const { db, text } = orgAndEvents('stopped-where', org, 300);
    // Line 230 is invalid: read after the last stored batch, it is not accounted for.
    const lines = text.split('\n').map((line, i) => (i === 229 ? '{"id": "nope"}' : line));
    const { code, stdout, stderr } = await importStoppedOnceStored(
      db,
      org,
      `${lines.slice(0, 250).join('\n')}\n`,
      200,
      '--json',
    );
    assert.equal(code, 130, stderr);
    const summary = JSON.parse(stdout) as Json;
    const through = Buffer.byteLength(`${lines.slice(0, 200).join('\n')}\n`);
    assert.deepEqual(
      [summary.read, summary.inserted, summary.invalid, summary.bytes, summary.issues],
      [200, 200, 0, through, []],
    );
    // The rest of the file, from that offset (`tail -c +${through + 1}`), imports what was left.
    const rest = Buffer.from(`${lines.join('\n')}\n`)
      .subarray(through)
      .toString();
    const again = cliWithInput(db, rest, 'import', '--org', org, '-', '--json');
    assert.equal(again.code, 2, again.stderr);
    assert.deepEqual([(again.json as Json).inserted, (again.json as Json).duplicates], [99, 0]);
  });

  test("a gzip archive's import stopped with SIGINT says the archive's bytes read and where its text stands (just past the last batch stored), as does --json (decompressedBytes)", async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0c';
    const { db, text } = orgAndEvents('stopped-gzip', org, 600);
    const lines = text.split('\n');
    /** Imports 250 lines flushed through gzip, the archive left open, and stops it with SIGINT once two batches are in. */
    const stoppedImport = async (from: number, ...options: string[]) => {
      const head = `${lines.slice(from, from + 250).join('\n')}\n`;
      const archive = await new Promise<Buffer>((resolve) => {
        const gzip = zlib.createGzip();
        const parts: Buffer[] = [];
        gzip.on('data', (part: Buffer) => parts.push(part));
        gzip.write(head);
        gzip.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(parts)));
      });
      const { code, stdout, stderr } = await importStoppedOnceStored(
        db,
        org,
        archive,
        from + 200,
        ...options,
      );
      assert.equal(code, 130, stderr);
      const twoBatches = Buffer.byteLength(`${lines.slice(from, from + 200).join('\n')}\n`);
      return { stdout, archive, twoBatches, all: Buffer.byteLength(head) };
    };
    const json = await stoppedImport(0, '--json');
    const summary = JSON.parse(json.stdout) as Json;
    assert.equal(summary.stopped, true);
    // Every byte of the archive written was read; its text stands just past
    // the two batches' lines (the rest was read, not stored).
    assert.equal(summary.bytes, json.archive.length);
    assert.equal(summary.decompressedBytes, json.twoBatches);
    const said = await stoppedImport(250);
    const sizes =
      / invalid, up to byte ([\d,]+) of its decompressed text \(([\d.]+) KB of the gzip archive read\)\. Run /.exec(
        said.stdout,
      );
    assert.ok(sizes, said.stdout);
    // Its three batches were stored (the last once the archive paused): all its text.
    assert.equal(sizes[1], said.all.toLocaleString('en-US'));
    assert.equal(sizes[2], (said.archive.length / 1024).toFixed(1));
  });

  test('a saved page of a longer listing imports with a warning on stderr that the file holds only part of it, and its warnings in --json', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0d';
    const { db, text } = orgAndEvents('one-page', org, 3);
    const file = path.join(dir, 'page-1.json');
    const page = { links: [], results: text.split('\n').map((line) => JSON.parse(line) as Json) };
    fs.writeFileSync(file, JSON.stringify({ ...page, totalCount: 1250 }, null, 2));
    const warning =
      'The file holds one page of a longer listing: 3 of its 1,250 events ("totalCount": 1250). ' +
      "Import its other pages too (pageNum=2, 3, …; itemsPerPage up to 500), or copy the organization whole with 'mirror'.";
    const imported = cli(db, 'import', '--org', org, file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /3 read, 3 inserted/);
    const warnings = (stderr: string) => stderr.split('\n').filter((line) => /^Warning/.test(line));
    assert.deepEqual(warnings(imported.stderr), [`Warning: ${warning}`]);
    const again = cli(db, 'import', '--org', org, file, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual((again.json as Json).warnings, [warning]);
    // A page holding its whole listing says nothing.
    fs.writeFileSync(file, JSON.stringify({ ...page, totalCount: 3 }));
    const whole = cli(db, 'import', '--org', org, file, '--json');
    assert.deepEqual([warnings(whole.stderr), (whole.json as Json).warnings], [[], undefined]);
  });

  test('a gzip archive whose checksum fails keeps none of the events its import stored, and says so', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b03';
    const { db, text } = orgAndEvents('damaged', org, 3000);
    // Stored blocks, one byte changed: the text reaches the import altered,
    // and only the checksum at the end tells.
    const archive = zlib.gzipSync(text, { level: 0 });
    archive[archive.length - 2_000]! ^= 1;
    const file = path.join(dir, 'damaged.ndjson.gz');
    fs.writeFileSync(file, archive);
    const imported = cli(db, 'import', '--org', org, file, '--batch-size', '500', '--json');
    assert.equal(imported.code, 1, imported.stderr);
    const summary = imported.json as Json;
    assert.equal(summary.inserted, 0);
    // What was read adds up: none of it imported.
    assert.ok((summary.read as number) > 0);
    assert.equal(
      summary.read,
      (summary.duplicates as number) +
        (summary.invalid as number) +
        (summary.notImported as number),
    );
    const removed =
      /damaged .*incorrect data check.*nothing of this import is kept: the ([\d,]+) events it had stored were removed/.exec(
        String((summary.error as Json).message),
      );
    assert.ok(removed && Number(removed[1]!.replace(/,/g, '')) > 0, String(removed));
    const events = cli(db, 'events', 'list', '--org', org, '--json');
    assert.equal((events.json as Json).totalCount, 0);
    const runs = cli(db, 'imports', 'list', '--org', org, '--json');
    assert.equal((runs.json as { runs: Json[] }).runs[0]?.status, 'undone');
  });

  test("a gzip archive's summary says its size and the size of the text it holds, as does --json (decompressedBytes)", () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b05';
    const { db, text } = orgAndEvents('gzipped', org, 300);
    const archive = zlib.gzipSync(text);
    const file = path.join(dir, 'events.ndjson.gz');
    fs.writeFileSync(file, archive);
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    const imported = cli(db, 'import', '--org', org, file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(
      imported.stdout,
      new RegExp(
        `^Imported .*events\\.ndjson\\.gz \\(ndjson, ${kb(archive.length)} gzip-compressed, ${kb(Buffer.byteLength(text))} decompressed\\) into `,
      ),
    );
    const again = cli(db, 'import', '--org', org, file, '--json');
    const summary = again.json as Json;
    assert.deepEqual(
      [summary.bytes, summary.decompressedBytes, summary.duplicates],
      [archive.length, Buffer.byteLength(text), 300],
    );
    // A file not compressed says its size alone.
    const plain = path.join(dir, 'events.ndjson');
    fs.writeFileSync(plain, text);
    const uncompressed = cli(db, 'import', '--org', org, plain, '--json');
    assert.equal((uncompressed.json as Json).decompressedBytes, undefined);
  });

  test('import from a pipe shows its progress as bytes read, with no gauge', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b04';
    const { db, text } = orgAndEvents('piped', org, 50);
    const imported = cliWithInput(db, text, 'import', '--org', org, '-');
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /^Importing [\d.]+ (B|KB) read, [\d,]+ events, [\d.]+ s$/m);
    assert.doesNotMatch(imported.stderr, /%/);
  });

  test('a named pipe, <(…) and a device import as streams: a document in one that is no UTF-8 stops the import naming its byte (no line: a stream is not read again), and /dev/null imports nothing', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b10';
    const { db, text } = orgAndEvents('streams', org, 3);
    // An array of one record a line, its last record holding a field in Latin-1.
    const utf8 = `[\n${text.split('\n').join(',\n').replace(/}$/, ',"note":"caf#"}')}\n]\n`;
    const bytes = Buffer.from(utf8);
    const at = bytes.lastIndexOf('#');
    bytes[at] = 0xe9;
    const file = path.join(dir, 'latin1-array.json');
    fs.writeFileSync(file, bytes);
    const fifo = path.join(dir, 'streams.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    for (const [name, script] of [
      // The pipe is written to and closed before the import reads it again.
      ['a named pipe', 'cat "$2" > "$3" & exec node "$1" import --org "$4" "$3" --database "$5"'],
      ['<(…)', 'exec node "$1" import --org "$4" <(cat "$2") --database "$5"'],
    ] as const) {
      const imported = spawnSync(
        'bash',
        ['-c', script, 'import-stream', CLI_BIN, file, fifo, org, db],
        {
          cwd: ROOT,
          encoding: 'utf8',
          env: { ...process.env, NODE_ENV: 'test' },
          // Before, it waited for a writer of the pipe for ever.
          timeout: 60_000,
          killSignal: 'SIGKILL',
        },
      );
      assert.equal(imported.status, 1, `${name}: ${imported.stderr}`);
      assert.match(
        imported.stderr,
        new RegExp(
          `^Error: The file is not valid UTF-8: byte ${at + 1} begins a byte sequence`,
          'm',
        ),
        name,
      );
    }
    const nothing = cli(db, 'import', '--org', org, '/dev/null', '--json');
    assert.equal(nothing.code, 0, nothing.stderr);
    assert.deepEqual(
      ['format', 'read', 'inserted'].map((key) => (nothing.json as Json)[key]),
      ['ndjson', 0, 0],
    );
  });

  test('records refused for the same reason are shown three times, then counted once', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b05';
    const other = '6b1c2d3e4f5a6b7c8d9e0b06';
    const { db, text } = orgAndEvents('same-reason', org, 20, other);
    const imported = cliWithInput(db, text, 'import', '--org', org, '-');
    assert.equal(imported.code, 2, imported.stderr);
    assert.equal(imported.stderr.match(/^Skipped line \d+: orgId/gm)?.length, 3);
    assert.match(
      imported.stderr,
      new RegExp(
        `^\\.\\.\\. 20 records in all skipped for: orgId "${other}" is not the target organization ${org}`,
        'm',
      ),
    );
  });

  test("imports list without --org lists every organization's runs, naming the org", () => {
    const first = '6b1c2d3e4f5a6b7c8d9e0b07';
    const second = '6b1c2d3e4f5a6b7c8d9e0b08';
    const { db, text } = orgAndEvents('ledger', first, 5);
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Second', '--id', second).code, 0);
    assert.equal(cliWithInput(db, text, 'import', '--org', first, '-').code, 0);
    assert.equal(cliWithInput(db, text, 'import', '--org', second, '--rehome', '-').code, 0);
    const listed = cli(db, 'imports', 'list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      (listed.json as { runs: Json[] }).runs.map((run) => run.orgId),
      [second, first],
    );
    const table = cli(db, 'imports', 'list');
    assert.match(table.stdout, /^ID +ORG +KIND/m);
    assert.match(table.stdout, new RegExp(`${second} +import +finished`));
    assert.doesNotMatch(table.stderr, /--limit/);
    assert.equal((listed.json as { more: boolean }).more, false);
    // Fewer than there are: said, not left out silently.
    const newest = cli(db, 'imports', 'list', '--limit', '1', '--json');
    assert.deepEqual(
      [
        (newest.json as { runs: Json[] }).runs.map((run) => run.orgId),
        (newest.json as { more: boolean }).more,
      ],
      [[second], true],
    );
    assert.match(newest.stderr, /^The newest run; older ones are shown with --limit N\.$/m);
  });

  test('import of a directory is refused as one, before any run is recorded', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0b';
    const { db } = orgAndEvents('directory', org, 1);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-import-dir-'));
    try {
      const refused = cli(db, 'import', '--org', org, dir);
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(
        refused.stderr,
        new RegExp(
          `^Error: Cannot read ${dir}: it is a directory; import the files in it one by one$`,
          'm',
        ),
      );
      const listed = cli(db, 'imports', 'list', '--org', org, '--json');
      assert.deepEqual((listed.json as { runs: unknown[] }).runs, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("imports list: a failed run's detail ends its sentence with its own mark, never a full stop after it", async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0a';
    const { db } = orgAndEvents('failed-detail', org, 1);
    const store = await openStore(db);
    try {
      const asked = await failedMirrorRun(
        store,
        org,
        'a#b',
        'The source closed the connection: is it http:// rather than https://?',
      );
      const said = await failedMirrorRun(store, org, 'c#d', 'The key was refused');
      const table = cli(db, 'imports', 'list', '--org', org);
      assert.equal(table.code, 0, table.stderr);
      assert.match(
        table.stdout,
        new RegExp(`^Run ${asked.id} failed: .* rather than https://\\?$`, 'm'),
      );
      assert.match(
        table.stdout,
        new RegExp(`^Run ${said.id} failed: The key was refused\\.$`, 'm'),
      );
    } finally {
      await store.close();
    }
  });

  test('imports list --status lists the runs in the statuses asked for, a dead run as interrupted, --limit and more counting those only; an unknown status is a usage error naming the statuses', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0d';
    const { db } = orgAndEvents('status-filter', org, 1);
    const store = await openStore(db);
    try {
      const imported = await startIngestRun(store, { orgId: org, kind: 'import', source: 'f' });
      await endIngestRun(store, imported.id, {
        status: 'finished',
        inserted: 0,
        skipped: 0,
        rejected: 0,
      });
      // A mirror retried against a source that is down: refused runs, recorded failed.
      const refused: string[] = [];
      for (let i = 0; i < 3; i++) {
        refused.unshift((await failedMirrorRun(store, org, 's#o', 'The key was refused')).id);
      }
      // Still `running` in the ledger, its process silent for an hour: shown interrupted.
      const dead = await store.createIngestRun(
        runningRun({
          orgId: org,
          host: `not-${os.hostname()}`,
          pid: 1,
          heartbeat: Date.now() - 3_600_000,
        }),
      );
      // This process's own run, alive.
      const live = await startIngestRun(store, { orgId: org, kind: 'import', source: 'h' });
      try {
        const listed = (...status: string[]) => {
          const result = cli(db, 'imports', 'list', '--org', org, ...status, '--json');
          assert.equal(result.code, 0, result.stderr);
          const json = result.json as { runs: Json[]; more: boolean; statuses: string[] };
          return { ids: json.runs.map((run) => run.id), json, stderr: result.stderr };
        };
        // Asked before anything settled the dead run: found as it is shown.
        const interrupted = listed('--status', 'interrupted');
        assert.deepEqual(interrupted.ids, [dead.id]);
        assert.deepEqual(
          [interrupted.json.runs[0]!.status, interrupted.json.statuses],
          ['interrupted', ['interrupted']],
        );
        assert.deepEqual(listed('--status', 'running').ids, [live.id]);
        const finished = listed('--status', 'finished');
        assert.deepEqual([finished.ids, finished.json.more], [[imported.id], false]);
        const failed = listed('--status', 'failed', '--limit', '2');
        assert.deepEqual([failed.ids, failed.json.more], [refused.slice(0, 2), true]);
        assert.match(
          failed.stderr,
          /^The newest 2 failed runs; older ones are shown with --limit N\.$/m,
        );
        // Repeated or a comma list.
        assert.deepEqual(listed('--status', 'finished,interrupted', '--status', 'running').ids, [
          live.id,
          imported.id,
          dead.id,
        ]);
        assert.deepEqual(listed().ids, [live.id, ...refused, imported.id, dead.id]);

        const table = cli(db, 'imports', 'list', '--org', org, '--status', 'undone');
        assert.equal(table.code, 0, table.stderr);
        assert.equal(table.stdout, `No undone imports or mirror runs recorded for ${org}.\n`);

        const wrong = cli(db, 'imports', 'list', '--org', org, '--status', 'done');
        assert.equal(wrong.code, 64, wrong.stderr);
        assert.match(
          wrong.stderr,
          /--status must be one of running, finished, failed, interrupted, undone; got 'done'/,
        );
        assert.equal(wrong.stdout, '');
      } finally {
        await endIngestRun(store, live.id, { status: 'finished' });
      }
    } finally {
      await store.close();
    }
  });

  test('imports list: a run undone while it went on shows its counts and the events it left; the undo that removes them counts those to 100%', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b09';
    const { db } = orgAndEvents('undone-meanwhile', org, 1);
    const events = [
      ...generateEventBatches(
        {
          orgId: org,
          count: 30,
          seed: 'undone',
          from: Date.UTC(2026, 0, 1),
          to: Date.UTC(2026, 0, 2),
        },
        30,
      ),
    ].flat();
    // The import's side, in process: a batch, an undo forced meanwhile, two
    // more batches the import's process did not know were unwanted, its end.
    const store = await openStore(db);
    try {
      const run = await startIngestRun(store, { orgId: org, kind: 'import', source: 'pipe' });
      await store.insertEvents(org, events.slice(0, 10), { runId: run.id });
      const undo = cli(db, 'imports', 'undo', run.id, '--force');
      assert.equal(undo.code, 0, undo.stderr);
      await store.insertEvents(org, events.slice(10), { runId: run.id });
      await endIngestRun(store, run.id, {
        status: 'finished',
        inserted: 30,
        skipped: 0,
        rejected: 0,
      });
      const table = cli(db, 'imports', 'list', '--org', org);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, new RegExp(`^${run.id} +import +undone +\\S+ +\\S+ +30 `, 'm'));
      assert.match(
        table.stdout,
        new RegExp(
          `^Run ${run.id} undone, but 20 events of it remain: .*'imports undo ${run.id}' again removes it`,
          'm',
        ),
      );
      // The progress counts what remains of the run (20 events), and ends at 100%.
      const again = cli(db, 'imports', 'undo', run.id);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /^Undoing 100% 20 \/ 20 events/m);
      assert.doesNotMatch(cli(db, 'imports', 'list', '--org', org).stdout, /of it remain/);
    } finally {
      await store.close();
    }
  });

  /**
   * A database holding `org` with `count` events (January 2026) recorded as
   * one finished import run, and those events.
   */
  async function importedRun(name: string, org: string, count = 30_000) {
    const { db } = orgAndEvents(name, org, 1);
    const options = { orgId: org, count, seed: name, from: Date.UTC(2026, 0, 1) };
    const events = [
      ...generateEventBatches({ ...options, to: Date.UTC(2026, 1, 1) }, 10_000),
    ].flat();
    const store = await openStore(db);
    try {
      const run = await startIngestRun(store, { orgId: org, kind: 'import', source: 'f.ndjson' });
      for (let at = 0; at < count; at += 10_000) {
        await store.insertEvents(org, events.slice(at, at + 10_000), { runId: run.id });
      }
      await endIngestRun(store, run.id, {
        status: 'finished',
        inserted: count,
        skipped: 0,
        rejected: 0,
      });
      return { db, runId: run.id, events };
    } finally {
      await store.close();
    }
  }

  test('imports list: an undo stopped midway is said, with what is left of the run, until it is completed', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0a';
    const { db, runId, events } = await importedRun('undo-stopped', org, 30);
    const store = await openStore(db);
    try {
      // What an undo stopped after its first transaction leaves: its mark, and 12 events gone.
      await store.updateIngestRun(runId, { undoFrom: events[0]!.created, detail: 'undo started' });
      assert.equal(
        await store.deleteEvents(org, { ids: events.slice(0, 12).map((e) => e.id) }),
        12,
      );
      const table = cli(db, 'imports', 'list', '--org', org);
      assert.equal(table.code, 0, table.stderr);
      assert.match(
        table.stdout,
        new RegExp(
          `^Run ${runId}: an undo has not finished \\(stopped midway, or still running\\): 18 events of it remain\\. 'imports undo ${runId}' again completes it\\.$`,
          'm',
        ),
      );
      assert.equal(cli(db, 'imports', 'undo', runId).code, 0);
      assert.doesNotMatch(cli(db, 'imports', 'list', '--org', org).stdout, /has not finished/);
    } finally {
      await store.close();
    }
  });

  /**
   * Runs the CLI with `args` and sends it SIGINT at its first progress line
   * (off a terminal, a line per tenth: the first comes after the first batch).
   */
  async function interruptedAtFirstProgress(db: string, args: string[]) {
    const child = spawn(process.execPath, [CLI_BIN, ...args, '--database', db], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // Once: a second signal quits at once.
      if (!sent && /^(Undoing|Pruning|Seeding) /m.test(stderr)) sent = child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stdout, stderr };
  }

  test('imports undo stopped with SIGINT ends after the batch being deleted, says what remains, exits 130; run again, it completes', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0c';
    const { db, runId } = await importedRun('undo-sigint', org);
    const stopped = await interruptedAtFirstProgress(db, ['imports', 'undo', runId]);
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.match(stopped.stderr, /Stopping after the batch being deleted/);
    const said = new RegExp(
      `^Stopped undoing import run ${runId} on request: ([\\d,]+) events removed, ([\\d,]+) events of it remain \\(counters updated for what went\\)\\. 'imports undo ${runId}' again completes it\\.$`,
      'm',
    ).exec(stopped.stdout);
    assert.ok(said, stopped.stdout);
    const [removed, remain] = [said[1]!, said[2]!].map((n) => Number(n.replaceAll(',', '')));
    assert.ok(removed! > 0 && remain! > 0, said[0]);
    assert.equal(removed! + remain!, 30_000);
    const list = cli(db, 'imports', 'list', '--org', org);
    assert.match(
      list.stdout,
      new RegExp(`^Run ${runId}: an undo has not finished .*: ${said[2]} events of it remain`, 'm'),
    );
    const [run] = (cli(db, 'imports', 'list', '--org', org, '--json').json as { runs: Json[] })
      .runs;
    assert.notEqual(run?.status, 'undone');
    const again = cli(db, 'imports', 'undo', runId, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.equal((again.json as Json).deleted, remain);
    const store = await openStore(db);
    try {
      assert.equal(await store.countEvents({ orgId: org }), 0);
    } finally {
      await store.close();
    }
  });

  test('seed stopped with SIGINT keeps its committed batches, prints its one --json document and exits 130; the same seed again adds the rest', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0e';
    const db = path.join(dir, 'seed-sigint.db');
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Seed', '--id', org).code, 0);
    const args = ['seed', '--org', org, '--events', '100000', '--batch-size', '2000'];
    args.push('--from', '2026-01-01', '--to', '2026-02-01', '--json');
    const stopped = await interruptedAtFirstProgress(db, args);
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.match(stopped.stderr, /^Stopping after the batches being written/m);
    const summary = JSON.parse(stopped.stdout) as Json;
    assert.equal(summary.stopped, true);
    const inserted = summary.inserted as number;
    assert.ok(inserted > 0 && inserted < 100_000, `${inserted} inserted before the stop`);
    const store = await openStore(db);
    try {
      assert.equal(await store.countEvents({ orgId: org }), inserted, 'what it said is stored');
    } finally {
      await store.close();
    }
    const again = cli(db, ...args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal((again.json as Json).skipped, inserted);
    assert.equal((again.json as Json).inserted, 100_000 - inserted);
    assert.equal((again.json as Json).stopped, undefined);

    // In words, the summary names the arguments that add the rest, as they
    // can be run (a seed starting with '-' as --seed=-5, the org included).
    const words = path.join(dir, 'seed-sigint-words.db');
    assert.equal(cli(words, 'orgs', 'create', '--name', 'Seed', '--id', org).code, 0);
    const wordsArgs = ['seed', '--org', org, '--events', '100000', '--batch-size', '2000'];
    wordsArgs.push('--seed=-5', '--from', '2026-01-01', '--to', '2026-02-01');
    const stoppedInWords = await interruptedAtFirstProgress(words, wordsArgs);
    assert.equal(stoppedInWords.code, 130, stoppedInWords.stderr);
    const suggested =
      /events are there \(([\d,]+) inserted now, 0 already were\)\. The same seed again \(seed (.+)\) adds the rest\.$/m.exec(
        stoppedInWords.stdout,
      );
    assert.ok(suggested, stoppedInWords.stdout);
    const rest = cli(words, 'seed', ...suggested[2]!.split(' '), '--json');
    assert.equal(rest.code, 0, rest.stderr);
    const firstPart = Number(suggested[1]!.replaceAll(',', ''));
    assert.equal((rest.json as Json).skipped, firstPart);
    assert.equal((rest.json as Json).inserted, 100_000 - firstPart);
  });

  test('events prune stopped with SIGINT ends after the batch being deleted, says what remains, exits 130; run again, it completes', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0d';
    const { db } = await importedRun('prune-sigint', org);
    const args = ['events', 'prune', '--org', org, '--before', '2026-02-01'];
    const stopped = await interruptedAtFirstProgress(db, args);
    assert.equal(stopped.code, 130, stopped.stderr);
    const said = new RegExp(
      `^Stopped pruning ${org} on request after [\\d.]+ s: ([\\d,]+) events deleted, ([\\d,]+) events created before 2026-02-01T00:00:00Z remain; running the prune again completes it\\.$`,
      'm',
    ).exec(stopped.stdout);
    assert.ok(said, stopped.stdout);
    const [deleted, remain] = [said[1]!, said[2]!].map((n) => Number(n.replaceAll(',', '')));
    assert.ok(deleted! > 0 && remain! > 0, said[0]);
    assert.equal(deleted! + remain!, 30_000);
    const again = cli(db, ...args, '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.equal((again.json as Json).deleted, remain);
  });

  test('events prune --before a date in the future is refused: every mirror of the org would start its copy there', async () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0b0e';
    const { db } = await importedRun('prune-future', org, 100);
    const later = new Date(Date.now() + 86_400_000).toISOString();
    for (const dryRun of [[], ['--dry-run']]) {
      const refused = cli(db, 'events', 'prune', '--org', org, '--before', later, ...dryRun);
      assert.equal(refused.code, 64, refused.stderr);
      assert.match(refused.stderr, /^Error: --before lies in the future \('[^']+'\): /);
    }
    const now = cli(
      db,
      'events',
      'prune',
      '--org',
      org,
      '--before',
      new Date().toISOString(),
      '--json',
    );
    assert.equal(now.code, 0, now.stderr);
    assert.equal((now.json as Json).deleted, 100);
  });

  test('seed: both variants with the same seed and range go into one organization side by side', () => {
    const db = path.join(dir, 'variants.db');
    const args = ['seed', '--org', ORG, '--events', '200', '--seed', '5'];
    const range = ['--from', '2026-01-01', '--to', '2026-01-08', '--json'];
    const hosted = cli(db, ...args, '--create-org', '--name', 'Both', ...range);
    assert.equal(hosted.code, 0, hosted.stderr);
    const selfHosted = cli(db, ...args, '--variant', 'self-hosted', ...range);
    assert.equal(selfHosted.code, 0, selfHosted.stderr);
    assert.deepEqual(
      [(selfHosted.json as Json).inserted, (selfHosted.json as Json).skipped],
      [200, 0],
    );
  });

  test("seed --create-org checks --name as orgs create does; an existing org's other name is noted, not applied", () => {
    const db = path.join(dir, 'names.db');
    const seed = [
      'seed',
      '--org',
      ORG,
      '--events',
      '10',
      '--from',
      '2026-01-01',
      '--to',
      '2026-01-02',
    ];
    for (const [name, message] of [
      ['   ', /^Error: --name is required/],
      ['x'.repeat(65), /^Error: --name must be at most 64 characters/],
    ] as const) {
      for (const command of [seed, ['orgs', 'create', '--id', ORG]]) {
        const refused = cli(
          db,
          ...command,
          ...(command === seed ? ['--create-org'] : []),
          '--name',
          name,
        );
        assert.equal(refused.code, 64, `${command[0]}: ${refused.stderr}`);
        assert.match(refused.stderr, message, command[0]);
      }
    }
    assert.equal(fs.existsSync(db), false, 'no store was made, let alone an organization');

    const created = cli(db, ...seed, '--create-org', '--name', '  Named  ');
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /Created organization "Named"/);
    const again = cli(db, ...seed, '--create-org', '--name', 'Named');
    assert.equal(again.code, 0, again.stderr);
    assert.doesNotMatch(again.stderr, /--name/);
    const renamed = cli(db, ...seed, '--create-org', '--name', 'Other');
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.match(
      renamed.stderr,
      new RegExp(`Organization ${ORG} exists as "Named": --name "Other" is not applied`),
    );
    const orgs = cli(db, 'orgs', 'list', '--json').json as Json[];
    assert.deepEqual(
      orgs.map((org) => org.name),
      ['Named'],
    );
  });
});
