import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getConfig } from '@/lib/config';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { issueApiKey } from './api-keys';
import { signIn } from './dashboard-session';
import { serverKeys } from './keys';
import {
  clearSessionCookieHeaders,
  readSession,
  sealSession,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  sessionCookieHeader,
  sessionCookieValue,
  sessionCookieValues,
} from './session';

const ORG = '5f0000000000000000000001';

/** A sealed cookie with one byte flipped at `offset` of its decoded bytes. */
function flipByte(sealed: string, offset: number): string {
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[offset] = bytes[offset]! ^ 0x01;
  return bytes.toString('base64url');
}

function cookieValue(setCookie: string): string {
  const first = setCookie.split(';')[0]!;
  assert.ok(first.startsWith(`${SESSION_COOKIE}=`));
  return first.slice(SESSION_COOKIE.length + 1);
}

describe('lib/auth/dashboard-session', () => {
  let store: EventStore;
  const realm = getConfig().DIGEST_REALM;

  before(async () => {
    store = await openStore(':memory:');
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
  });
  after(() => store.close());

  it('exchanges a correct key for a sealed, HttpOnly, SameSite=Strict cookie without the private key', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const outcome = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '127.0.0.1',
      secure: false,
    });
    assert.ok(outcome.ok);
    assert.match(outcome.cookie, /; HttpOnly; SameSite=Strict$/);
    assert.match(outcome.cookie, /Max-Age=\d+/);
    assert.ok(!outcome.cookie.includes(privateKey));
    const principal = await readSession(store, cookieValue(outcome.cookie));
    assert.deepEqual(principal, {
      apiKeyId: record.id,
      publicKey: record.publicKey,
      via: 'session',
    });

    const secure = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '127.0.0.1',
      secure: true,
    });
    assert.ok(secure.ok && secure.cookie.endsWith('; Secure'));
  });

  it('refuses a wrong or missing key with a clear message, and a disabled key alike', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const wrong = await signIn(store, {
      publicKey: record.publicKey,
      privateKey: `${privateKey}x`,
      remoteAddress: '10.0.0.1',
      secure: false,
    });
    assert.deepEqual(wrong.ok ? null : [wrong.error.status, wrong.error.code], [
      401,
      'INVALID_CREDENTIALS',
    ]);
    const empty = await signIn(store, {
      publicKey: '',
      privateKey: 7,
      remoteAddress: undefined,
      secure: false,
    });
    assert.deepEqual(empty.ok ? null : [empty.error.status, empty.error.code], [
      400,
      'MISSING_CREDENTIALS',
    ]);

    const before = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '10.0.0.1',
      secure: false,
    });
    assert.ok(before.ok);
    await store.setApiKeyDisabled(record.publicKey, true);
    const disabled = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '10.0.0.1',
      secure: false,
    });
    assert.equal(disabled.ok, false);
    // A session issued before the key was disabled stops working too.
    assert.equal(await readSession(store, cookieValue(before.cookie)), null);
  });

  it('throttles repeated failures like Digest, even for the right key afterwards', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const now = Date.now();
    let last;
    for (let attempt = 0; attempt < 10; attempt++) {
      last = await signIn(
        store,
        {
          publicKey: record.publicKey,
          privateKey: 'guess',
          remoteAddress: `10.1.0.${attempt}`,
          secure: false,
        },
        now,
      );
    }
    assert.equal(last?.ok, false);
    const blocked = await signIn(
      store,
      { publicKey: record.publicKey, privateKey, remoteAddress: '10.2.0.1', secure: false },
      now + 1000,
    );
    assert.ok(!blocked.ok);
    assert.equal(blocked.error.status, 429);
    assert.equal(blocked.error.code, 'RATE_LIMITED');
    const retryAfter = blocked.error.headers.find(([name]) => name === 'Retry-After')?.[1];
    assert.ok(Number(retryAfter) > 0);
  });

  it('refuses forged, tampered, truncated, expired and orphaned cookies, and accepts the real one', async () => {
    const { record } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const principal = { apiKeyId: record.id, publicKey: record.publicKey };
    const { session: key } = await serverKeys(store);
    const ttl = getConfig().SESSION_TTL_SECONDS;
    const real = sealSession(key, principal, ttl);
    // Sealed with the right key, its TTL plus an hour ago: it expired an hour ago.
    const sealedAt = Date.now() - (ttl + 3600) * 1000;
    const expired = sealSession(key, principal, ttl, sealedAt);

    // The untouched cookies open (the expired one while it was fresh), so
    // every refusal below is the tampering's, or the clock's, doing.
    assert.deepEqual(await readSession(store, real), { ...principal, via: 'session' });
    assert.deepEqual(await readSession(store, expired, sealedAt + 1000), {
      ...principal,
      via: 'session',
    });

    // Layout of a sealed cookie: IV (12 bytes) || GCM tag (16) || ciphertext.
    const refused: Record<string, string | undefined> = {
      absent: undefined,
      junk: 'not-a-session',
      'sealed with another key': sealSession(randomBytes(32), principal, ttl),
      'one IV byte flipped': flipByte(real, 0),
      'one tag byte flipped': flipByte(real, 12),
      'one ciphertext byte flipped': flipByte(real, 28),
      'last ciphertext byte flipped': flipByte(real, Buffer.from(real, 'base64url').length - 1),
      'truncated by one byte': Buffer.from(real, 'base64url').subarray(0, -1).toString('base64url'),
      'truncated to IV and tag': Buffer.from(real, 'base64url')
        .subarray(0, 28)
        .toString('base64url'),
      expired,
      'naming a key the store does not have (as after deletion)': sealSession(
        key,
        { apiKeyId: '5f00000000000000000000ff', publicKey: 'zzzzzzzz' },
        ttl,
      ),
      'naming the public key with another key id': sealSession(
        key,
        { apiKeyId: '5f00000000000000000000fe', publicKey: record.publicKey },
        ttl,
      ),
    };
    for (const [what, cookie] of Object.entries(refused)) {
      assert.equal(await readSession(store, cookie), null, what);
    }

    // The same real cookie, once its key is disabled.
    await store.setApiKeyDisabled(record.publicKey, true);
    assert.equal(await readSession(store, real), null, 'key disabled');
  });

  it('finds the session cookie among the others in a Cookie header', () => {
    for (const secure of [false, true]) {
      const name = secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
      assert.equal(sessionCookieValue(`theme=dark; ${name}=abc; x=1`, secure), 'abc');
      assert.equal(sessionCookieValue(`${name}x=abc`, secure), undefined);
      assert.equal(sessionCookieValue('theme=dark', secure), undefined);
      assert.equal(sessionCookieValue(null, secure), undefined);
    }
  });

  it('over HTTPS the cookie is __Host- prefixed (Secure, Path=/, no Domain) and only that one is read, where an unprefixed one can be planted; over HTTP the unprefixed one is read; signing out clears both', () => {
    assert.match(
      sessionCookieHeader('v', 60, true),
      /^__Host-org_events_session=v; Path=\/; Max-Age=60; HttpOnly; SameSite=Strict; Secure$/,
    );
    // Plain http (localhost): browsers refuse __Host- without Secure.
    assert.match(sessionCookieHeader('v', 60, false), /^org_events_session=v; Path=\//);
    assert.equal(sessionCookieValue('org_events_session=old', false), 'old');
    assert.equal(sessionCookieValue('org_events_session=planted', true), undefined);
    const both = 'org_events_session=planted; __Host-org_events_session=own';
    assert.equal(sessionCookieValue(both, true), 'own');
    assert.equal(sessionCookieValue(both, false), 'own');
    // Sign-out ends every session sent, the prefixed one first.
    assert.deepEqual(sessionCookieValues(both), ['own', 'planted']);
    assert.deepEqual(
      clearSessionCookieHeaders(true).map((c) => c.split(';')[0]),
      ['__Host-org_events_session=', 'org_events_session='],
    );
    assert.deepEqual(
      clearSessionCookieHeaders(false).map((c) => c.split(';')[0]),
      ['org_events_session='],
    );
  });
});
