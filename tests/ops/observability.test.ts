import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DigestClient, send } from '@/tests/helpers/digest-client';
import { signInForCookie, startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * Logs, probes and metrics through both front doors: the custom server
 * (`npm start`, with METRICS_TOKEN) and `next start` over the same data
 * (without it, so /metrics is off there). Needs `npm run build`.
 */

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
let fast: TestServer;
let next: TestServer;

before(async () => {
  fast = await startTestServer({ env: { METRICS_TOKEN, LOG_LEVEL: 'info' } });
  next = await startTestServer({ door: 'next start', shareDataWith: fast });
});
after(async () => {
  await next?.stop();
  await fast?.stop();
});

type LogLine = Record<string, unknown>;

/** The first log line matching `match`, waiting for the asynchronous log to arrive. */
async function logLine(server: TestServer, match: (line: LogLine) => boolean): Promise<LogLine> {
  for (let waited = 0; waited < 3_000; waited += 50) {
    const found = server.logLines().find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no matching log line in:\n${server.output().slice(-4_000)}`);
}

const byRequestId = (id: string) => (line: LogLine) => line.requestId === id;

describe('request logs', () => {
  for (const door of ['npm start', 'next start'] as const) {
    const server = () => (door === 'npm start' ? fast : next);

    test(`${door}: one JSON line per API request, with the fields an operator needs`, async () => {
      const s = server();
      const client = new DigestClient(s.baseUrl, s.keys.member);
      const id = `list-${door.replace(' ', '-')}-1`;
      const res = await client.request(`/api/public/v1.0/orgs/${s.orgId}/events?itemsPerPage=5`, {
        headers: { 'X-Request-Id': id },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-request-id'), id);
      const line = await logLine(s, byRequestId(id));
      assert.equal(line.msg, 'request');
      assert.equal(line.level, 'info');
      assert.equal(line.method, 'GET');
      assert.equal(line.route, 'listOrgEvents');
      assert.equal(line.status, 200);
      assert.equal(line.orgId, s.orgId);
      assert.equal(line.publicKey, s.keys.member.publicKey);
      assert.equal(line.clientAddress, '127.0.0.1');
      assert.equal(typeof line.durationMs, 'number');
      assert.ok(!Number.isNaN(Date.parse(String(line.time))), String(line.time));
      assert.equal(s.logLines().filter(byRequestId(id)).length, 1, 'exactly one line');
    });

    test(`${door}: an insane X-Request-Id is replaced by a generated one`, async () => {
      const s = server();
      for (const bad of ['has spaces in it', 'x'.repeat(129), 'line\\nbreak', '{"json":1}']) {
        const res = await send(`${s.apiUrl}/orgs`, { headers: { 'X-Request-Id': bad } });
        assert.equal(res.status, 401);
        const id = res.headers.get('x-request-id');
        assert.match(id ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        const line = await logLine(s, byRequestId(id!));
        assert.equal(line.route, 'listOrgs');
        // The first leg of every Digest handshake is routine, not a failure.
        assert.equal(line.msg, 'request');
        assert.deepEqual(line.auth, {
          outcome: 'challenge',
          reason: 'no credentials',
          stale: false,
        });
      }
    });

    test(`${door}: a wrong private key is logged as an auth failure, the secret never`, async () => {
      const s = server();
      const wrongSecret = 'not-the-private-key-0000000000000000';
      const client = new DigestClient(s.baseUrl, {
        publicKey: s.keys.owner.publicKey,
        privateKey: wrongSecret,
      });
      const id = `wrong-${door.replace(' ', '-')}`;
      const res = await client.request(`/api/public/v1.0/orgs/${s.orgId}`, {
        headers: { 'X-Request-Id': id },
      });
      assert.equal(res.status, 401);
      const line = await logLine(s, byRequestId(id));
      assert.equal(line.msg, 'auth failure');
      assert.equal(line.level, 'warn');
      assert.equal(line.route, 'getOrg');
      assert.equal(line.publicKey, s.keys.owner.publicKey);
      assert.deepEqual(line.auth, { outcome: 'challenge', reason: 'wrong response', stale: false });
      const output = s.output();
      assert.ok(!output.includes(wrongSecret), 'the attempted private key is not logged');
      assert.ok(!/Digest username=|response="/.test(output), 'no Authorization header is logged');
      for (const key of Object.values(s.keys).flat()) {
        assert.ok(!output.includes(key.privateKey), 'no private key is logged');
      }
    });

    test(`${door}: credentials given the wrong way round (the private key as the username) never put the private key in the log`, async () => {
      const s = server();
      const owner = s.keys.owner;
      const client = new DigestClient(s.baseUrl, {
        publicKey: owner.privateKey,
        privateKey: owner.publicKey,
      });
      const id = `swapped-${door.replace(' ', '-')}`;
      const res = await client.request(`/api/public/v1.0/orgs/${s.orgId}`, {
        headers: { 'X-Request-Id': id },
      });
      assert.equal(res.status, 401);
      const line = await logLine(s, byRequestId(id));
      assert.equal(line.msg, 'auth failure');
      assert.equal(
        line.publicKey,
        undefined,
        "a username without a public key's shape is not named",
      );
      assert.ok(!s.output().includes(owner.privateKey), 'the private key is not logged');
    });

    test(`${door}: dashboard requests get a line with status and duration`, async () => {
      const s = server();
      const res = await send(`${s.baseUrl}/sign-in`, {
        headers: { 'X-Request-Id': `page-${door.replace(' ', '-')}` },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-request-id'), `page-${door.replace(' ', '-')}`);
      const line = await logLine(s, byRequestId(`page-${door.replace(' ', '-')}`));
      assert.equal(line.route, 'dashboard');
      assert.equal(line.path, '/sign-in');
      assert.equal(line.status, 200);
      assert.equal(typeof line.durationMs, 'number');
    });

    test(`${door}: the API calls a dashboard page makes are logged under the page's generated request id`, async () => {
      const s = server();
      const cookie = await signInForCookie(s, s.keys.member);
      // No X-Request-Id: the front door generates the page's id.
      const res = await send(`${s.baseUrl}/orgs/${s.orgId}/events`, { headers: { cookie } });
      assert.equal(res.status, 200);
      const id = res.headers.get('x-request-id');
      assert.ok(id, 'the page answers with its request id');
      const page = await logLine(s, (l) => l.requestId === id && l.route === 'dashboard');
      assert.equal(page.path, `/orgs/${s.orgId}/events`);
      const list = await logLine(s, (l) => l.requestId === id && l.route === 'listOrgEvents');
      assert.equal(list.status, 200);
      assert.equal(list.publicKey, s.keys.member.publicKey);
    });
  }

  test('npm start: a lockout is logged as such and counted', async () => {
    const key = fast.keys.spare[0]!;
    const client = new DigestClient(fast.baseUrl, { ...key, privateKey: 'wrong' });
    let status = 0;
    for (let i = 0; i < 12 && status !== 429; i++) {
      status = (
        await client.request(`/api/public/v1.0/orgs`, { headers: { 'X-Request-Id': `lock-${i}` } })
      ).status;
    }
    assert.equal(status, 429);
    const line = await logLine(fast, (l) => l.msg === 'lockout' && l.publicKey === key.publicKey);
    assert.equal(line.level, 'warn');
    assert.equal(line.status, 429);
    assert.equal((line.auth as { outcome: string }).outcome, 'lockout');
    const metrics = await send(`${fast.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.match(metrics.text, /^org_events_auth_lockouts_total [1-9]/m);
    assert.match(metrics.text, /^org_events_auth_failures_total\{reason="wrong response"\} [1-9]/m);
  });
});

describe('dashboard sign-in refusals', () => {
  test("npm start: refused and locked-out sign-ins are counted with the API's auth metrics", async () => {
    const key = fast.keys.spare[1]!;
    const metric = async (pattern: RegExp) => {
      const text = (
        await send(`${fast.baseUrl}/metrics`, {
          headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        })
      ).text;
      return Number(pattern.exec(text)?.[1] ?? 0);
    };
    const failures = /^org_events_auth_failures_total\{reason="dashboard sign-in"\} (\d+)/m;
    const lockouts = /^org_events_auth_lockouts_total (\d+)/m;
    const [failuresBefore, lockoutsBefore] = [await metric(failures), await metric(lockouts)];
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${fast.baseUrl}/api/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ publicKey: key.publicKey, privateKey: 'wrong' }),
      });
      statuses.push(res.status);
    }
    assert.deepEqual([...new Set(statuses)], [401, 429]);
    // The main thread counts once the response is done: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(
      (await metric(failures)) - failuresBefore,
      statuses.filter((s) => s === 401).length,
    );
    assert.equal(
      (await metric(lockouts)) - lockoutsBefore,
      statuses.filter((s) => s === 429).length,
    );
  });
});

describe('probes', () => {
  for (const door of ['npm start', 'next start'] as const) {
    const server = () => (door === 'npm start' ? fast : next);
    test(`${door}: /healthz and /readyz answer 200 JSON without authentication`, async () => {
      const s = server();
      const health = await send(`${s.baseUrl}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(health.headers.get('content-type'), 'application/json');
      assert.equal(health.json<{ status: string }>().status, 'ok');
      const ready = await send(`${s.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
      const head = await send(`${s.baseUrl}/readyz`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
    });
  }
});

describe('metrics', () => {
  test('next start without METRICS_TOKEN: /metrics is off (404)', async () => {
    const res = await send(`${next.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(res.status, 404);
  });

  test('npm start: 401 without the token or with a wrong one', async () => {
    for (const authorization of [undefined, `Bearer ${METRICS_TOKEN}x`, `Basic ${METRICS_TOKEN}`]) {
      const res = await send(`${fast.baseUrl}/metrics`, {
        headers: authorization ? { authorization } : {},
      });
      assert.equal(res.status, 401, String(authorization));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.ok(!res.text.includes('org_events_'), 'no metric leaks');
    }
  });

  test('npm start: Prometheus text with requests by route, method and status and a latency histogram', async () => {
    const client = new DigestClient(fast.baseUrl, fast.keys.member);
    assert.equal((await client.request(`/api/public/v1.0/orgs/${fast.orgId}`)).status, 200);
    assert.equal((await send(`${fast.baseUrl}/healthz`)).status, 200);
    const res = await send(`${fast.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    assert.match(
      text,
      /^org_events_http_requests_total\{route="getOrg",method="GET",status="200"\} [1-9]/m,
    );
    assert.match(
      text,
      /^org_events_http_requests_total\{route="healthz",method="GET",status="200"\} [1-9]/m,
    );
    assert.match(
      text,
      /^org_events_http_request_duration_seconds_bucket\{le="\+Inf",route="getOrg",method="GET"\} [1-9]/m,
    );
    assert.match(text, /^org_events_process_resident_memory_bytes \d+/m);
    // Route labels are names, never raw paths (a scanner cannot create series).
    assert.ok(!/route="\//.test(text), 'no raw path as a route label');
  });
});
