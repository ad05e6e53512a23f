import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  authorizationHeader,
  parseChallenge,
  send,
  type Challenge,
  type TestResponse,
} from '@/tests/helpers/digest-client';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { startPrivateRedis, type PrivateRedis } from '@/tests/helpers/redis';
import {
  readWithSession,
  signInForCookie as signIn,
  startTestServer,
  type TestKey,
  type TestServer,
} from '@/tests/helpers/server';

/**
 * Two instances of the built server (`npm start`) on one PostgreSQL database
 * and one Redis, as behind a load balancer, requests alternating between
 * them: a replayed request, a guess spread over both, a signed-out session
 * are refused by the other instance too; with Redis down both fail closed
 * (503 + Retry-After, never a replay accepted) and resume by themselves when
 * it returns. The Redis is the test's own (it is stopped here; the shared
 * one on 6379 must stay up for other tests). Needs `npm run build`.
 */

let redis: PrivateRedis;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let a: TestServer;
let b: TestServer;

before(async () => {
  redis = await startPrivateRedis();
  database = await createTestDatabase();
  const env = { REDIS_URL: redis.url };
  a = await startTestServer({ databaseUrl: database.url, env, eventCount: 200 });
  b = await startTestServer({ shareDataWith: a, env });
});

after(async () => {
  await b?.stop();
  await a?.stop();
  await database?.drop();
  await redis?.close();
});

const eventsPath = () => `/api/public/v1.0/orgs/${a.orgId}/events?itemsPerPage=2`;

async function challengeFrom(server: TestServer, path: string): Promise<Challenge> {
  const res = await send(`${server.baseUrl}${path}`);
  assert.equal(res.status, 401, `${server.baseUrl}: unauthenticated request is challenged`);
  return parseChallenge(res.headers.get('www-authenticate'));
}

/** The Authorization header a client would send: captured, it can be sent again verbatim. */
function digestHeader(
  challenge: Challenge,
  key: TestKey,
  path: string,
  nc: number,
  password = key.privateKey,
): string {
  return authorizationHeader({
    username: key.publicKey,
    password,
    realm: challenge.realm,
    nonce: challenge.nonce,
    method: 'GET',
    uri: path,
    nc,
  });
}

const sendWith = (server: TestServer, path: string, authorization: string) =>
  send(`${server.baseUrl}${path}`, { headers: { authorization } });

function assertChallenge(res: TestResponse, what: string) {
  assert.equal(res.status, 401, `${what}: ${res.status} ${res.text}`);
  assert.match(res.headers.get('www-authenticate') ?? '', /^Digest /, what);
}

function assertUnavailable(res: TestResponse, what: string) {
  assert.equal(res.status, 503, `${what}: ${res.status} ${res.text}`);
  assert.match(res.headers.get('retry-after') ?? '', /^\d+$/, `${what}: Retry-After`);
  assert.equal(res.json<{ errorCode: string }>().errorCode, 'SERVICE_UNAVAILABLE');
  assert.ok(!res.text.includes('"results"'), `${what}: no data`);
}

describe('two instances on one database and one Redis', () => {
  test('a Digest request captured on one instance and replayed on the other is refused', async () => {
    const key = a.keys.member;
    for (const [first, second] of [
      [a, b],
      [b, a],
    ] as const) {
      const path = eventsPath();
      const challenge = await challengeFrom(first, path);
      const captured = digestHeader(challenge, key, path, 1);
      assert.equal((await sendWith(first, path, captured)).status, 200, 'the original is served');

      assertChallenge(await sendWith(second, path, captured), 'the same header on the other');
      assertChallenge(await sendWith(first, path, captured), 'and again on the first');

      // Not because the other instance refuses the first one's nonces: the
      // next count of the same nonce is served there.
      const next = digestHeader(challenge, key, path, 2);
      assert.equal((await sendWith(second, path, next)).status, 200, 'nc 2 on the other');
      assertChallenge(await sendWith(first, path, next), 'nc 2 replayed on the first');
    }
  });

  test('ten wrong answers for one key, alternating instances, lock the key on both', async () => {
    const key = a.keys.spare[0]!;
    const path = eventsPath();
    for (let i = 0; i < 10; i++) {
      const server = i % 2 === 0 ? a : b;
      const challenge = await challengeFrom(server, path);
      const wrong = digestHeader(challenge, key, path, 1, `wrong-${i}`);
      assertChallenge(await sendWith(server, path, wrong), `wrong answer ${i + 1}`);
    }
    // Five failures on each: neither instance alone would have blocked the key.
    for (const server of [a, b]) {
      const challenge = await challengeFrom(server, path);
      const right = await sendWith(server, path, digestHeader(challenge, key, path, 1));
      assert.equal(right.status, 429, `the right answer on ${server.baseUrl}: ${right.text}`);
      assert.match(right.headers.get('retry-after') ?? '', /^\d+$/);
      assert.ok(!right.text.includes('"results"'));
    }
    // Only that key: another key still works on both.
    for (const server of [a, b]) {
      const challenge = await challengeFrom(server, path);
      const other = await sendWith(server, path, digestHeader(challenge, a.keys.owner, path, 1));
      assert.equal(other.status, 200);
    }
  });

  test('a dashboard session signed out on one instance is refused by the other', async () => {
    const cookie = await signIn(a, a.keys.owner);
    const kept = await signIn(b, a.keys.owner);
    assert.equal((await readWithSession(b, cookie)).status, 200, 'the session works on both');
    assert.equal((await readWithSession(a, kept)).status, 200);

    const out = await fetch(`${a.baseUrl}/api/session`, {
      method: 'DELETE',
      headers: { Cookie: cookie },
    });
    assert.equal(out.status, 204);

    for (const server of [b, a]) {
      const res = await readWithSession(server, cookie);
      assert.equal(res.status, 401, `the signed-out cookie on ${server.baseUrl}`);
      assert.ok(!res.text.includes('"results"'));
    }
    assert.equal((await readWithSession(b, kept)).status, 200, 'another session lives on');
  });

  test('Redis down: 503 with Retry-After on both, no replay accepted; back by itself', async () => {
    const key = a.keys.member;
    const path = eventsPath();
    const challenge = await challengeFrom(a, path);
    // Served before the outage: a replay candidate, during and after it.
    const captured = digestHeader(challenge, key, path, 1);
    assert.equal((await sendWith(a, path, captured)).status, 200);
    const liveSession = await signIn(b, a.keys.owner);
    const signedOut = await signIn(a, a.keys.owner);
    const out = await fetch(`${b.baseUrl}/api/session`, {
      method: 'DELETE',
      headers: { Cookie: signedOut },
    });
    assert.equal(out.status, 204);

    await redis.stop();
    let nc = 1;
    for (const server of [a, b]) {
      const fresh = await sendWith(server, path, digestHeader(challenge, key, path, ++nc));
      assertUnavailable(fresh, `a correct new request on ${server.baseUrl}`);
      assertUnavailable(await sendWith(server, path, captured), `the replay on ${server.baseUrl}`);
      assertUnavailable(
        await readWithSession(server, liveSession),
        `a live session on ${server.baseUrl} (its revocation cannot be checked)`,
      );
      const revoked = await readWithSession(server, signedOut);
      assert.ok(
        revoked.status === 503 || revoked.status === 401,
        `the signed-out session on ${server.baseUrl}: ${revoked.status}`,
      );
    }

    await redis.start();
    // Both instances reconnect on their own: poll with fresh challenges.
    const deadline = Date.now() + 10_000;
    const recovered = new Set<TestServer>();
    let last: TestResponse | undefined;
    while (recovered.size < 2 && Date.now() < deadline) {
      for (const server of [a, b]) {
        if (recovered.has(server)) continue;
        const fresh = await challengeFrom(server, path);
        last = await sendWith(server, path, digestHeader(fresh, key, path, 1));
        if (last.status === 200) recovered.add(server);
        else if (last.status === 401) {
          // A nonce issued before Redis's memory began again cannot be
          // trusted: a stale challenge, on which real clients retry.
          assert.match(last.headers.get('www-authenticate') ?? '', /stale=true/, last.text);
        } else assert.equal(last.status, 503, `while reconnecting: ${last.status} ${last.text}`);
      }
      if (recovered.size < 2) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(recovered.size, 2, `both instances serve within 10 s: ${last?.status}`);

    // Redis came back empty (no persistence, like a crash): what it forgot
    // must not let a request that was already served in again, nor a
    // signed-out session.
    const accepted: string[] = [];
    for (const server of [a, b]) {
      if ((await sendWith(server, path, captured)).status === 200)
        accepted.push(`the request served before the outage, replayed on ${server.baseUrl}`);
      if ((await readWithSession(server, signedOut)).status === 200)
        accepted.push(`the session signed out before the outage, on ${server.baseUrl}`);
    }
    assert.deepEqual(accepted, [], 'nothing Redis forgot is accepted after it returns');
  });
});
