import assert from 'node:assert/strict';
import { getLogger } from '@/lib/ops/log';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '@/lib/domain/errors';
import { Redis } from 'ioredis';
import { CLOSED_REDIS_URL, startPrivateRedis, twoInstances } from '../../tests/helpers/redis';
import { createRedisAuthState, type RedisAuthState } from './redis-state';
import { MemorySessionRevocations } from './shared-state';
import { FailureThrottle } from './throttle';

/**
 * The Redis-backed authentication state against the real Redis, as two
 * server instances would use it: two independent states, each with its own
 * client, on one key prefix.
 */

const t0 = 1_800_000_000_000;
const MIN = 60_000;

async function rejectsUnavailable(promise: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(
    promise,
    (error: unknown) =>
      error instanceof ApiError &&
      error.status === 503 &&
      error.code === 'SERVICE_UNAVAILABLE' &&
      error.headers.some(([name, value]) => name === 'Retry-After' && Number(value) > 0),
    what,
  );
}

describe('Redis authentication state shared by two instances', () => {
  let a: RedisAuthState;
  let b: RedisAuthState;
  let prefix: string;
  let closeBoth: () => Promise<void>;

  before(async () => {
    ({ a, b, prefix, close: closeBoth } = await twoInstances('auth-state'));
  });
  after(() => closeBoth());

  test('a (nonce, nc) accepted on one instance is refused on the other; nc must grow', async () => {
    const now = Date.now();
    const nonce = 'nonce-one';
    assert.equal(await a.nonceCounts.accept(nonce, now, 1, 300, now), 'ok');
    assert.equal(await b.nonceCounts.accept(nonce, now, 1, 300, now), 'replay', 'same nc on b');
    assert.equal(await b.nonceCounts.accept(nonce, now, 3, 300, now), 'ok', 'higher nc on b');
    assert.equal(await a.nonceCounts.accept(nonce, now, 2, 300, now), 'replay', 'lower nc on a');
    assert.equal(await a.nonceCounts.accept(nonce, now, 3, 300, now), 'replay');
    assert.equal(await a.nonceCounts.accept('nonce-two', now, 1, 300, now), 'ok', 'another nonce');
    // The count lives as long as its nonce (plus the clock skew allowance), no longer.
    const ttl = await a.client.pttl(`${prefix}nc:${nonce}`);
    assert.ok(ttl > 300_000 && ttl <= 360_000, `ttl ${ttl}`);
  });

  test('twenty concurrent uses of one (nonce, nc) on both instances: exactly one is accepted', async () => {
    const now = Date.now();
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).nonceCounts.accept('raced', now, 7, 300, now),
      ),
    );
    assert.equal(verdicts.filter((v) => v === 'ok').length, 1, verdicts.join(','));
  });

  test('ten failures spread over both instances lock the key on both, like the in-memory throttle', async () => {
    const key = 'key:spread';
    for (let i = 0; i < 9; i++) {
      await (i % 2 ? a : b).throttle.recordFailure([key, 'ip:198.51.100.1'], t0 + i * 1000);
    }
    assert.deepEqual(await a.throttle.check([key], t0 + 9000), {
      blocked: false,
      retryAfterSeconds: 0,
    });
    await b.throttle.recordFailure([key, 'ip:198.51.100.1'], t0 + 9000);
    for (const instance of [a, b]) {
      assert.deepEqual(await instance.throttle.check([key, 'ip:198.51.100.9'], t0 + 10_000), {
        blocked: true,
        retryAfterSeconds: 59,
      });
    }
    assert.equal((await a.throttle.check(['key:other'], t0 + 10_000)).blocked, false);
    assert.equal((await b.throttle.check([key], t0 + 9000 + MIN + 1)).blocked, false, 'ends');
  });

  test('same windows, limits, back-off and forgiveness as FailureThrottle, step for step', async () => {
    const memory = new FailureThrottle();
    const keys = ['key:mirror', 'ip:203.0.113.5'];
    const steps: { at: number; op: 'fail' | 'succeed' | 'check'; keys: string[] }[] = [];
    let at = t0;
    // Three rounds of ten failures (blocks of 1, 2, 4 minutes), a quiet period
    // that resets strikes, failures spread past the window, a success in the middle.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 10; i++) steps.push({ at: (at += 1000), op: 'fail', keys });
      steps.push({ at: (at += 1000), op: 'check', keys });
      at += 5 * MIN;
      steps.push({ at, op: 'check', keys });
    }
    steps.push({ at: (at += 25 * MIN), op: 'check', keys });
    for (let i = 0; i < 5; i++) steps.push({ at: (at += 2 * MIN), op: 'fail', keys: [keys[0]!] });
    steps.push({ at: (at += 1000), op: 'succeed', keys: [keys[0]!] });
    for (let i = 0; i < 9; i++) steps.push({ at: (at += 1000), op: 'fail', keys: [keys[0]!] });
    steps.push({ at: (at += 1000), op: 'check', keys: [keys[0]!] });
    steps.push({ at: (at += 1000), op: 'fail', keys: [keys[0]!] });
    steps.push({ at: (at += 1000), op: 'check', keys: [keys[0]!] });
    for (let i = 0; i < 30; i++) steps.push({ at: (at += 100), op: 'fail', keys: [`ip:x${i}`] });

    let blockedChecks = 0;
    for (const [index, step] of steps.entries()) {
      const redis = index % 2 ? a : b;
      if (step.op === 'fail') {
        memory.recordFailure(step.keys, step.at);
        await redis.throttle.recordFailure(step.keys, step.at);
      } else if (step.op === 'succeed') {
        memory.recordSuccess(step.keys);
        await redis.throttle.recordSuccess(step.keys, step.at);
      } else {
        const expected = memory.check(step.keys, step.at);
        if (expected.blocked) blockedChecks++;
        assert.deepEqual(await redis.throttle.check(step.keys, step.at), expected, `step ${index}`);
      }
    }
    assert.ok(blockedChecks >= 4, `the script exercises blocks (${blockedChecks})`);
  });

  test('a revoked session is refused by both; sign-out everywhere voids only that key, only until then', async () => {
    // Every session here is issued after Redis's memory began (earlier ones are void).
    const now = (await a.memorySince()) + 10_000;
    const session = { sessionId: 'sid-1', apiKeyId: 'key-1', issuedAt: now - 1000 };
    for (const instance of [a, b])
      assert.equal(await instance.revocations.isRevoked(session), false);
    await a.revocations.revoke(session.sessionId, now + 60_000, now);
    for (const instance of [a, b])
      assert.equal(await instance.revocations.isRevoked(session), true);
    const ttl = await b.client.pttl(`${prefix}revoked:sid-1`);
    assert.ok(ttl > 55_000 && ttl <= 60_000, `kept until the session's expiry (${ttl})`);

    await b.revocations.revokeIssuedBefore('key-2', now, now + 60_000, now);
    const older = { sessionId: 'sid-2', apiKeyId: 'key-2', issuedAt: now - 5000 };
    const sameMs = { sessionId: 'sid-3', apiKeyId: 'key-2', issuedAt: now };
    const newer = { sessionId: 'sid-4', apiKeyId: 'key-2', issuedAt: now + 1 };
    const otherKey = { sessionId: 'sid-5', apiKeyId: 'key-3', issuedAt: now - 5000 };
    for (const instance of [a, b]) {
      assert.equal(await instance.revocations.isRevoked(older), true);
      assert.equal(await instance.revocations.isRevoked(sameMs), true);
      assert.equal(await instance.revocations.isRevoked(newer), false);
      assert.equal(await instance.revocations.isRevoked(otherKey), false);
    }
    // An earlier mark never lowers a later one.
    await a.revocations.revokeIssuedBefore('key-2', now - 10_000, now + 60_000, now);
    assert.equal(await b.revocations.isRevoked(older), true);

    // The in-memory revocations answer the same.
    const memory = new MemorySessionRevocations();
    await memory.revoke(session.sessionId, now + 60_000, now);
    await memory.revokeIssuedBefore('key-2', now, now + 60_000, now);
    for (const s of [session, older, sameMs, newer, otherKey]) {
      assert.equal(await memory.isRevoked(s, now), await a.revocations.isRevoked(s), s.sessionId);
    }
    assert.equal(await memory.isRevoked(session, now + 60_001), false, 'forgotten after expiry');
  });

  test('Redis unreachable: every operation fails closed with 503 SERVICE_UNAVAILABLE, quickly', async (t) => {
    const errors: string[] = [];
    t.mock.method(getLogger(), 'error', (_fields: unknown, message: string) => {
      errors.push(message);
    });
    const down = createRedisAuthState({ url: CLOSED_REDIS_URL, keyPrefix: prefix });
    try {
      const now = Date.now();
      const operations: [string, () => Promise<unknown>][] = [
        ['nonce count', () => down.nonceCounts.accept('n', now, 1, 300, now)],
        ['throttle check', () => down.throttle.check(['key:x'])],
        ['throttle failure', () => down.throttle.recordFailure(['key:x'])],
        ['throttle success', () => down.throttle.recordSuccess(['key:x'])],
        ['revoke', () => down.revocations.revoke('s', now + 1000, now)],
        [
          'revocation check',
          () => down.revocations.isRevoked({ sessionId: 's', apiKeyId: 'k', issuedAt: now }),
        ],
      ];
      for (const [what, operation] of operations) {
        const started = Date.now();
        await rejectsUnavailable(operation(), what);
        // Bounded by the command timeout (2.5 s), never a hang.
        const took = Date.now() - started;
        assert.ok(took < 4_000, `${what} answered in ${took} ms`);
      }
      assert.equal(errors.filter((e) => e.includes('Redis unreachable')).length, 1, 'logged once');
    } finally {
      await down.close();
    }
  });

  test('warm() rejects, naming REDIS_URL and never its password, when Redis refuses the URL (a wrong password, none, an unknown user, a user without the commands); an unreachable Redis still resolves', async () => {
    const password = 'the-right-redis-password-4c';
    const wrong = 'a-wrong-redis-password-4c';
    const redis = await startPrivateRedis(['--requirepass', password]);
    const admin = new Redis(redis.url.replace('redis://', `redis://:${password}@`));
    // A user that may sign in but run none of the commands the state needs.
    await admin.call('ACL', 'SETUSER', 'org-events-no-eval', 'on', `>${wrong}x`, '~*', '+ping');
    const at = redis.url.slice('redis://'.length);
    const refusedUrls: [string, RegExp][] = [
      [`redis://:${wrong}@${at}`, /WRONGPASS/],
      [`redis://${at}`, /NOAUTH/],
      [`redis://org-events-nobody:${wrong}@${at}`, /WRONGPASS/],
      [`redis://org-events-no-eval:${wrong}x@${at}`, /NOPERM/],
    ];
    try {
      for (const [url, reply] of refusedUrls) {
        const state = createRedisAuthState({ url, keyPrefix: prefix, logOutages: false });
        try {
          await assert.rejects(state.warm(), (error: unknown) => {
            assert.ok(error instanceof Error);
            assert.match(error.message, /REDIS_URL/, url);
            assert.match(error.message, reply, url);
            assert.ok(!error.message.includes(wrong), `no password in: ${error.message}`);
            return true;
          });
        } finally {
          await state.close();
        }
      }
      // The right password, and a Redis that is not there at all, start as before.
      for (const url of [
        redis.url.replace('redis://', `redis://:${password}@`),
        CLOSED_REDIS_URL,
      ]) {
        const state = createRedisAuthState({ url, keyPrefix: prefix, logOutages: false });
        try {
          await state.warm();
        } finally {
          await state.close();
        }
      }
    } finally {
      admin.disconnect();
      await redis.close();
    }
  });

  test('a Redis that takes no writes (full under noeviction, a read-only replica) fails a success and the readiness probe as it fails a failure: a right key is told from no wrong one', async () => {
    // Before, a dashboard sign-in with a wrong key got 503 (its failure could
    // not be counted) and one with the right key 200: an unthrottled oracle.
    const redis = await startPrivateRedis();
    const admin = new Redis(redis.url);
    const state = createRedisAuthState({ url: redis.url, keyPrefix: prefix });
    try {
      await state.warm();
      await state.throttle.recordSuccess(['key:k'], Date.now());
      await state.probe();
      for (const refusing of [
        async () => admin.config('SET', 'maxmemory', '1'),
        // A replica of a primary that is not there: read-only all the same.
        async () => {
          await admin.config('SET', 'maxmemory', '0');
          await admin.replicaof('127.0.0.1', String(redis.port + 1));
        },
      ]) {
        await refusing();
        await rejectsUnavailable(state.throttle.recordFailure(['key:k'], Date.now()), 'failure');
        await rejectsUnavailable(state.throttle.recordSuccess(['key:k'], Date.now()), 'success');
        await rejectsUnavailable(state.probe(), 'readiness probe');
      }
    } finally {
      admin.disconnect();
      await state.close();
      await redis.close();
    }
  });

  test('a Redis that may evict keys is refused with 503 until its policy is noeviction or it has no memory limit', async (t) => {
    const logged: string[] = [];
    const capture = (_fields: unknown, message?: string) => {
      logged.push(typeof _fields === 'string' ? _fields : (message ?? ''));
    };
    t.mock.method(getLogger(), 'error', capture);
    t.mock.method(getLogger(), 'warn', capture);
    const redis = await startPrivateRedis();
    const admin = new Redis(redis.url);
    const state = createRedisAuthState({ url: redis.url, keyPrefix: prefix, evictionCheckMs: 50 });
    const waitFor = async (what: string, done: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await done()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(await done(), what);
    };
    const accepts = async () => {
      const now = Date.now();
      try {
        return (
          (await state.nonceCounts.accept(`n${now}${Math.random()}`, now, 1, 300, now)) === 'ok'
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 503) return false;
        throw error;
      }
    };
    try {
      await state.warm();
      assert.ok(await accepts(), 'noeviction (the default): in use');
      await state.probe();

      // volatile-lru, the default of some hosted services: every key here expires, so any may go.
      await admin.config('SET', 'maxmemory', '100mb');
      await admin.config('SET', 'maxmemory-policy', 'volatile-lru');
      await waitFor('refused once the policy may evict', async () => !(await accepts()));
      const now = Date.now();
      const operations: [string, () => Promise<unknown>][] = [
        ['nonce count', () => state.nonceCounts.accept('m', now, 1, 300, now)],
        // /readyz's check: not ready while requests are refused.
        ['readiness probe', () => state.probe()],
        ['throttle check', () => state.throttle.check(['key:x'])],
        ['revoke', () => state.revocations.revoke('s', now + 1000, now)],
        [
          'revocation check',
          () => state.revocations.isRevoked({ sessionId: 's', apiKeyId: 'k', issuedAt: now }),
        ],
      ];
      for (const [what, operation] of operations) await rejectsUnavailable(operation(), what);
      assert.equal(
        logged.filter((m) => m.includes('maxmemory-policy volatile-lru')).length,
        1,
        `the reason is logged once: ${JSON.stringify(logged)}`,
      );

      // No memory limit: nothing is ever evicted, whatever the policy says.
      await admin.config('SET', 'maxmemory', '0');
      await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
      await waitFor('in use again without a memory limit', accepts);
      await admin.config('SET', 'maxmemory', '100mb');
      await waitFor('allkeys-lru with a limit is refused', async () => !(await accepts()));
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      await waitFor('in use again with noeviction', accepts);
      assert.ok(
        logged.some((m) => m.includes('no longer evicts')),
        'the recovery is logged',
      );
    } finally {
      await state.close();
      admin.disconnect();
      await redis.close();
    }
  });

  test('a password in the URL that Redis does not ask for is a warning at start, once; one it asks for, or none, says nothing', async (t) => {
    const warned: string[] = [];
    t.mock.method(getLogger(), 'warn', (fields: unknown, message?: string) => {
      warned.push(typeof fields === 'string' ? fields : (message ?? ''));
    });
    const password = 'not-asked-for-7f3a';
    const redis = await startPrivateRedis();
    const admin = new Redis(redis.url);
    const withPassword = redis.url.replace('redis://', `redis://:${password}@`);
    const warmed = async (url: string) => {
      const state = createRedisAuthState({ url, keyPrefix: prefix });
      try {
        await state.warm();
        // Served all the same: the warning is about who else can.
        const now = Date.now();
        assert.equal(await state.nonceCounts.accept(`n${now}`, now, 1, 300, now), 'ok');
      } finally {
        await state.close();
      }
    };
    const passwordWarnings = () => warned.filter((m) => m.includes('asks for none'));
    try {
      await warmed(redis.url);
      assert.deepEqual(passwordWarnings(), [], 'no password, none asked for');
      await warmed(withPassword);
      assert.equal(passwordWarnings().length, 1, JSON.stringify(warned));
      assert.match(passwordWarnings()[0]!, /REDIS_URL carries a password/);
      assert.ok(!passwordWarnings()[0]!.includes(password), 'the password is never logged');
      await admin.config('SET', 'requirepass', password);
      await warmed(withPassword);
      assert.equal(passwordWarnings().length, 1, 'the password Redis asks for says nothing');
    } finally {
      admin.disconnect();
      await redis.close();
    }
  });
});
