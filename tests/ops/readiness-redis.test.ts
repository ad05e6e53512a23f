import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DigestClient, send } from '@/tests/helpers/digest-client';
import { startPrivateRedis, type PrivateRedis } from '@/tests/helpers/redis';
import { startTestServer, statusWithin, type TestServer } from '@/tests/helpers/server';

/**
 * /readyz follows Redis too when REDIS_URL is set: while it is away every
 * authenticated request is a 503, so the instance is not ready; /healthz
 * stays 200. The Redis is the test's own (the shared one must never go
 * down). Needs a build.
 */

let redis: PrivateRedis;
let server: TestServer;

before(async () => {
  redis = await startPrivateRedis();
  server = await startTestServer({ env: { REDIS_URL: redis.url }, eventCount: 20 });
});
after(async () => {
  await server?.stop();
  await redis?.close();
});

test('readyz: 503 while Redis is away, 200 when it is back', async () => {
  assert.equal((await send(`${server.baseUrl}/readyz`)).status, 200);
  await redis.stop();
  try {
    assert.equal(await statusWithin(server, '/readyz', 503, 10_000), 503);
    assert.equal((await send(`${server.baseUrl}/healthz`)).status, 200);
  } finally {
    await redis.start();
  }
  assert.equal(await statusWithin(server, '/readyz', 200, 15_000), 200);
});

test('a REDIS_URL password Redis refuses: /readyz and requests 503, the refusal logged, the password never', async () => {
  const guarded = await startPrivateRedis(['--requirepass', 'the-right-redis-password']);
  const wrongPassword = 'a-wrong-redis-password-0000';
  const refused = await startTestServer({
    env: { REDIS_URL: `redis://:${wrongPassword}@127.0.0.1:${guarded.port}` },
    eventCount: 5,
  });
  try {
    assert.equal(await statusWithin(refused, '/readyz', 503, 10_000), 503);
    const client = new DigestClient(refused.baseUrl, refused.keys.member);
    const res = await client.request(`/api/public/v1.0/orgs/${refused.orgId}/events`);
    assert.equal(res.status, 503);
    const output = refused.output();
    // Redis's refusal reached the log (each reply error carries the command
    // it answered: the HELLO that authenticates names the password).
    assert.match(output, /WRONGPASS/);
    assert.ok(!output.includes(wrongPassword), 'the password in REDIS_URL is not logged');
  } finally {
    await refused.stop();
    await guarded.close();
  }
});
