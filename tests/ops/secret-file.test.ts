import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { computeHa1 } from '@/lib/auth/api-keys';
import { setConfigForTesting } from '@/lib/config';
import { cliWith } from '@/tests/cli/run-cli';
import { DigestClient } from '@/tests/helpers/digest-client';
import { runServerToExit, startTestServer, type TestServer } from '@/tests/helpers/server';
import { openStore } from '@/lib/store';

/**
 * The default configuration (SQLite, no ORG_EVENTS_SECRET) keeps the
 * server's secret in a file beside the database, so that a copy of the
 * database file alone (a leaked backup, a file read through another hole)
 * grants nothing: its keys' HA1 values are sealed with a secret it does not
 * hold. Before, the secret was generated into the database and the HA1
 * values stored plain there: the copy answered any Digest challenge.
 */
let dir: string;
let server: TestServer | undefined;
const inherited = process.env.ORG_EVENTS_SECRET;

before(() => {
  // This test is about the default: neither its own seeding nor the server it starts has the variable.
  delete process.env.ORG_EVENTS_SECRET;
  setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-secret-file-'));
});

// Each test's last server is stopped when it ends: one left running (the next
// test replacing it here) kept this file's process alive after its last test.
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

after(() => {
  if (inherited !== undefined) process.env.ORG_EVENTS_SECRET = inherited;
  setConfigForTesting({ ORG_EVENTS_SECRET: inherited });
  fs.rmSync(dir, { recursive: true, force: true });
});

function startServerOn(database: string) {
  // As in production: not the runner's NODE_ENV=test.
  const { NODE_ENV: _nodeEnv, ...inheritedEnv } = process.env;
  const env: NodeJS.ProcessEnv = { ...inheritedEnv } as NodeJS.ProcessEnv;
  Object.assign(env, { SERVE: 'api', PORT: '0', REDIS_URL: '', DATABASE_URL: `file:${database}` });
  return runServerToExit(env);
}

test('without ORG_EVENTS_SECRET, a copy of the SQLite database file alone grants nothing, and the server on the original serves', async () => {
  const original = path.join(dir, 'live', 'org-events.db');
  fs.mkdirSync(path.dirname(original));
  const first = await startTestServer({ databaseUrl: `file:${original}`, eventCount: 20 });
  server = first;
  const secretFile = path.join(dir, 'live', 'org-events.secret');
  assert.equal(fs.statSync(secretFile).mode & 0o777, 0o600, 'the secret file is its owner’s alone');

  const member = new DigestClient(first.baseUrl, first.keys.member);
  const answer = await member.request(`/api/public/v1.0/orgs/${first.orgId}/events?itemsPerPage=1`);
  assert.equal(answer.status, 200, answer.text);
  await server.stop();
  server = undefined;

  // The database (its WAL folded in at close) holds neither of the key's HA1 values.
  const bytes = fs.readFileSync(original);
  for (const algorithm of ['MD5', 'SHA-256'] as const) {
    const { publicKey, privateKey } = first.keys.member;
    const ha1 = computeHa1(algorithm, publicKey, 'MMS Public API', privateKey);
    assert.equal(bytes.includes(Buffer.from(ha1, 'utf8')), false, `${algorithm} HA1 as hex`);
    assert.equal(bytes.includes(Buffer.from(ha1, 'hex')), false, `${algorithm} HA1 as bytes`);
  }
  assert.equal(bytes.includes(fs.readFileSync(secretFile, 'utf8').trim()), false, 'nor the secret');

  // A copy of the database file alone, elsewhere.
  const copy = path.join(dir, 'copy', 'org-events.db');
  fs.mkdirSync(path.dirname(copy));
  fs.copyFileSync(original, copy);
  const copySecret = path.join(dir, 'copy', 'org-events.secret');

  const started = startServerOn(copy);
  assert.equal(started.status, 1, `${started.stdout}${started.stderr}`);
  assert.match(
    started.stderr,
    /API keys are sealed, and neither ORG_EVENTS_SECRET nor the secret file .*copy\/org-events\.secret is here/,
  );
  assert.doesNotMatch(started.stdout, /ready on/);
  assert.equal(fs.existsSync(copySecret), false, 'no other secret is made beside the copy');

  // Nor does the CLI issue a key there: it would be sealed with a secret the servers do not have.
  const issued = cliWith(
    { env: { ORG_EVENTS_SECRET: undefined } },
    copy,
    ...['keys', 'create', '--org', first.orgId, '--role', 'ORG_MEMBER'],
  );
  assert.equal(issued.code, 1, issued.stdout);
  assert.match(issued.stderr, /neither ORG_EVENTS_SECRET nor the secret file/);
  assert.equal(fs.existsSync(copySecret), false);

  // With the secret file put back beside it, the copy is the original again.
  fs.copyFileSync(secretFile, copySecret);
  server = await startTestServer({ shareDataWith: { ...first, databaseUrl: `file:${copy}` } });
  const restored = new DigestClient(server.baseUrl, first.keys.member);
  const again = await restored.request(
    `/api/public/v1.0/orgs/${first.orgId}/events?itemsPerPage=1`,
  );
  assert.equal(again.status, 200, again.text);
});

/**
 * A database from before the secret file: its keys' HA1 values plain, its
 * secret in a `server_secret` row. A copy of it grants every key; before,
 * they stayed plain until someone ran `keys rehash`, and the row stayed.
 */
async function makeDatabaseFromBefore(server: TestServer): Promise<void> {
  const store = await openStore(server.databaseUrl);
  try {
    const keys = [
      server.keys.member,
      server.keys.readOnly,
      server.keys.otherOrg,
      server.keys.owner,
      server.keys.disabled,
      ...server.keys.spare,
    ];
    assert.equal(keys.length, (await store.listApiKeys()).length, 'every key is known');
    for (const key of keys) {
      await store.setApiKeyHa1(key.apiKeyId, {
        ha1Md5: computeHa1('MD5', key.publicKey, server.realm, key.privateKey),
        ha1Sha256: computeHa1('SHA-256', key.publicKey, server.realm, key.privateKey),
      });
    }
    await store.getOrCreateSetting('server_secret', () => 'f'.repeat(64));
  } finally {
    await store.close();
  }
}

function databaseHoldsHa1Of(file: string, key: { publicKey: string; privateKey: string }) {
  const bytes = Buffer.concat(
    [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)),
  );
  return (['MD5', 'SHA-256'] as const).some((algorithm) => {
    const ha1 = computeHa1(algorithm, key.publicKey, 'MMS Public API', key.privateKey);
    return bytes.includes(Buffer.from(ha1, 'utf8')) || bytes.includes(Buffer.from(ha1, 'hex'));
  });
}

function settingKeys(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT key FROM settings').all() as { key: string }[]).map((r) => r.key);
  } finally {
    db.close();
  }
}

test('a database from before the secret file: the server seals its plain keys at start and drops the secret row, so a copy grants nothing', async () => {
  const original = path.join(dir, 'before', 'org-events.db');
  fs.mkdirSync(path.dirname(original));
  const seeded = await startTestServer({ databaseUrl: `file:${original}`, eventCount: 5 });
  await seeded.stop();
  await makeDatabaseFromBefore(seeded);
  fs.rmSync(path.join(dir, 'before', 'org-events.secret'));
  assert.equal(databaseHoldsHa1Of(original, seeded.keys.member), true, 'stored plain, as before');
  assert.deepEqual(settingKeys(original), ['server_secret']);

  server = await startTestServer({ shareDataWith: { ...seeded, databaseUrl: `file:${original}` } });
  assert.match(server.output(), /Sealed 8 API key\(s\) stored unsealed/);
  const member = new DigestClient(server.baseUrl, seeded.keys.member);
  const answer = await member.request(
    `/api/public/v1.0/orgs/${seeded.orgId}/events?itemsPerPage=1`,
  );
  assert.equal(answer.status, 200, answer.text);
  await server.stop();
  server = undefined;

  assert.equal(databaseHoldsHa1Of(original, seeded.keys.member), false, 'sealed at start');
  assert.equal(databaseHoldsHa1Of(original, seeded.keys.disabled), false, 'a disabled key too');
  assert.deepEqual(settingKeys(original), [], 'the secret row is gone');
});

test('a CLI run seals plain keys where the database has its secret file, says so on stderr, and names a secret file others may read', async () => {
  const original = path.join(dir, 'cli', 'org-events.db');
  fs.mkdirSync(path.dirname(original));
  const seeded = await startTestServer({ databaseUrl: `file:${original}`, eventCount: 5 });
  await seeded.stop();
  await makeDatabaseFromBefore(seeded);

  const secretFile = path.join(dir, 'cli', 'org-events.secret');
  fs.chmodSync(secretFile, 0o640);
  const listed = cliWith({ env: { ORG_EVENTS_SECRET: undefined } }, original, 'keys', 'list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(
    listed.stderr.includes(
      `The secret file ${secretFile} is readable or writable by others than its owner (mode 0640)`,
    ) && listed.stderr.includes(`Run: chmod 600 ${secretFile}`),
    listed.stderr,
  );
  assert.match(listed.stderr, /Sealed 8 API key\(s\) stored unsealed/);
  assert.equal(databaseHoldsHa1Of(original, seeded.keys.member), false);
  assert.deepEqual(settingKeys(original), []);
});

test('a CLI command that needs no secret runs on a database with keys stored plain whose secret file is broken, saying why none was sealed', async () => {
  const database = path.join(dir, 'broken', 'org-events.db');
  fs.mkdirSync(path.dirname(database));
  const orgId = '5f00000000000000000000b1';
  const store = await openStore(`file:${database}`);
  try {
    await store.createOrg({ id: orgId, name: 'Broken', created: Date.now() });
    await store.createApiKey({
      id: '6b00000000000000000000b1',
      publicKey: 'plainkey',
      description: 'from before the secret file',
      created: Date.now(),
      disabled: false,
      realm: 'MMS Public API',
      ha1Md5: '1'.repeat(32),
      ha1Sha256: '2'.repeat(64),
    });
  } finally {
    await store.close();
  }
  // Emptied by a mistake (a restore, `> file`): no secret to seal with.
  fs.writeFileSync(path.join(dir, 'broken', 'org-events.secret'), '', { mode: 0o600 });
  const env = { env: { ORG_EVENTS_SECRET: undefined } };

  const listed = cliWith(env, database, 'orgs', 'list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /Broken/);
  assert.match(listed.stderr, /org-events\.secret does not hold a secret/);
  const held = new Database(database, { readonly: true });
  try {
    const row = held.prepare('SELECT ha1_md5 FROM api_keys').get() as { ha1_md5: string };
    assert.equal(row.ha1_md5, '1'.repeat(32), 'left plain');
  } finally {
    held.close();
  }
  // A command that needs the secret still refuses, saying why.
  const issued = cliWith(env, database, 'keys', 'create', '--org', orgId, '--role', 'ORG_MEMBER');
  assert.notEqual(issued.code, 0);
  assert.match(issued.stderr, /does not hold a secret/);
});
