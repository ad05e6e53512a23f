import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { checkNonce, getNonceCounterTable, issueNonce, NonceCounterTable } from './nonce';

const key = randomBytes(32);
const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('stateless nonces', () => {
  test('32 base64url characters, new every time', () => {
    const a = issueNonce(key, t0);
    const b = issueNonce(key, t0);
    assert.match(a, /^[A-Za-z0-9_-]{32}$/);
    assert.notEqual(a, b);
  });

  test('valid within the TTL, stale after it, for any instance with the same key', () => {
    const nonce = issueNonce(key, t0);
    assert.deepEqual(checkNonce(Buffer.from(key), nonce, 300, t0 + 299_000), {
      status: 'valid',
      issuedAt: t0,
    });
    assert.deepEqual(checkNonce(key, nonce, 300, t0 + 301_000), { status: 'stale', issuedAt: t0 });
  });

  test('forged, tampered, foreign-key, far-future and malformed nonces are invalid', () => {
    const nonce = issueNonce(key, t0);
    const bytes = Buffer.from(nonce, 'base64url');
    bytes[0]! ^= 1; // move the timestamp
    assert.equal(checkNonce(key, bytes.toString('base64url'), 300, t0).status, 'invalid');
    assert.equal(checkNonce(randomBytes(32), nonce, 300, t0).status, 'invalid');
    assert.equal(checkNonce(key, issueNonce(key, t0 + 3_600_000), 300, t0).status, 'invalid');
    for (const bad of ['', 'abc', `${nonce}A`, nonce.replace(/./, '+'), '!'.repeat(32)]) {
      assert.equal(checkNonce(key, bad, 300, t0).status, 'invalid', bad);
    }
  });
});

describe('NonceCounterTable', () => {
  test('the first nc may be anything; afterwards nc must grow', () => {
    const table = new NonceCounterTable();
    assert.equal(table.accept('n1', t0, 7, 300, t0), 'ok');
    assert.equal(table.accept('n1', t0, 7, 300, t0), 'replay');
    assert.equal(table.accept('n1', t0, 3, 300, t0), 'replay');
    assert.equal(table.accept('n1', t0, 8, 300, t0), 'ok');
    assert.equal(table.accept('n2', t0, 1, 300, t0), 'ok', 'counts are per nonce');
  });

  test('expired entries are swept; a full table evicts and then distrusts older nonces', () => {
    const table = new NonceCounterTable(3);
    table.accept('old', t0, 1, 300, t0);
    table.accept('a', t0 + 400_000, 1, 300, t0 + 400_000);
    assert.equal(table.size, 1, 'the expired nonce was swept');

    table.accept('b', t0 + 401_000, 1, 300, t0 + 401_000);
    table.accept('c', t0 + 402_000, 1, 300, t0 + 402_000);
    assert.equal(table.accept('d', t0 + 403_000, 1, 300, t0 + 403_000), 'ok');
    assert.equal(table.size, 3, 'bounded');
    // 'a' was evicted: replaying it must not look like a first use.
    assert.equal(table.accept('a', t0 + 400_000, 1, 300, t0 + 404_000), 'unknown');
    // A nonce issued after the evicted one is still tracked normally.
    assert.equal(table.accept('e', t0 + 404_000, 1, 300, t0 + 404_000), 'ok');
  });

  test('a nonce issued before knownSince (before a restart) is unknown whatever its nc, one issued since is tracked', () => {
    // Before, a request captured within a nonce's lifetime before a restart
    // was accepted once more after it: the new table had never seen its nc.
    const table = new NonceCounterTable(100, t0);
    assert.equal(table.accept('before', t0 - 1000, 1, 300, t0 + 1000), 'unknown');
    assert.equal(table.accept('before', t0 - 1000, 99, 300, t0 + 1000), 'unknown');
    assert.equal(table.accept('after', t0 + 1, 1, 300, t0 + 1000), 'ok');
    assert.equal(table.accept('after', t0 + 1, 1, 300, t0 + 1000), 'replay');
  });

  test("the process table knows only nonces issued after the process's start", () => {
    const table = getNonceCounterTable();
    const now = Date.now();
    const started = now - process.uptime() * 1000;
    assert.equal(table.accept('before-the-start', started - 1000, 1, 86_400, now), 'unknown');
    assert.equal(table.accept('since-the-start', now, 1, 86_400, now), 'ok');
  });

  test('one table per process, shared through globalThis', () => {
    assert.equal(getNonceCounterTable(), getNonceCounterTable());
    const holder = globalThis as Record<symbol, unknown>;
    assert.equal(holder[Symbol.for('org-events.digest-nonce-counters')], getNonceCounterTable());
  });
});
