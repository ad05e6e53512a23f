import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setConfigForTesting } from '@/lib/config';
import { nonApiRouteName } from './access-log';
import { errorForLog } from './log';
import { metricsAnswer, observeRequest } from './metrics';
import { healthzAnswer, markDraining, readyzAnswer } from './probes';
import { requestIdFor } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  test('a sane incoming id is kept, trimmed', () => {
    for (const id of [
      'abc',
      'f0e1d2c3-b4a5',
      'Root=1-67891233-abcdef012345678912345678',
      ' trace:1/2 ',
    ]) {
      assert.equal(requestIdFor(id), id.trim());
    }
    assert.equal(requestIdFor('x'.repeat(128)), 'x'.repeat(128));
  });

  test('missing, empty, long or unsafe ids are replaced by a fresh UUID', () => {
    const bad = [
      null,
      undefined,
      '',
      '   ',
      'x'.repeat(129),
      'a b',
      'a"b',
      'a\\b',
      '{}',
      'ä',
      'a;b',
    ];
    const ids = bad.map((id) => requestIdFor(id));
    for (const id of ids) assert.match(id, UUID);
    assert.equal(new Set(ids).size, ids.length, 'each one new');
  });
});

test('non-API requests are named from a fixed set, never by their path', () => {
  assert.equal(nonApiRouteName('/healthz'), 'healthz');
  assert.equal(nonApiRouteName('/readyz/'), 'readyz');
  assert.equal(nonApiRouteName('/metrics'), 'metrics');
  assert.equal(nonApiRouteName('/_next/static/chunks/app.js'), 'next-static');
  assert.equal(nonApiRouteName('/orgs/65e1/events'), 'dashboard');
  assert.equal(nonApiRouteName('/healthzzz'), 'dashboard');
});

describe('/metrics', () => {
  test('off (404) without METRICS_TOKEN', async () => {
    setConfigForTesting({ METRICS_TOKEN: undefined });
    const res = await metricsAnswer('Bearer anything-at-all-here');
    assert.equal(res.status, 404);
  });

  test('401 unless the Bearer token matches exactly; 200 with the exposition', async () => {
    const token = 'a-token-of-some-length-1234';
    setConfigForTesting({ METRICS_TOKEN: token });
    for (const header of [
      null,
      '',
      token,
      `Bearer ${token}x`,
      `Bearer ${token.slice(1)}`,
      `Basic ${token}`,
    ]) {
      assert.equal((await metricsAnswer(header)).status, 401, String(header));
    }
    observeRequest('listOrgs', 'GET', 200, 12);
    const res = await metricsAnswer(`Bearer ${token}`);
    assert.equal(res.status, 200);
    assert.match(
      res.body,
      /^org_events_http_requests_total\{route="listOrgs",method="GET",status="200"\} 1$/m,
    );
    assert.match(
      res.body,
      /^org_events_http_request_duration_seconds_bucket\{le="0\.025",route="listOrgs",method="GET"\} 1$/m,
    );
    assert.match(
      res.body,
      /^org_events_http_request_duration_seconds_bucket\{le="0\.01",route="listOrgs",method="GET"\} 0$/m,
    );
  });

  test("process CPU counts all the process's CPU time, what it spent starting included", async () => {
    const token = 'a-token-of-some-length-1234';
    setConfigForTesting({ METRICS_TOKEN: token });
    // This process has spent CPU before its metrics existed (loading its modules, at least).
    const before = process.cpuUsage();
    const { body } = await metricsAnswer(`Bearer ${token}`);
    const seconds = (name: string) =>
      Number(new RegExp(`^org_events_${name} (\\S+)$`, 'm').exec(body)?.[1]);
    const atLeast = (name: string, micros: number) => {
      const value = seconds(name);
      assert.ok(value >= micros / 1e6, `${name} ${value}, the process had used ${micros / 1e6}`);
    };
    atLeast('process_cpu_user_seconds_total', before.user);
    atLeast('process_cpu_system_seconds_total', before.system);
    atLeast('process_cpu_seconds_total', before.user + before.system);
  });
});

describe('probes', () => {
  test('/healthz is 200 JSON', () => {
    const res = healthzAnswer();
    assert.equal(res.status, 200);
    assert.equal((JSON.parse(res.body) as { status: string }).status, 'ok');
  });

  test('/readyz answers 503 "stopping" once the server drains', async () => {
    // Before draining it would open the configured store; after, it must not.
    setConfigForTesting({ DATABASE_URL: 'postgres://127.0.0.1:1/never-opened' });
    markDraining();
    const res = await readyzAnswer();
    assert.equal(res.status, 503);
    assert.deepEqual(JSON.parse(res.body), { status: 'stopping' });
  });
});

test("errorForLog: an error's own message, once (pino appended each cause's again), its causes in the stack", () => {
  const cause = new Error('connect ECONNREFUSED 127.0.0.1:5432');
  const error = new Error('The database is unavailable: connect ECONNREFUSED 127.0.0.1:5432', {
    cause,
  });
  const logged = errorForLog(error) as { type: string; message: string; stack: string };
  assert.equal(logged.type, 'Error');
  assert.equal(logged.message, 'The database is unavailable: connect ECONNREFUSED 127.0.0.1:5432');
  assert.match(logged.stack, /\ncaused by: Error: connect ECONNREFUSED 127\.0\.0\.1:5432\n/);
  assert.equal(errorForLog('plain text'), 'plain text');
});

// Next's production server bundle minifies class names: `class c extends
// Error`, as written here, is what our error classes become there.
describe('errorForLog: the type of an error whose class name is minified', () => {
  test('is the name the class gives its errors', () => {
    class c extends Error {
      constructor(message: string) {
        super(message);
        this.name = 'StoreUnavailableError';
      }
    }
    const logged = errorForLog(new c('The database is unavailable')) as { type?: string };
    assert.equal(logged.type, 'StoreUnavailableError');
  });

  test("is the error's code when its name is minified too (a name taken from the constructor)", () => {
    class d extends Error {
      readonly code = 'ECONNRESET';
      constructor(message: string) {
        super(message);
        this.name = new.target.name;
      }
    }
    const logged = errorForLog(new d('socket hang up')) as { type?: string; code?: string };
    assert.equal(logged.type, 'ECONNRESET');
    assert.equal(logged.code, 'ECONNRESET');
  });

  test('is left out when nothing better than the minified name is known', () => {
    class e extends Error {
      constructor(message: string) {
        super(message);
        this.name = new.target.name;
      }
    }
    const logged = errorForLog(new e('went wrong')) as Record<string, unknown>;
    assert.equal('type' in logged, false);
    assert.equal(logged.message, 'went wrong');
  });
});
