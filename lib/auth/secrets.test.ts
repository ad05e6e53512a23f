import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { ConfigError, getConfig, setConfigForTesting } from '@/lib/config';
import { openStore } from '@/lib/store';
import { openPostgresTestStore } from '@/tests/helpers/test-stores';
import {
  configuredSecret,
  dropUnusedDatabaseSecret,
  loadServerSecret,
  secretFileBeside,
  secretSource,
  warnIfSecretMissing,
} from './secrets';

const CONFIGURED = 'a-configured-secret-0123456789abcdef';
const originalSecret = getConfig().ORG_EVENTS_SECRET;
let dir: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-secrets-'));
});
after(() => {
  setConfigForTesting({ ORG_EVENTS_SECRET: originalSecret });
  fs.rmSync(dir, { recursive: true, force: true });
});

test('production with the secret kept in the database prints one loud warning, and only then', () => {
  const printed: string[] = [];
  const print = (message: string) => printed.push(message);
  const postgres = { databaseFile: null };
  try {
    setConfigForTesting({ ORG_EVENTS_SECRET: CONFIGURED });
    assert.equal(warnIfSecretMissing(postgres, true, print), null, 'secret set');
    setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
    assert.equal(warnIfSecretMissing(postgres, false, print), null, 'not production');
    const sqliteFile = { databaseFile: path.join(dir, 'warned.db') };
    assert.equal(warnIfSecretMissing(sqliteFile, true, print), null, 'the secret file beside');
    assert.deepEqual(printed, []);

    const warning = warnIfSecretMissing(postgres, true, print);
    assert.match(warning ?? '', /ORG_EVENTS_SECRET is not set/);
    assert.match(warning ?? '', /unencrypted/);
    warnIfSecretMissing(postgres, true, print);
    assert.deepEqual(printed, [warning], 'printed once per process');
  } finally {
    setConfigForTesting({ ORG_EVENTS_SECRET: originalSecret });
  }
});

test('the secret file is the database file with .secret for .db, .sqlite or .sqlite3, not added to it', () => {
  for (const [database, secret] of [
    ['/srv/data/org-events.db', '/srv/data/org-events.secret'],
    ['/srv/data/events.sqlite', '/srv/data/events.secret'],
    ['/srv/data/events.SQLITE3', '/srv/data/events.secret'],
    ['/srv/data/events', '/srv/data/events.secret'],
    ['/srv/data/events.secret', '/srv/data/events.secret.secret'],
  ]) {
    assert.equal(secretFileBeside(database!), secret, database);
  }
});

describe('without ORG_EVENTS_SECRET, a SQLite database in a file', () => {
  before(() => setConfigForTesting({ ORG_EVENTS_SECRET: undefined }));
  after(() => setConfigForTesting({ ORG_EVENTS_SECRET: originalSecret }));

  test('has its secret made once in a file beside it, readable by its owner alone, and none in the database', async () => {
    const database = path.join(dir, 'fresh.db');
    const store = await openStore(`file:${database}`);
    try {
      const file = path.join(dir, 'fresh.secret');
      assert.deepEqual(secretSource(store), { kind: 'file', path: file });
      assert.equal(fs.existsSync(file), false, 'made on first use, not on opening');
      const secret = (await loadServerSecret(store)).toString('utf8');
      assert.match(secret, /^[0-9a-f]{64}$/);
      assert.equal(fs.readFileSync(file, 'utf8'), `${secret}\n`);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(configuredSecret(store), secret, 'read again, the same');
      assert.deepEqual(
        fs.readdirSync(dir).filter((name) => name.startsWith('fresh.secret.')),
        [],
        'no file left from making it',
      );
    } finally {
      await store.close();
    }
    const sqlite = new BetterSqlite3(database, { readonly: true });
    try {
      const settings = sqlite.prepare('SELECT key FROM settings').pluck().all();
      assert.deepEqual(settings, [], 'the database holds no secret');
    } finally {
      sqlite.close();
    }
  });

  test('takes a secret file another process made as its own', async () => {
    const database = path.join(dir, 'restored.db');
    const made = 'f'.repeat(64);
    fs.writeFileSync(path.join(dir, 'restored.secret'), `${made}\n`, { mode: 0o600 });
    const store = await openStore(`file:${database}`);
    try {
      assert.equal(configuredSecret(store), made);
    } finally {
      await store.close();
    }
  });

  test('refuses a secret file that holds no secret, naming it, and leaves it as it is', async () => {
    const database = path.join(dir, 'damaged.db');
    const file = path.join(dir, 'damaged.secret');
    fs.writeFileSync(file, 'too short\n', { mode: 0o600 });
    const store = await openStore(`file:${database}`);
    try {
      assert.throws(
        () => configuredSecret(store),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message.includes(file) &&
          /does not hold a secret/.test(error.message),
      );
      assert.equal(fs.readFileSync(file, 'utf8'), 'too short\n');
    } finally {
      await store.close();
    }
  });
});

test('ORG_EVENTS_SECRET, when set, is the secret: no file is made beside the database', async () => {
  const database = path.join(dir, 'configured.db');
  const store = await openStore(`file:${database}`);
  try {
    setConfigForTesting({ ORG_EVENTS_SECRET: CONFIGURED });
    assert.deepEqual(secretSource(store), { kind: 'environment' });
    assert.equal((await loadServerSecret(store)).toString('utf8'), CONFIGURED);
    assert.equal(fs.existsSync(path.join(dir, 'configured.secret')), false);
  } finally {
    setConfigForTesting({ ORG_EVENTS_SECRET: originalSecret });
    await store.close();
  }
});

test('an in-memory database keeps its generated secret in the database', async () => {
  const store = await openStore(':memory:');
  try {
    setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
    assert.deepEqual(secretSource(store), { kind: 'database' });
    assert.equal(configuredSecret(store), undefined);
    const secret = (await loadServerSecret(store)).toString('utf8');
    assert.equal(await store.getOrCreateSetting('server_secret', () => 'other'), secret);
  } finally {
    setConfigForTesting({ ORG_EVENTS_SECRET: originalSecret });
    await store.close();
  }
});

test('PostgreSQL keeps its server_secret row when a server or CLI run has ORG_EVENTS_SECRET: instances not yet given the variable read it', async () => {
  const { store, drop } = await openPostgresTestStore();
  try {
    // An instance started before ORG_EVENTS_SECRET was set everywhere: its secret is the row.
    setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
    const kept = (await loadServerSecret(store)).toString('utf8');
    // Another instance, or a CLI run, with the variable set.
    setConfigForTesting({ ORG_EVENTS_SECRET: CONFIGURED });
    assert.equal(await dropUnusedDatabaseSecret(store), false);
    // The next instance without it (a restart, one more replica) reads the same secret.
    assert.equal(await store.getOrCreateSetting('server_secret', () => 'another'), kept);
  } finally {
    setConfigForTesting({ ORG_EVENTS_SECRET: originalSecret });
    await store.close();
    await drop();
  }
});
