import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getConfig } from '@/lib/config';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { CLOSED_REDIS_URL, twoInstances } from '../../tests/helpers/redis';
import { issueApiKey } from './api-keys';
import { authenticate } from './authenticate';
import { signIn, signOut } from './dashboard-session';
import { createRedisAuthState, type RedisAuthState } from './redis-state';
import { readSession, SESSION_COOKIE, signOutEverywhere } from './session';
import { adoptAuthState } from './shared-state';
import { authorizationHeader, parseChallenge } from '../../tests/helpers/digest-client';

const ORG = '5f00000000000000000000c3';

describe('sign-out ends sessions', () => {
  let store: EventStore;
  const keys: { publicKey: string; privateKey: string; apiKeyId: string }[] = [];
  const realm = getConfig().DIGEST_REALM;

  /** A fresh session cookie value for key `i`. */
  async function session(i: number): Promise<string> {
    const outcome = await signIn(store, {
      ...keys[i]!,
      remoteAddress: '192.0.2.20',
      secure: false,
    });
    assert.ok(outcome.ok, 'signed in');
    const pair = outcome.cookie.split(';')[0]!;
    return pair.slice(SESSION_COOKIE.length + 1);
  }

  before(async () => {
    store = await openStore(':memory:');
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
    for (let i = 0; i < 2; i++) {
      const { record, privateKey } = await issueApiKey(store, {
        orgId: ORG,
        role: 'ORG_MEMBER',
        description: `k${i}`,
        realm,
      });
      keys.push({ publicKey: record.publicKey, privateKey, apiKeyId: record.id });
    }
  });
  after(() => store.close());

  test('one instance (in memory): the cookie is refused after sign-out', async () => {
    const cookie = await session(0);
    const other = await session(0);
    assert.equal((await readSession(store, cookie))?.publicKey, keys[0]!.publicKey);
    const outcome = await signOut(store, { sealed: cookie, everywhere: false, secure: false });
    assert.ok(outcome.ok);
    assert.match(outcome.cookies.join('\n'), new RegExp(`^${SESSION_COOKIE}=; Path=/; Max-Age=0`));
    assert.equal(await readSession(store, cookie), null, 'signed-out cookie');
    assert.equal((await readSession(store, other))?.publicKey, keys[0]!.publicKey, 'other one');
  });

  test("sign-out everywhere voids every earlier session of that key, not another key's nor later ones", async () => {
    const first = await session(0);
    const second = await session(0);
    const otherKey = await session(1);
    const outcome = await signOut(store, { sealed: first, everywhere: true, secure: false });
    assert.ok(outcome.ok);
    assert.equal(await readSession(store, first), null);
    assert.equal(await readSession(store, second), null);
    assert.equal((await readSession(store, otherKey))?.publicKey, keys[1]!.publicKey);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = await session(0);
    assert.equal(
      (await readSession(store, later))?.publicKey,
      keys[0]!.publicKey,
      'signed in again',
    );

    // The function operators' tools call, without a cookie.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await signOutEverywhere(keys[1]!.apiKeyId);
    assert.equal(await readSession(store, otherKey), null);
    assert.equal((await readSession(store, later))?.publicKey, keys[0]!.publicKey);

    // Everywhere needs a live session to name the key.
    const refused = await signOut(store, { sealed: first, everywhere: true, secure: false });
    assert.ok(!refused.ok && refused.error.status === 401);
  });

  describe('two instances sharing Redis', () => {
    let a: RedisAuthState;
    let b: RedisAuthState;
    let prefix: string;
    let closeBoth: () => Promise<void>;
    before(async () => {
      ({ a, b, prefix, close: closeBoth } = await twoInstances('sessions'));
    });
    after(async () => {
      adoptAuthState(undefined);
      await closeBoth();
    });

    test('a session signed out on one instance is refused by the other', async () => {
      adoptAuthState(a);
      const cookie = await session(1);
      adoptAuthState(b);
      assert.equal((await readSession(store, cookie))?.publicKey, keys[1]!.publicKey);
      assert.ok((await signOut(store, { sealed: cookie, everywhere: false, secure: false })).ok);
      adoptAuthState(a);
      assert.equal(await readSession(store, cookie), null);
    });

    test("sign-out everywhere on one instance voids the key's sessions on the other", async () => {
      adoptAuthState(a);
      const one = await session(0);
      const two = await session(0);
      const otherKey = await session(1);
      adoptAuthState(b);
      assert.ok((await signOut(store, { sealed: one, everywhere: true, secure: false })).ok);
      adoptAuthState(a);
      assert.equal(await readSession(store, one), null);
      assert.equal(await readSession(store, two), null);
      assert.equal((await readSession(store, otherKey))?.publicKey, keys[1]!.publicKey);
    });

    test('a Digest request accepted by one instance is refused when replayed on the other', async () => {
      const uri = '/api/public/v1.0/orgs';
      const request = (authorization?: string) => ({
        method: 'GET',
        url: uri,
        headers: new Headers(authorization ? { authorization } : {}),
        remoteAddress: '192.0.2.30',
      });
      adoptAuthState(a);
      const first = await authenticate(request(), store);
      assert.ok('challenge' in first);
      const header = authorizationHeader({
        username: keys[0]!.publicKey,
        password: keys[0]!.privateKey,
        realm,
        nonce: parseChallenge(first.challenge.wwwAuthenticate).nonce,
        method: 'GET',
        uri,
        nc: 1,
      });
      assert.ok('principal' in (await authenticate(request(header), store)), 'accepted on a');
      adoptAuthState(b);
      const replayed = await authenticate(request(header), store);
      assert.ok('challenge' in replayed && replayed.challenge.reason.includes('nonce count'));
    });

    test('Redis down: sessions, Digest and sign-in fail closed with 503, never accepted; a sign-out that cannot be recorded keeps the cookie', async () => {
      const down = createRedisAuthState({ url: CLOSED_REDIS_URL, keyPrefix: prefix });
      const originalError = console.error;
      console.error = () => {};
      try {
        adoptAuthState(a);
        const cookie = await session(0);
        adoptAuthState(down);
        await assert.rejects(readSession(store, cookie), { code: 'SERVICE_UNAVAILABLE' });
        const viaCookie = authenticate(
          {
            method: 'GET',
            url: '/api/public/v1.0/orgs',
            headers: new Headers({ cookie: `${SESSION_COOKIE}=${cookie}` }),
          },
          store,
        );
        await assert.rejects(viaCookie, { code: 'SERVICE_UNAVAILABLE', status: 503 });

        const uri = '/api/public/v1.0/orgs';
        const challenge = await authenticate(
          { method: 'GET', url: uri, headers: new Headers() },
          store,
        );
        assert.ok('challenge' in challenge);
        const header = authorizationHeader({
          username: keys[0]!.publicKey,
          password: keys[0]!.privateKey,
          realm,
          nonce: parseChallenge(challenge.challenge.wwwAuthenticate).nonce,
          method: 'GET',
          uri,
          nc: 1,
        });
        const digest = authenticate(
          { method: 'GET', url: uri, headers: new Headers({ authorization: header }) },
          store,
        );
        await assert.rejects(digest, { code: 'SERVICE_UNAVAILABLE', status: 503 });

        const signedIn = await signIn(store, {
          ...keys[0]!,
          remoteAddress: '192.0.2.21',
          secure: false,
        });
        assert.ok(!signedIn.ok && signedIn.error.status === 503);
        assert.ok(!signedIn.ok && signedIn.error.headers.some(([name]) => name === 'Retry-After'));
        const signedOut = await signOut(store, {
          sealed: cookie,
          everywhere: false,
          secure: false,
        });
        assert.ok(!signedOut.ok && signedOut.error.status === 503);
        // Not signed out anywhere: the browser keeps its cookie, to see that and sign out again.
        assert.equal(signedOut.cookies, undefined);
        adoptAuthState(a);
        assert.equal((await readSession(store, cookie))?.publicKey, keys[0]!.publicKey);
        assert.ok((await signOut(store, { sealed: cookie, everywhere: false, secure: false })).ok);
        assert.equal(await readSession(store, cookie), null);
      } finally {
        console.error = originalError;
        await down.close();
      }
    });
  });
});
