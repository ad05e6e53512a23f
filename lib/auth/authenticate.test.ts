import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getConfig } from '@/lib/config';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { authorizationHeader, parseChallenge } from '../../tests/helpers/digest-client';
import { issueApiKey } from './api-keys';
import { authenticate } from './authenticate';
import { adoptAuthState, memoryAuthState } from './shared-state';
import {
  attemptThrottleKeys,
  FailureThrottle,
  getAuthThrottle,
  MAX_THROTTLED_PUBLIC_KEY,
} from './throttle';

const URI = '/api/public/v1.0/orgs';
/** Failures an address may make (throttle.ts's DEFAULT_THROTTLE_POLICY). */
const ADDRESS_LIMIT = 30;

let store: EventStore;
before(async () => {
  store = await openStore(':memory:');
  adoptAuthState(memoryAuthState());
});
after(async () => {
  adoptAuthState(undefined);
  await store.close();
});

test('a name no key could have gets no throttle counter of its own; its failures count for the address', () => {
  assert.deepEqual(attemptThrottleKeys('abcdefgh', '192.0.2.1'), ['key:abcdefgh', 'ip:192.0.2.1']);
  assert.deepEqual(attemptThrottleKeys('x'.repeat(MAX_THROTTLED_PUBLIC_KEY + 1), '192.0.2.1'), [
    'ip:192.0.2.1',
  ]);
});

test('failed Digest requests with huge usernames hold no memory per username, and the address is still throttled', async () => {
  const realm = getConfig().DIGEST_REALM;
  const address = '198.51.100.77';
  const request = (authorization?: string) => ({
    method: 'GET',
    url: URI,
    headers: new Headers(authorization ? { authorization } : {}),
    remoteAddress: address,
  });
  const first = await authenticate(request(), store);
  assert.ok('challenge' in first);
  const nonce = parseChallenge(first.challenge.wwwAuthenticate).nonce;
  const throttle = getAuthThrottle();
  assert.ok(throttle instanceof FailureThrottle);
  const counters = throttle.size;
  const outcomes = [];
  for (let i = 0; i < ADDRESS_LIMIT + 1; i++) {
    const username = `${i}-`.padEnd(10_000, 'u');
    const header = authorizationHeader({
      username,
      password: 'wrong',
      realm,
      nonce,
      method: 'GET',
      uri: URI,
      nc: i + 1,
    });
    outcomes.push(await authenticate(request(header), store));
  }
  // Before, each username was a counter of its own: 31 more, each holding its 10 KB name.
  assert.ok(throttle.size <= counters + 1, `${throttle.size - counters} more`);
  assert.ok(outcomes.slice(0, ADDRESS_LIMIT).every((outcome) => 'challenge' in outcome));
  assert.ok('throttled' in outcomes[ADDRESS_LIMIT]!, JSON.stringify(outcomes[ADDRESS_LIMIT]));
});

test('a uri holding `\\\\` (a filter value escaping a backslash) as curl sends it, verbatim, is accepted', async () => {
  const realm = getConfig().DIGEST_REALM;
  const orgId = '5f00000000000000000000d1';
  const { record, privateKey } = await issueApiKey(store, {
    orgId,
    role: 'ORG_MEMBER',
    description: 'backslash',
    realm,
  });
  // What curl, Python requests and Go put on the wire: the URL as typed.
  const target = `/api/public/v1.0/orgs/${orgId}/events?username=DOMAIN\\\\alice`;
  const request = (authorization?: string) => ({
    method: 'GET',
    url: target,
    headers: new Headers(authorization ? { authorization } : {}),
    remoteAddress: '198.51.100.91',
  });
  const first = await authenticate(request(), store);
  assert.ok('challenge' in first);
  const nonce = parseChallenge(first.challenge.wwwAuthenticate).nonce;
  const header = authorizationHeader({
    username: record.publicKey,
    password: privateKey,
    realm,
    nonce,
    method: 'GET',
    uri: target,
    nc: 1,
  });
  const outcome = await authenticate(request(header), store);
  assert.ok('principal' in outcome, JSON.stringify(outcome));
  // The same answer for another request is still refused.
  const elsewhere = await authenticate(
    { ...request(header), url: `/api/public/v1.0/orgs/${orgId}/events?username=DOMAIN\\alice` },
    store,
  );
  assert.ok('challenge' in elsewhere);
});
