import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send } from '@/tests/helpers/digest-client';
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
