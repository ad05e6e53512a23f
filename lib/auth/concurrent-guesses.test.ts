import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getConfig } from '@/lib/config';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { twoInstances } from '../../tests/helpers/redis';
import { authorizationHeader, parseChallenge } from '../../tests/helpers/digest-client';
import { issueApiKey } from './api-keys';
import { authenticate, type AuthResult } from './authenticate';
import { signIn } from './dashboard-session';
import type { RedisAuthState } from './redis-state';
import { adoptAuthState, memoryAuthState, type AuthState } from './shared-state';
import { FailureThrottle } from './throttle';

const ORG = '5f00000000000000000000c7';
const URI = '/api/public/v1.0/orgs';
/** The per-key limit (throttle.ts's DEFAULT_THROTTLE_POLICY). */
const KEY_LIMIT = 10;
const WRONG = 25;

/**
 * Guesses sent together all pass the throttle's first check before any of
 * their failures is counted; the outcome of each must still be decided
 * against the limit, or a guesser learns the outcome of as many guesses as
 * it can send at once (a review found 119 evaluated, the correct one
 * accepted, across two instances).
 */
describe('guesses sent together get no more answers than the limit', () => {
  let store: EventStore;
  const realm = getConfig().DIGEST_REALM;

  before(async () => {
    store = await openStore(':memory:');
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
  });
  after(async () => {
    adoptAuthState(undefined);
    await store.close();
  });

  async function freshKey(): Promise<{ publicKey: string; privateKey: string }> {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'guessed',
      realm,
    });
    return { publicKey: record.publicKey, privateKey };
  }

  /** WRONG guesses and the right answer (last), all in one tick; states alternate like instances. */
  async function digestVolley(states: AuthState[], address: string): Promise<AuthResult[]> {
    const key = await freshKey();
    const request = (authorization?: string) => ({
      method: 'GET',
      url: URI,
      headers: new Headers(authorization ? { authorization } : {}),
      remoteAddress: address,
    });
    adoptAuthState(states[0]);
    const first = await authenticate(request(), store);
    assert.ok('challenge' in first);
    const nonce = parseChallenge(first.challenge.wwwAuthenticate).nonce;
    const header = (password: string, nc: number) =>
      authorizationHeader({
        username: key.publicKey,
        password,
        realm,
        nonce,
        method: 'GET',
        uri: URI,
        nc,
      });
    const headers = [
      ...Array.from({ length: WRONG }, (_, i) => header(`wrong-${i}`, i + 1)),
      header(key.privateKey, WRONG + 1),
    ];
    return Promise.all(
      headers.map((h, i) => {
        // Each call reads the state adopted when it runs: adopt, then start.
        adoptAuthState(states[i % states.length]);
        return authenticate(request(h), store);
      }),
    );
  }

  function tally(results: AuthResult[]) {
    const wrong = results
      .slice(0, WRONG)
      .filter((r) => 'challenge' in r && r.challenge.reason === 'wrong response').length;
    const throttled = results.slice(0, WRONG).filter((r) => 'throttled' in r).length;
    return { wrong, throttled, right: results[WRONG]! };
  }

  test('in memory: at most the limit answered as wrong, the rest and the right answer throttled', async () => {
    const { wrong, throttled, right } = tally(
      await digestVolley([memoryAuthState()], '192.0.2.71'),
    );
    assert.equal(wrong, KEY_LIMIT);
    assert.equal(throttled, WRONG - KEY_LIMIT);
    assert.ok(
      'throttled' in right,
      `the right answer came after the block: ${JSON.stringify(right)}`,
    );
  });

  test('sign-in: sign-ins sent together are throttled alike', async () => {
    adoptAuthState(memoryAuthState());
    const key = await freshKey();
    const outcomes = await Promise.all([
      ...Array.from({ length: WRONG }, (_, i) =>
        signIn(store, {
          publicKey: key.publicKey,
          privateKey: `wrong-${i}`,
          remoteAddress: '192.0.2.72',
          secure: false,
        }),
      ),
      signIn(store, { ...key, remoteAddress: '192.0.2.72', secure: false }),
    ]);
    const codes = outcomes.map((o) => (o.ok ? 'OK' : o.error.code));
    assert.equal(
      codes.slice(0, WRONG).filter((c) => c === 'RATE_LIMITED').length,
      WRONG - KEY_LIMIT,
    );
    assert.equal(codes[WRONG], 'RATE_LIMITED');
  });

  test('a failure recorded while already blocked counts nothing and says blocked', () => {
    const throttle = new FailureThrottle();
    const t0 = Date.UTC(2026, 0, 1);
    for (let i = 0; i < KEY_LIMIT - 1; i++) {
      assert.equal(throttle.recordFailure(['key:k'], t0).blocked, false);
    }
    assert.equal(
      throttle.recordFailure(['key:k'], t0).blocked,
      false,
      'the limit-th failure is answered',
    );
    const late = throttle.recordFailure(['key:k'], t0 + 1000);
    assert.deepEqual(late, { blocked: true, retryAfterSeconds: 59 });
    // Not counted: once the first block ends, a full budget remains (no second strike yet).
    const after = t0 + 61_000;
    for (let i = 0; i < KEY_LIMIT - 1; i++) throttle.recordFailure(['key:k'], after);
    assert.equal(throttle.check(['key:k'], after).blocked, false);
  });

  describe('two instances sharing Redis', () => {
    let a: RedisAuthState;
    let b: RedisAuthState;
    let closeBoth: () => Promise<void>;

    before(async () => {
      ({ a, b, close: closeBoth } = await twoInstances('guesses'));
    });
    after(async () => {
      adoptAuthState(undefined);
      await closeBoth();
    });

    test('at most the limit answered as wrong across both, the right answer throttled', async () => {
      // Each instance counts the guesses it checked, to show both took some.
      // (Counting the failures each recorded failed under load: the guesses
      // of an instance whose Redis answered later all met the block.)
      const checked = { a: 0, b: 0 };
      const counting = (state: RedisAuthState, name: 'a' | 'b'): RedisAuthState => ({
        ...state,
        throttle: {
          ...state.throttle,
          check: (keys, now) => {
            checked[name]++;
            return state.throttle.check(keys, now);
          },
        },
      });
      const { wrong, throttled, right } = tally(
        await digestVolley([counting(a, 'a'), counting(b, 'b')], '192.0.2.73'),
      );
      assert.ok(checked.a > 0 && checked.b > 0, `both instances: ${JSON.stringify(checked)}`);
      assert.equal(wrong, KEY_LIMIT);
      assert.equal(throttled, WRONG - KEY_LIMIT);
      assert.ok(
        'throttled' in right,
        `the right answer came after the block: ${JSON.stringify(right)}`,
      );
    });
  });
});
