import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { getConfig, parseConfig, setConfigForTesting } from '@/lib/config';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { twoInstances } from '../../tests/helpers/redis';
import { issueApiKey } from './api-keys';
import { authenticate } from './authenticate';
import { signIn, signOut } from './dashboard-session';
import type { RedisAuthState } from './redis-state';
import { checkSession, readSession, SESSION_COOKIE, type SessionUse } from './session';
import { activityRefreshMs, idleTimeoutInWords, isIdle, recordsActivity } from './session-activity';
import { adoptAuthState, getAuthState, MemorySessionActivity } from './shared-state';
import { remoteAuthState, serveAuthState } from './thread-auth-state';

const ORG = '5f00000000000000000000d4';
const MINUTE = 60_000;

describe('the idle timeout rule', () => {
  test('activity is recorded again after a tenth of the timeout, from 1 s up to a minute', () => {
    assert.equal(activityRefreshMs(30 * MINUTE), MINUTE);
    assert.equal(activityRefreshMs(8 * 3600_000), MINUTE);
    assert.equal(activityRefreshMs(5 * MINUTE), 30_000);
    assert.equal(activityRefreshMs(10_000), 1000);
  });

  test('a session is idle once the timeout has passed since its last activity, never with 0', () => {
    const last = 1_000_000;
    assert.equal(isIdle(last, 30 * MINUTE, last + 30 * MINUTE - 1), false);
    assert.equal(isIdle(last, 30 * MINUTE, last + 30 * MINUTE), true);
    assert.equal(isIdle(last, 0, last + 365 * 24 * 60 * MINUTE), false);
  });

  test('only activity records, only when what was recorded is a refresh old, never for an idle session', () => {
    const use = { idleMs: 30 * MINUTE, refreshMs: MINUTE, record: true };
    const last = 1_000_000;
    assert.equal(recordsActivity(last, use, last + MINUTE - 1), false, 'recorded within a minute');
    assert.equal(recordsActivity(last, use, last + MINUTE), true);
    assert.equal(recordsActivity(last, { ...use, record: false }, last + 5 * MINUTE), false);
    assert.equal(recordsActivity(last, use, last + 30 * MINUTE), false, 'idle already');
  });

  test('the timeout in words', () => {
    assert.equal(idleTimeoutInWords(1800), '30 minutes');
    assert.equal(idleTimeoutInWords(60), '1 minute');
    assert.equal(idleTimeoutInWords(3600), '1 hour');
    assert.equal(idleTimeoutInWords(7200), '2 hours');
    assert.equal(idleTimeoutInWords(90), '90 seconds');
  });

  test('SESSION_IDLE_SECONDS: 1800 unless set, 0 turns it off, else 10 s to a week', () => {
    const env = { DATABASE_URL: ':memory:' };
    assert.equal(parseConfig(env).SESSION_IDLE_SECONDS, 1800);
    assert.equal(parseConfig({ ...env, SESSION_IDLE_SECONDS: '' }).SESSION_IDLE_SECONDS, 1800);
    assert.equal(parseConfig({ ...env, SESSION_IDLE_SECONDS: '0' }).SESSION_IDLE_SECONDS, 0);
    assert.equal(parseConfig({ ...env, SESSION_IDLE_SECONDS: '10' }).SESSION_IDLE_SECONDS, 10);
    assert.equal(parseConfig({ ...env, SESSION_IDLE_SECONDS: '3600' }).SESSION_IDLE_SECONDS, 3600);
    for (const value of ['5', '-1', '1.5', 'soon', String(7 * 86_400 + 1)]) {
      assert.throws(
        () => parseConfig({ ...env, SESSION_IDLE_SECONDS: value }),
        /^ConfigError: Invalid configuration: SESSION_IDLE_SECONDS: /,
        value,
      );
    }
  });
});

describe('idle sessions are refused', () => {
  let store: EventStore;
  let key: { publicKey: string; privateKey: string; apiKeyId: string };
  const original = getConfig();

  /** A session cookie value signed in at `now`. */
  async function session(now: number): Promise<string> {
    const outcome = await signIn(
      store,
      { ...key, remoteAddress: '192.0.2.40', secure: false },
      now,
    );
    assert.ok(outcome.ok, 'signed in');
    return outcome.cookie.split(';')[0]!.slice(SESSION_COOKIE.length + 1);
  }

  const ended = async (cookie: string, now: number, use: SessionUse = 'activity') => {
    const checked = await checkSession(store, cookie, use, now);
    return 'ended' in checked ? checked.ended : 'live';
  };

  before(async () => {
    store = await openStore(':memory:');
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'idle',
      realm: original.DIGEST_REALM,
    });
    key = { publicKey: record.publicKey, privateKey, apiKeyId: record.id };
    // The process's state made now, before any test's t0: made lazily by
    // the first sign-in, its memory began a millisecond or so after t0, and
    // no session counts as idle since before that (MemorySessionActivity),
    // so 'idle at t0 + 30 min' read 'live' when the clock ticked between.
    getAuthState();
  });
  afterEach(() => {
    setConfigForTesting(original);
    adoptAuthState(undefined);
  });
  after(() => store.close());

  test('in memory: unused for SESSION_IDLE_SECONDS it is refused as idle, and stays so', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 1800, SESSION_TTL_SECONDS: 8 * 3600 });
    const t0 = Date.now();
    const cookie = await session(t0);
    assert.equal(await ended(cookie, t0 + 30 * MINUTE - 1000), 'live');
    const idle = await session(t0);
    assert.equal(await ended(idle, t0 + 30 * MINUTE), 'idle');
    assert.equal(await readSession(store, idle, t0 + 30 * MINUTE), null);
    // Nothing brings it back, not a request that would be activity.
    assert.equal(await ended(idle, t0 + 31 * MINUTE), 'idle');
    // The first one was used at 29:59: it lives on until 59:59 without another use.
    assert.equal(await ended(cookie, t0 + 59 * MINUTE), 'live');
    assert.equal(await ended(cookie, t0 + 90 * MINUTE), 'idle');
  });

  test('signing out a session that went idle revokes it: a copy of its cookie stays refused once the idle timeout is raised or turned off', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 1800, SESSION_TTL_SECONDS: 8 * 3600 });
    const t0 = Date.now();
    const signedOut = await session(t0);
    const kept = await session(t0);
    assert.equal(await ended(signedOut, t0 + 40 * MINUTE), 'idle');
    // The page's Sign out, after the session idled out (the browser drops its cookie).
    const outcome = await signOut(
      store,
      { sealed: signedOut, everywhere: false, secure: false },
      t0 + 40 * MINUTE,
    );
    assert.ok(outcome.ok);
    // The operator lengthens the timeout, or turns it off: idle sessions live again…
    setConfigForTesting({ SESSION_IDLE_SECONDS: 0 });
    assert.equal(await ended(kept, t0 + 41 * MINUTE), 'live', 'the one never signed out');
    // …but not one that was signed out.
    assert.equal(await ended(signedOut, t0 + 41 * MINUTE), 'refused');
  });

  test('activity keeps a session past the idle timeout, and no longer than SESSION_TTL_SECONDS', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 1800, SESSION_TTL_SECONDS: 2 * 3600 });
    const t0 = Date.now();
    const cookie = await session(t0);
    for (let minutes = 20; minutes < 120; minutes += 20) {
      assert.equal(await ended(cookie, t0 + minutes * MINUTE), 'live', `${minutes} min`);
    }
    assert.equal(await ended(cookie, t0 + 120 * MINUTE), 'refused', 'expired at 2 h');
  });

  test('background use (the live count) checks the session without keeping it', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 1800 });
    const t0 = Date.now();
    const cookie = await session(t0);
    for (let minutes = 5; minutes < 30; minutes += 5) {
      assert.equal(await ended(cookie, t0 + minutes * MINUTE, 'background'), 'live');
    }
    assert.equal(await ended(cookie, t0 + 30 * MINUTE, 'background'), 'idle');
  });

  test('the API: a session call marked background is no activity, an unmarked one is', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 1800 });
    const t0 = Date.now();
    const cookie = await session(t0);
    const call = (now: number, headers: Record<string, string> = {}) =>
      authenticate(
        {
          method: 'GET',
          url: '/api/public/v1.0/orgs',
          headers: new Headers({ cookie: `${SESSION_COOKIE}=${cookie}`, ...headers }),
        },
        store,
        now,
      );
    const background = { 'X-Org-Events-Activity': 'background' };
    assert.ok('principal' in (await call(t0 + 20 * MINUTE, background)));
    assert.ok('principal' in (await call(t0 + 29 * MINUTE, background)));
    // Not kept by those: idle 30 minutes after sign-in.
    // Refused for that, said so in the log and metrics (before: "no credentials").
    const refused = await call(t0 + 30 * MINUTE);
    assert.equal('challenge' in refused && refused.challenge.reason, 'session idle');

    const kept = await session(t0);
    const viaKept = (now: number, headers: Record<string, string> = {}) =>
      authenticate(
        {
          method: 'GET',
          url: '/api/public/v1.0/orgs',
          headers: new Headers({ cookie: `${SESSION_COOKIE}=${kept}`, ...headers }),
        },
        store,
        now,
      );
    assert.ok('principal' in (await viaKept(t0 + 20 * MINUTE)));
    assert.ok('principal' in (await viaKept(t0 + 45 * MINUTE, background)));
  });

  test('the API: a session past its absolute lifetime is refused as such, not as no credentials', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 0, SESSION_TTL_SECONDS: 8 * 3600 });
    const t0 = Date.now();
    const cookie = await session(t0);
    const refused = await authenticate(
      {
        method: 'GET',
        url: '/api/public/v1.0/orgs',
        headers: new Headers({ cookie: `${SESSION_COOKIE}=${cookie}` }),
      },
      store,
      t0 + 8 * 3600_000,
    );
    assert.equal('challenge' in refused && refused.challenge.reason, 'session refused');
    const none = await authenticate(
      { method: 'GET', url: '/api/public/v1.0/orgs', headers: new Headers() },
      store,
      t0,
    );
    assert.equal('challenge' in none && none.challenge.reason, 'no credentials');
  });

  test('SESSION_IDLE_SECONDS=0: no idle timeout, the absolute one alone', async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 0, SESSION_TTL_SECONDS: 8 * 3600 });
    const t0 = Date.now();
    const cookie = await session(t0);
    assert.equal(await ended(cookie, t0 + 8 * 3600_000 - 1000), 'live');
    assert.equal(await ended(cookie, t0 + 8 * 3600_000), 'refused');
  });

  test('in memory: activity is written at most once per refresh interval', async () => {
    const activity = new MemorySessionActivity(0);
    const t0 = Date.now();
    const session = { sessionId: `memory-${t0}`, apiKeyId: 'k', issuedAt: t0 };
    const use = { idleMs: 30 * MINUTE, refreshMs: MINUTE, record: true };
    assert.equal(await activity.lastActive(session, use, t0 + 59_000), t0, 'not yet written');
    assert.equal(activity.size, 0);
    assert.equal(await activity.lastActive(session, use, t0 + 60_000), t0);
    assert.equal(await activity.lastActive(session, use, t0 + 100_000), t0 + 60_000);
    assert.equal(await activity.lastActive(session, use, t0 + 119_000), t0 + 60_000);
    assert.equal(activity.size, 1);
  });

  test('in memory: a session issued before the memory began counts from its beginning (a restart)', async () => {
    const t0 = Date.now();
    const activity = new MemorySessionActivity(t0);
    const session = { sessionId: `restart-${t0}`, apiKeyId: 'k', issuedAt: t0 - 3600_000 };
    const use = { idleMs: 30 * MINUTE, refreshMs: MINUTE, record: false };
    assert.equal(await activity.lastActive(session, use, t0 + 1000), t0);
  });

  test("through Next's thread: the worker's page loads are the main thread's activity", async () => {
    setConfigForTesting({ SESSION_IDLE_SECONDS: 1800 });
    const channel = new MessageChannel();
    const served = (await import('./shared-state')).memoryAuthState();
    serveAuthState(channel.port1, () => served);
    try {
      const t0 = Date.now();
      const cookie = await session(t0);
      adoptAuthState(remoteAuthState(channel.port2, 'memory'));
      assert.equal(await ended(cookie, t0 + 20 * MINUTE), 'live');
      adoptAuthState(served);
      assert.equal(await ended(cookie, t0 + 45 * MINUTE, 'background'), 'live');
      assert.equal(await ended(cookie, t0 + 50 * MINUTE, 'background'), 'idle');
    } finally {
      channel.port1.close();
    }
  });

  describe('two instances sharing Redis', () => {
    let a: RedisAuthState;
    let b: RedisAuthState;
    let prefix: string;
    let closeBoth: () => Promise<void>;
    before(async () => {
      ({ a, b, prefix, close: closeBoth } = await twoInstances('activity'));
    });
    after(async () => {
      adoptAuthState(undefined);
      await closeBoth();
    });

    test('activity on one instance keeps the session on the other, and idleness is seen by both', async () => {
      setConfigForTesting({ SESSION_IDLE_SECONDS: 1800, SESSION_TTL_SECONDS: 8 * 3600 });
      const t0 = Date.now();
      adoptAuthState(a);
      const used = await session(t0);
      const unused = await session(t0);
      assert.equal(await ended(used, t0 + 25 * MINUTE), 'live');
      adoptAuthState(b);
      assert.equal(await ended(used, t0 + 50 * MINUTE), 'live', 'kept by the use on a');
      assert.equal(await ended(unused, t0 + 30 * MINUTE), 'idle');
      adoptAuthState(a);
      assert.equal(await ended(unused, t0 + 30 * MINUTE), 'idle');
      assert.equal(await ended(used, t0 + 80 * MINUTE), 'idle', 'last used at 50 min');
    });

    test('written at most once per refresh interval, kept no longer than the idle timeout', async () => {
      setConfigForTesting({ SESSION_IDLE_SECONDS: 1800 });
      const t0 = Date.now();
      const identity = { sessionId: `redis-${t0}`, apiKeyId: 'k', issuedAt: t0 };
      const use = { idleMs: 30 * MINUTE, refreshMs: MINUTE, record: true };
      const recorded = () => a.client.get(`${prefix}active:${identity.sessionId}`);
      assert.equal(await a.activity.lastActive(identity, use, t0 + 59_000), t0);
      assert.equal(await recorded(), null, 'not written within a minute of sign-in');
      assert.equal(await b.activity.lastActive(identity, use, t0 + 60_000), t0);
      assert.equal(await recorded(), String(t0 + 60_000));
      assert.equal(await a.activity.lastActive(identity, use, t0 + 90_000), t0 + 60_000);
      assert.equal(await recorded(), String(t0 + 60_000), 'not written again within a minute');
      const ttl = await a.client.pttl(`${prefix}active:${identity.sessionId}`);
      assert.ok(ttl > 0 && ttl <= 30 * MINUTE, `kept ${ttl} ms`);
      assert.equal(
        await b.activity.lastActive(identity, { ...use, record: false }, t0 + 200_000),
        t0 + 60_000,
      );
      assert.equal(await recorded(), String(t0 + 60_000), 'background use writes nothing');
    });
  });
});
