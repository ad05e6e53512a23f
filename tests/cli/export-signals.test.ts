import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, startCli } from './run-cli';

const ORG = '6b1c2d3e4f5a6b7c8d9e0e51';

describe('CLI: events export stopped by a signal', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-export-signals-'));
    db = path.join(dir, 'events.db');
    const seeded = cli(
      db,
      ...['seed', '--org', ORG, '--events', '20000', '--create-org', '--name', 'Signals Co'],
      ...['--from', '2026-01-01', '--to', '2026-02-01'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    test(`${signal} during events export cancels it: no file, no .partial left behind, an error in --json, exit 130`, async () => {
      const target = path.join(dir, `events-${signal}.ndjson`);
      const child = startCli(
        db,
        ...['events', 'export', '--org', ORG, '--include-raw', '--out', target, '--json'],
      );
      let stdout = '';
      let stderr = '';
      let sent = false;
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        // At the first progress line (after the first page), once.
        if (!sent && /^Exporting /m.test(stderr)) sent = child.kill(signal);
      });
      const [code, killedBy] = await new Promise<[number | null, string | null]>((resolve) =>
        child.on('exit', (c, s) => resolve([c, s])),
      );
      assert.ok(sent, stderr);
      assert.equal(killedBy, null, `killed by ${killedBy}: the signal was not handled`);
      assert.equal(code, 130, stderr);
      assert.match(stderr, /Export cancelled/);
      assert.deepEqual(JSON.parse(stdout), {
        error: { code: 'failed', message: 'Export cancelled', exitCode: 130 },
      });
      assert.deepEqual(
        fs.readdirSync(dir).filter((name) => name.includes('.ndjson')),
        [],
        'the export left a file behind',
      );
    });
  }
});
