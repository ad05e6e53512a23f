import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, cliFrom } from './run-cli';

const ORG = '6b1c2d3e4f5a6b7c8d9e0b01';

type Json = Record<string, unknown>;

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
  });
});
