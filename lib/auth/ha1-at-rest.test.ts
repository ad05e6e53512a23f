import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { newObjectId } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { authorizationHeader, parseChallenge } from '../../tests/helpers/digest-client';
import { computeHa1, issueApiKey } from './api-keys';
import { authenticate } from './authenticate';
import { signIn } from './dashboard-session';
import {
  assertServesSealedKeys,
  Ha1SealingError,
  isSealedHa1,
  reencryptAllHa1,
  sealPlainKeys,
  unsealedKeysWarning,
} from './ha1-at-rest';

const ORG = '5f00000000000000000000a1';
const SECRET = 'at-rest-test-secret-0123456789abcdef0123456789';
const OTHER_SECRET = 'another-secret-entirely-0123456789abcdef012345';

type Key = { publicKey: string; privateKey: string };

/** Both Digest algorithms, answered by an independent client: does the key authenticate? */
async function digestAccepts(store: EventStore, key: Key): Promise<boolean> {
  const realm = getConfig().DIGEST_REALM;
  const uri = '/api/public/v1.0/orgs';
  const results: boolean[] = [];
  for (const algorithm of ['MD5', 'SHA-256'] as const) {
    const request = (headers: Headers) => ({
      method: 'GET',
      url: uri,
      headers,
      remoteAddress: '192.0.2.10',
    });
    const first = await authenticate(request(new Headers()), store);
    assert.ok('challenge' in first);
    const { nonce } = parseChallenge(first.challenge.wwwAuthenticate);
    const header = authorizationHeader({
      username: key.publicKey,
      password: key.privateKey,
      realm,
      nonce,
      method: 'GET',
      uri,
      nc: 1,
      algorithm,
    });
    const second = await authenticate(request(new Headers({ authorization: header })), store);
    results.push('principal' in second);
  }
  assert.equal(results[0], results[1], 'MD5 and SHA-256 agree');
  return results[0]!;
}

async function signInAccepts(store: EventStore, key: Key): Promise<boolean> {
  const outcome = await signIn(store, { ...key, remoteAddress: '192.0.2.11', secure: false });
  return outcome.ok;
}

describe('HA1 values at rest (ORG_EVENTS_SECRET set)', () => {
  let dir: string;
  let file: string;
  let store: EventStore;
  const original = getConfig().ORG_EVENTS_SECRET;

  const rawBytes = () =>
    Buffer.concat(
      [file, `${file}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)),
    );
  const assertNotInFile = (ha1s: string[], what: string) => {
    const bytes = rawBytes();
    for (const hex of ha1s) {
      assert.equal(bytes.includes(Buffer.from(hex, 'utf8')), false, `${what}: hex ${hex}`);
      assert.equal(bytes.includes(Buffer.from(hex, 'hex')), false, `${what}: raw bytes of ${hex}`);
    }
  };
  const ha1sOf = (key: Key) => {
    const realm = getConfig().DIGEST_REALM;
    return [
      computeHa1('MD5', key.publicKey, realm, key.privateKey),
      computeHa1('SHA-256', key.publicKey, realm, key.privateKey),
    ];
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-ha1-'));
    file = path.join(dir, 'keys.db');
    setConfigForTesting({ ORG_EVENTS_SECRET: SECRET });
    store = await openStore(`file:${file}`);
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
  });
  after(async () => {
    await store.close();
    setConfigForTesting({ ORG_EVENTS_SECRET: original });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('an issued key leaves neither HA1 in the database file or its WAL, and still authenticates', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'sealed',
      realm: getConfig().DIGEST_REALM,
    });
    const key = { publicKey: record.publicKey, privateKey };
    assertNotInFile(ha1sOf(key), 'while open');
    assert.equal(await digestAccepts(store, key), true, 'Digest');
    assert.equal(await signInAccepts(store, key), true, 'sign-in');

    // A copy of the database with another secret: the key grants nothing.
    setConfigForTesting({ ORG_EVENTS_SECRET: OTHER_SECRET });
    const elsewhere = await openStore(`file:${file}`);
    try {
      assert.equal(await digestAccepts(elsewhere, key), false, 'Digest, wrong secret');
      assert.equal(await signInAccepts(elsewhere, key), false, 'sign-in, wrong secret');
    } finally {
      await elsewhere.close();
      setConfigForTesting({ ORG_EVENTS_SECRET: SECRET });
    }
    // Nor without ORG_EVENTS_SECRET: the secret is then the file beside the
    // database, which a copy of the database file alone goes without.
    setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
    const unkeyed = await openStore(`file:${file}`);
    try {
      assert.equal(await digestAccepts(unkeyed, key), false, 'Digest, no secret');
      assert.equal(await signInAccepts(unkeyed, key), false, 'sign-in, no secret');
    } finally {
      await unkeyed.close();
      setConfigForTesting({ ORG_EVENTS_SECRET: SECRET });
    }
    await store.close();
    assertNotInFile(ha1sOf(key), 'after close');
    store = await openStore(`file:${file}`);
    assert.equal(await digestAccepts(store, key), true, 'Digest after reopening');
  });

  test('legacy plain rows still authenticate and reencryptAllHa1 seals them', async () => {
    const realm = getConfig().DIGEST_REALM;
    const key = { publicKey: 'legacyab', privateKey: '2f7c7e0c-8a43-4f0c-9d3e-5b1f0e3c9a11' };
    const [md5, sha256] = ha1sOf(key) as [string, string];
    const id = newObjectId();
    await store.createApiKey({
      id,
      publicKey: key.publicKey,
      description: 'legacy',
      created: Date.now(),
      disabled: false,
      realm,
      ha1Md5: md5,
      ha1Sha256: sha256,
    });
    await store.grantRole({ orgId: ORG, apiKeyId: id, role: 'ORG_MEMBER', created: Date.now() });
    assert.equal(await digestAccepts(store, key), true, 'legacy row, Digest');
    assert.equal(await signInAccepts(store, key), true, 'legacy row, sign-in');

    const writer = store;
    const report = await reencryptAllHa1(writer, async (record, values) => {
      await writer.setApiKeyHa1(record.id, values);
    });
    assert.deepEqual(report.sealed, [key.publicKey]);
    assert.equal(report.resealed.length, 1, 'the key issued sealed is sealed again');
    assert.deepEqual(report.unreadable, []);
    const stored = await store.getApiKeyByPublicKey(key.publicKey);
    assert.match(stored?.ha1Md5 ?? '', /^enc1:/);
    assert.match(stored?.ha1Sha256 ?? '', /^enc1:/);
    assert.equal(await digestAccepts(store, key), true, 'converted row, Digest');
    assert.equal(await signInAccepts(store, key), true, 'converted row, sign-in');
    await store.close();
    assertNotInFile([md5, sha256], 'after conversion');
    store = await openStore(`file:${file}`);
  });
  test('no key is issued where the stored keys are sealed with another secret or none', async () => {
    const issue = () =>
      issueApiKey(store, {
        orgId: ORG,
        role: 'ORG_MEMBER',
        description: 'issued elsewhere',
        realm: getConfig().DIGEST_REALM,
      });
    const before = (await store.listApiKeys()).length;
    try {
      // A CLI run missing the variable stored the key plain: a database copy granted it.
      setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
      await assert.rejects(issue(), Ha1SealingError);
      setConfigForTesting({ ORG_EVENTS_SECRET: OTHER_SECRET });
      await assert.rejects(issue(), Ha1SealingError);
    } finally {
      setConfigForTesting({ ORG_EVENTS_SECRET: SECRET });
    }
    assert.equal((await store.listApiKeys()).length, before, 'nothing stored');
    const issued = await issue();
    assert.match(issued.record.ha1Md5, /^enc1:/);
  });

  test("the server's start names keys stored unsealed while a secret is set", async () => {
    assert.equal(await unsealedKeysWarning(store), null, 'every key sealed');
    await store.createApiKey({
      id: newObjectId(),
      publicKey: 'plainkey',
      description: 'plain',
      created: Date.now(),
      disabled: false,
      realm: getConfig().DIGEST_REALM,
      ha1Md5: '0'.repeat(32),
      ha1Sha256: '0'.repeat(64),
    });
    assert.match(
      (await unsealedKeysWarning(store)) ?? '',
      /1 API key\(s\) are stored unsealed \(plainkey\)/,
    );
    // PostgreSQL's (no database file): the keys are not sealed at start there,
    // and the warning says why and gives the command that seals them.
    const postgres = { listApiKeys: () => store.listApiKeys(), databaseFile: null };
    const onPostgres = (await unsealedKeysWarning(postgres)) ?? '';
    assert.match(onPostgres, /1 API key\(s\) are stored unsealed \(plainkey\)/);
    assert.ok(
      onPostgres.includes('an instance still running without ORG_EVENTS_SECRET') &&
        onPostgres.includes(
          'Once every instance has ORG_EVENTS_SECRET, run `npx org-events keys rehash` with the same ORG_EVENTS_SECRET and DATABASE_URL',
        ),
      onPostgres,
    );
    setConfigForTesting({ ORG_EVENTS_SECRET: undefined });
    try {
      // Where the secret is kept in the database (PostgreSQL without
      // ORG_EVENTS_SECRET), nothing is sealed, and the server warns about that instead.
      const secretInDatabase = { listApiKeys: () => store.listApiKeys(), databaseFile: null };
      assert.equal(await unsealedKeysWarning(secretInDatabase), null);
      // A SQLite file's secret file seals: its plain keys are named.
      assert.match(
        (await unsealedKeysWarning(store)) ?? '',
        /1 API key\(s\) are stored unsealed \(plainkey\).*Run 'keys rehash', then/,
      );
    } finally {
      setConfigForTesting({ ORG_EVENTS_SECRET: SECRET });
    }
  });

  test('a rotation: a server set to the new secret with the old one as ORG_EVENTS_PREVIOUS_SECRET still authenticates keys sealed with the old one', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'rotation',
      realm: getConfig().DIGEST_REALM,
    });
    const key = { publicKey: record.publicKey, privateKey };
    try {
      setConfigForTesting({ ORG_EVENTS_SECRET: OTHER_SECRET, ORG_EVENTS_PREVIOUS_SECRET: SECRET });
      assert.equal(await digestAccepts(store, key), true, 'Digest, sealed with the previous');
      assert.equal(await signInAccepts(store, key), true, 'sign-in, sealed with the previous');
      await assertServesSealedKeys(store);
      // Without the previous secret, the new one alone opens nothing yet.
      setConfigForTesting({
        ORG_EVENTS_SECRET: OTHER_SECRET,
        ORG_EVENTS_PREVIOUS_SECRET: undefined,
      });
      assert.equal(await digestAccepts(store, key), false, 'Digest, new secret alone');
      await assert.rejects(assertServesSealedKeys(store), Ha1SealingError);
    } finally {
      setConfigForTesting({ ORG_EVENTS_SECRET: SECRET, ORG_EVENTS_PREVIOUS_SECRET: undefined });
    }
  });
});

describe('sealing plain keys at open (SQLite)', () => {
  let dir: string;
  let store: EventStore;
  const original = getConfig().ORG_EVENTS_SECRET;
  const plainKey = (publicKey: string) =>
    store.createApiKey({
      id: newObjectId(),
      publicKey,
      description: 'plain',
      created: Date.now(),
      disabled: false,
      realm: getConfig().DIGEST_REALM,
      ha1Md5: '1'.repeat(32),
      ha1Sha256: '2'.repeat(64),
    });
  const sealedOf = async (publicKey: string) =>
    isSealedHa1((await store.getApiKeyByPublicKey(publicKey))?.ha1Md5 ?? '');

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-seal-at-open-'));
    setConfigForTesting({ ORG_EVENTS_SECRET: OTHER_SECRET });
    store = await openStore(`file:${path.join(dir, 'keys.db')}`);
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
  });
  after(async () => {
    await store.close();
    setConfigForTesting({ ORG_EVENTS_SECRET: original });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a CLI run seals only with a secret shown to be the servers', a server with its own", async () => {
    await plainKey('plainone');
    // Every key plain: nothing shows ORG_EVENTS_SECRET is the servers' value.
    assert.deepEqual(await sealPlainKeys(store, { servesWithSecret: false }), []);
    assert.equal(await sealedOf('plainone'), false);
    // A server seals with the secret it serves with.
    assert.deepEqual(await sealPlainKeys(store, { servesWithSecret: true }), ['plainone']);
    assert.equal(await sealedOf('plainone'), true);
    // Now a sealed key opens with it: a CLI run with the same value seals the next plain one…
    await plainKey('plaintwo');
    assert.deepEqual(await sealPlainKeys(store, { servesWithSecret: false }), ['plaintwo']);
    // …and one with another value seals nothing, nor does a server (it refuses to start then).
    await plainKey('plainthree');
    setConfigForTesting({ ORG_EVENTS_SECRET: SECRET });
    try {
      assert.deepEqual(await sealPlainKeys(store, { servesWithSecret: false }), []);
      assert.deepEqual(await sealPlainKeys(store, { servesWithSecret: true }), []);
      assert.equal(await sealedOf('plainthree'), false);
    } finally {
      setConfigForTesting({ ORG_EVENTS_SECRET: OTHER_SECRET });
    }
  });
});
