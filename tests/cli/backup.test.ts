import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { openStore } from '@/lib/store';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { CLI_BIN, cli, cliFrom, ROOT } from './run-cli';

/**
 * `backup --out FILE`: a copy of a SQLite store that opens as the same
 * store (every table of the org, the keys), taken while another process
 * holds it open and writes; FILE is owner-only, never replaced, never left
 * half written; PostgreSQL is pointed to pg_dump.
 */

const ORG = '6b1c2d3e4f5a6b7c8d9e0b0c';

describe('CLI: backup', () => {
  let dir: string;
  let source: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-backup-'));
    source = path.join(dir, 'events.db');
    const seeded = cli(
      source,
      ...['seed', '--org', ORG, '--events', '5000', '--create-org', '--name', 'Backup Co'],
      ...['--from', '2026-01-01', '--to', '2026-02-01'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
    const key = cli(source, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER');
    assert.equal(key.code, 0, key.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function dump(file: string) {
    const store = await openStore(`file:${file}`);
    try {
      return { org: await store.dumpOrg(ORG), keys: await store.listApiKeys() };
    } finally {
      await store.close();
    }
  }

  test('the copy holds every table of the org and the keys, is readable by its owner only, and is never replaced', async () => {
    const target = path.join(dir, 'copy.db');
    const made = cli(source, 'backup', '--out', target, '--json');
    assert.equal(made.code, 0, made.stderr);
    const summary = made.json as { file: string; bytes: number; seconds: number };
    assert.equal(summary.file, target);
    assert.equal(summary.bytes, fs.statSync(target).size);
    assert.equal(fs.statSync(target).mode & 0o777, 0o600);
    assert.deepEqual(await dump(target), await dump(source));

    const before = fs.readFileSync(target);
    const again = cli(source, 'backup', '--out', target);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /copy\.db already exists: nothing was written/);
    assert.ok(fs.readFileSync(target).equals(before), 'the existing file was changed');
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('partial')),
      [],
      'a temporary file was left behind',
    );

    const nowhere = cli(source, 'backup', '--out', path.join(dir, 'missing', 'copy.db'));
    assert.equal(nowhere.code, 1);
    assert.match(nowhere.stderr, /Cannot write in .*missing \(ENOENT\)/);
    // A link to nothing is there too (a link would refuse it after the whole copy, naming its temporary file).
    const dangling = path.join(dir, 'dangling.db');
    fs.symlinkSync(path.join(dir, 'nowhere.db'), dangling);
    const linked = cli(source, 'backup', '--out', dangling);
    assert.equal(linked.code, 1);
    assert.equal(linked.stderr.trim(), `Error: ${dangling} already exists: nothing was written`);
    assert.equal(fs.readlinkSync(dangling), path.join(dir, 'nowhere.db'));
    // A name ending in / is a directory, and no file can be written as one.
    const slash = cli(source, 'backup', '--out', path.join(dir, 'missing') + '/');
    assert.equal(slash.code, 1);
    assert.equal(slash.stderr.trim(), `Error: Cannot write ${path.join(dir, 'missing')}/ (ENOENT)`);
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('partial')),
      [],
      'a temporary file was left behind',
    );
    // `-` is not stdout here (a SQLite copy is written into a file): refused, not a file named '-'.
    const dash = cliFrom(dir, source, 'backup', '--out', '-');
    assert.equal(dash.code, 64, dash.stderr);
    assert.match(dash.stderr, /^Error: --out - \(stdout\) cannot take a backup/);
    assert.equal(fs.existsSync(path.join(dir, '-')), false);
    const usage = cli(source, 'backup');
    assert.equal(usage.code, 64);
    assert.match(usage.stderr, /--out is required/);
  });

  test('taken while an import holds the database open, the copy has exactly what had committed', async () => {
    // The import reads stdin: it commits what it was given, then waits for
    // more, its connection open, until its input ends.
    const lines = Array.from({ length: 3000 }, (_, i) =>
      JSON.stringify({
        id: `6b1c2d3e${(0x10000000 + i).toString(16)}00000000`,
        created: new Date(Date.UTC(2026, 2, 1) + i * 1000).toISOString(),
        eventTypeName: 'JOINED_ORG',
        orgId: ORG,
      }),
    );
    const importing = spawn(
      process.execPath,
      [CLI_BIN, 'import', '--org', ORG, '-', '--batch-size', '1000', '--database', source],
      { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['pipe', 'ignore', 'pipe'] },
    );
    const ended = new Promise<number | null>((resolve) => importing.once('exit', resolve));
    try {
      importing.stdin.write(`${lines.join('\n')}\n`);
      const store = await openStore(`file:${source}`);
      try {
        const deadline = Date.now() + 60_000;
        // Its batches, and its run's record of them, which the import's
        // heartbeat writes after them: on a loaded machine the copy was
        // taken between the two, and the source's run row moved on after.
        const committed = async () =>
          (await store.countEvents({ orgId: ORG })) === 5000 + 3000 &&
          (await store.listIngestRuns(ORG)).some(
            (run) => run.status === 'running' && run.inserted === 3000,
          );
        while (!(await committed())) {
          assert.ok(Date.now() < deadline, 'the import did not commit its batches');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        await store.close();
      }
      const target = path.join(dir, 'during-import.db');
      const made = cli(source, 'backup', '--out', target);
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /^Backed up the database \(.+\) to .*during-import\.db in /);
      // The run's heartbeat, which the waiting import writes every few
      // seconds, may have moved on in the source since the copy was taken.
      const withoutHeartbeats = (d: Awaited<ReturnType<typeof dump>>) => ({
        ...d,
        org: {
          ...d.org,
          ingest_runs: d.org.ingest_runs?.map((run) => ({ ...run, heartbeat: null })),
        },
      });
      const copy = await dump(target);
      assert.deepEqual(withoutHeartbeats(copy), withoutHeartbeats(await dump(source)));
      const listed = cli(`file:${target}`, 'orgs', 'list', '--json');
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        (listed.json as { id: string; events: number }[]).map((org) => [org.id, org.events]),
        [[ORG, 8000]],
      );
    } finally {
      importing.stdin.end();
      assert.equal(await ended, 0);
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`stopped by ${signal} midway, it leaves no partial copy behind and ends as the signal ends a process`, async () => {
      // A large database (a table of ballast beside the events), so that
      // the copy takes long enough to be stopped midway.
      const big = path.join(dir, `big-${signal}.db`);
      fs.copyFileSync(source, big);
      const ballast = new BetterSqlite3(big);
      ballast.exec('CREATE TABLE ballast (b BLOB)');
      ballast.prepare('INSERT INTO ballast VALUES (zeroblob(?))').run(400 << 20);
      ballast.close();
      const target = path.join(dir, `stopped-${signal}.db`);
      const child = spawn(
        process.execPath,
        [CLI_BIN, 'backup', '--out', target, '--database', `file:${big}`],
        { cwd: ROOT, env: { ...process.env, NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        child.once('exit', (code, killedBy) => resolve([code, killedBy])),
      );
      const partial = () => fs.readdirSync(dir).filter((name) => name.includes('.partial'));
      // Stopped once the copy is being written.
      for (let waited = 0; !partial().some((name) => name.endsWith('-journal')); waited += 10) {
        assert.ok(waited < 30_000, 'the copy never started');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      child.kill(signal);
      const [code, killedBy] = await exited;
      assert.deepEqual([code, killedBy], [null, signal], stderr);
      assert.match(stderr, /Backup stopped: its partial copy was removed, nothing was written/);
      assert.deepEqual(partial(), [], 'a partial copy was left behind');
      assert.equal(fs.existsSync(target), false);
      fs.rmSync(big);
    });
  }

  test('on PostgreSQL it names pg_dump and writes nothing', async () => {
    const database = await createTestDatabase();
    try {
      const target = path.join(dir, 'pg.db');
      const refused = cli(database.url, 'backup', '--out', target);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /back up PostgreSQL with pg_dump/);
      assert.equal(fs.existsSync(target), false);
    } finally {
      await database.drop();
    }
  });
});
