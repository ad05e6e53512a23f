import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DigestClient, send } from '@/tests/helpers/digest-client';
import { startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * SERVE=api: `npm start` serves the API and the probes without loading Next
 * (the deployment for API-heavy instances; see lib/config.ts). Needs a build
 * only for the other doors: this one never reads .next.
 */

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { SERVE: 'api' }, eventCount: 30 });
});
after(() => server?.stop());

test('SERVE=api answers the API as usual', async () => {
  const client = new DigestClient(server.baseUrl, server.keys.member);
  const body = await client.getJson<{ totalCount: number; results: unknown[] }>(
    `/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=5`,
  );
  assert.equal(body.totalCount, 30);
  assert.equal(body.results.length, 5);
});

test('SERVE=api answers the probes, and the dashboard paths with a JSON 404', async () => {
  assert.equal((await send(`${server.baseUrl}/healthz`)).status, 200);
  assert.equal((await send(`${server.baseUrl}/readyz`)).status, 200);
  for (const path of ['/', '/sign-in', '/_next/static/x.js']) {
    const response = await send(`${server.baseUrl}${path}`);
    assert.equal(response.status, 404, path);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    assert.equal((JSON.parse(response.text) as { error: number }).error, 404);
  }
  assert.match(server.output(), /API only/);
  assert.doesNotMatch(server.output(), /Next\.js failed/);
});
