import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, ROOT } from './run-cli';

type Setup = {
  orgId: string | null;
  events?: number;
  seeded?: number;
  publicKey?: string;
  privateKey?: string;
  keyIssued?: boolean;
  credentialsFile?: string;
  organizations?: number;
};

function setup(database: string, env: Record<string, string> = {}): Setup {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo-setup.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env, DATABASE_URL: `file:${database}` },
  });
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout) as Setup;
}

describe('demo setup (npm run demo, before the server starts)', () => {
  let dir: string;
  let db: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-demo-'));
    db = path.join(dir, 'demo.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('an empty database gets the demo org, ~5,000 events and a key kept in a private file', () => {
    const first = setup(db);
    assert.equal(first.orgId, '65a1b2c3d4e5f6a7b8c9d0e1');
    assert.equal(first.seeded, 5000);
    assert.equal(first.events, 5000);
    assert.equal(first.keyIssued, true);
    assert.equal(first.credentialsFile, path.join(dir, 'demo-credentials.json'));
    const stat = fs.statSync(first.credentialsFile);
    assert.equal(stat.mode & 0o777, 0o600);
    const saved = JSON.parse(fs.readFileSync(first.credentialsFile, 'utf8')) as Setup;
    assert.equal(saved.privateKey, first.privateKey);
    // ...and only there: not in the database files.
    const bytes = Buffer.concat(
      fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('demo.db'))
        .map((f) => fs.readFileSync(path.join(dir, f))),
    );
    assert.equal(bytes.includes(first.privateKey!), false);

    const second = setup(db);
    assert.deepEqual(
      [second.seeded, second.keyIssued, second.publicKey, second.privateKey],
      [0, false, first.publicKey, first.privateKey],
    );
  });

  test('a key that no longer works is replaced, and the stale one revoked', () => {
    const before = setup(db);
    const file = before.credentialsFile!;
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    fs.writeFileSync(file, JSON.stringify({ ...saved, privateKey: 'not-the-key' }));
    const replaced = setup(db);
    assert.equal(replaced.keyIssued, true);
    assert.notEqual(replaced.publicKey, before.publicKey);
    const keys = cli(db, 'keys', 'list', '--json').json as {
      publicKey: string;
      disabled: boolean;
    }[];
    assert.equal(keys.find((k) => k.publicKey === before.publicKey)!.disabled, true);

    // A different realm invalidates the stored HA1 values: a new key again.
    const otherRealm = setup(db, { DIGEST_REALM: 'Another Realm' });
    assert.equal(otherRealm.keyIssued, true);
    assert.notEqual(otherRealm.publicKey, replaced.publicKey);
  });

  test('a database that already holds organizations is left alone', () => {
    const other = path.join(dir, 'other.db');
    assert.equal(cli(other, 'orgs', 'create', '--name', 'Mine').code, 0);
    assert.deepEqual(setup(other), { orgId: null, organizations: 1 });
    assert.equal(fs.existsSync(path.join(dir, 'other-credentials.json')), false);
  });
});
