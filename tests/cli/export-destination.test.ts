import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, ROOT as CLI_ROOT, startCli } from './run-cli';

const ORG = '6b1c2d3e4f5a6b7c8d9e0e61';

describe('CLI: events export --out naming a special file or a symbolic link', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-export-out-'));
    db = path.join(dir, 'events.db');
    const seeded = cli(
      db,
      ...['seed', '--org', ORG, '--events', '200', '--create-org', '--name', 'Out Co'],
      ...['--from', '2026-01-01', '--to', '2026-02-01'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a link to /dev/null is written through, not replaced by a regular file', () => {
    const link = path.join(dir, 'null-link');
    fs.symlinkSync('/dev/null', link);
    const result = cli(db, 'events', 'export', '--org', ORG, '--out', link);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link was replaced');
    assert.ok(fs.statSync('/dev/null').isCharacterDevice());
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('partial')),
      [],
    );
  });

  test('--out /dev/stdout (or /dev/fd/1) is stdout: appended to with >>, quiet into a reader that stops early', () => {
    const shell = (script: string) =>
      spawnSync('bash', ['-c', script, 'export-to-stdout', ORG, db, dir], {
        cwd: CLI_ROOT,
        encoding: 'utf8',
        env: { ...process.env, NODE_ENV: 'test' },
        timeout: 120_000,
      });
    for (const alias of ['/dev/stdout', '/dev/fd/1']) {
      // Followed to the shell's file and renamed onto it, it replaced what was there.
      const appended = shell(
        `printf 'kept 1\\nkept 2\\n' > "$3/log.ndjson"; ` +
          `node bin/org-events.mjs events export --org "$1" --database "$2" --out ${alias} >> "$3/log.ndjson"`,
      );
      assert.equal(appended.status, 0, appended.stderr);
      const lines = fs.readFileSync(path.join(dir, 'log.ndjson'), 'utf8').trimEnd().split('\n');
      assert.deepEqual(lines.slice(0, 2), ['kept 1', 'kept 2'], alias);
      assert.equal(lines.length, 202, alias);
      // As `--out -`: exit 141 (SIGPIPE) without a word, not 1 and an EPIPE error.
      const cut = shell(
        `node bin/org-events.mjs events export --org "$1" --database "$2" --out ${alias} --include-raw | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`,
      );
      assert.equal(cut.stdout.trim(), '141', cut.stderr);
      assert.equal(cut.stderr, '');
    }
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('partial')),
      [],
    );
  });

  test('a link to a file: the file is replaced with the export, the link kept', () => {
    const file = path.join(dir, 'real.ndjson');
    const link = path.join(dir, 'latest.ndjson');
    fs.writeFileSync(file, 'old\n');
    fs.symlinkSync('real.ndjson', link);
    const result = cli(db, 'events', 'export', '--org', ORG, '--out', link);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link was replaced');
    assert.equal(fs.readFileSync(file, 'utf8').trimEnd().split('\n').length, 200);
  });

  test('a link to a file not there yet: the file is written, the link kept', () => {
    const file = path.join(dir, 'exports', 'next.ndjson');
    const link = path.join(dir, 'next-link.ndjson');
    fs.mkdirSync(path.dirname(file));
    fs.symlinkSync(path.join('exports', 'next.ndjson'), link);
    const result = cli(db, 'events', 'export', '--org', ORG, '--out', link);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link was replaced');
    assert.equal(fs.readFileSync(file, 'utf8').trimEnd().split('\n').length, 200);
  });

  test('a file named near the longest name a directory takes is written (its temporary name is kept short enough)', () => {
    // 255 bytes, the most a name may have: "é" is two bytes.
    const name = `${'é'.repeat(100)}${'n'.repeat(48)}.ndjson`;
    const file = path.join(dir, name);
    const result = cli(db, 'events', 'export', '--org', ORG, '--out', file);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(fs.readFileSync(file, 'utf8').trimEnd().split('\n').length, 200);
    assert.deepEqual(
      fs.readdirSync(dir).filter((entry) => entry.includes('partial')),
      [],
    );
  });

  // Renamed onto, the pipe never had a writer: its reader waited for ever.
  test('a named pipe is written to, as a reader of it sees', { timeout: 60_000 }, async () => {
    const fifo = path.join(dir, 'events.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const child = startCli(db, 'events', 'export', '--org', ORG, '--out', fifo);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    let text = '';
    for await (const chunk of fs.createReadStream(fifo, 'utf8')) text += chunk;
    assert.equal(await exited, 0, stderr);
    assert.equal(text.trimEnd().split('\n').length, 200);
    assert.ok(fs.lstatSync(fifo).isFIFO(), 'the pipe was replaced');
  });
});
