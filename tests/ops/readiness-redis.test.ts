import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { freePort } from '@/tests/helpers/free-port';
import { DigestClient, send } from '@/tests/helpers/digest-client';
import { startPrivateRedis, type PrivateRedis } from '@/tests/helpers/redis';
import {
  ROOT,
  runServerToExit,
  startTestServer,
  statusWithin,
  type TestServer,
} from '@/tests/helpers/server';

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

/** server.ts (the API alone, its own SQLite) started against `redisUrl`, run to its exit. */
function startAgainst(redisUrl: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-redis-refused-'));
  try {
    const started = performance.now();
    // A server that starts regardless would serve on: its start has failed the test.
    const run = runServerToExit(
      {
        ...process.env,
        NODE_ENV: 'test',
        SERVE: 'api',
        PORT: '0',
        HOSTNAME: '127.0.0.1',
        DATABASE_URL: `file:${path.join(dir, 'refused.db')}`,
        REDIS_URL: redisUrl,
      },
      { timeout: 30_000, killSignal: 'SIGKILL' },
    );
    return { ...run, seconds: (performance.now() - started) / 1000 };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a REDIS_URL whose password or user Redis refuses ends the start at once (exit 1), naming REDIS_URL, the password never', async () => {
  const password = 'the-right-redis-password';
  const guarded = await startPrivateRedis(['--requirepass', password]);
  const wrongPassword = 'a-wrong-redis-password-0000';
  const at = `127.0.0.1:${guarded.port}`;
  try {
    for (const [url, reply] of [
      [`redis://:${wrongPassword}@${at}`, /WRONGPASS/],
      [`redis://${at}`, /NOAUTH/],
      [`redis://org-events-nobody:${wrongPassword}@${at}`, /WRONGPASS/],
    ] as const) {
      const run = startAgainst(url);
      const output = `${run.stdout}${run.stderr}`;
      assert.equal(run.status, 1, output);
      assert.match(run.stderr, /> org-events failed to start: Redis refuses REDIS_URL \(user /);
      assert.match(run.stderr, reply);
      assert.doesNotMatch(run.stdout, /ready on/);
      assert.ok(!output.includes(wrongPassword), 'the password in REDIS_URL is never shown');
      assert.ok(run.seconds < 30, `took ${run.seconds} s`);
    }
  } finally {
    await guarded.close();
  }
});

/**
 * `next start` run to its exit against `redisUrl` (instrumentation.ts's
 * register() is what connects), one request sent as soon as Next prints
 * "Ready": its answer's status, or the error that ended it.
 */
async function nextStartAgainst(redisUrl: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-redis-refused-next-'));
  // Not the runner's NODE_ENV=test: Next runs as production.
  const { NODE_ENV: _nodeEnv, ...inherited } = process.env;
  const env = { ...inherited } as NodeJS.ProcessEnv;
  Object.assign(env, {
    NEXT_TELEMETRY_DISABLED: '1',
    DATABASE_URL: `file:${path.join(dir, 'refused.db')}`,
    REDIS_URL: redisUrl,
  });
  const port = String(await freePort());
  const next = path.join('node_modules', 'next', 'dist', 'bin', 'next');
  const child = spawn(process.execPath, [next, 'start', '-p', port, '-H', '127.0.0.1'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [stdout, stderr] = ['', ''];
  let request: Promise<string> | undefined;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    request ??= /Ready in/.test(stdout) ? answerTo(`http://127.0.0.1:${port}/healthz`) : undefined;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // One that starts regardless would serve on: its start has failed the test.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { status, stdout, stderr, answer: await request };
  } finally {
    clearTimeout(killer);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `200`, or what ended the request without an answer (`ECONNRESET`…). */
function answerTo(url: string): Promise<string> {
  return new Promise((resolve) => {
    http
      .get(url, (response) => {
        response.resume();
        resolve(String(response.statusCode));
      })
      .once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

test('under `next start`, a REDIS_URL whose password Redis refuses ends the start (exit 1) with server.ts\'s line, and the request sent at Next\'s "Ready" is never answered', async () => {
  const guarded = await startPrivateRedis(['--requirepass', 'the-right-redis-password']);
  const wrongPassword = 'a-wrong-redis-password-0000';
  try {
    const run = await nextStartAgainst(`redis://:${wrongPassword}@127.0.0.1:${guarded.port}`);
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 1, output);
    assert.match(run.stderr, /> org-events failed to start: Redis refuses REDIS_URL \(user /);
    assert.match(run.stderr, /WRONGPASS/);
    assert.ok(!output.includes(wrongPassword), 'the password in REDIS_URL is never shown');
    // Next prints Ready once it listens, before it loads the app and runs
    // register(); a request meanwhile waits for register() and is dropped with the process.
    assert.match(run.stdout, /Ready in/);
    assert.ok(run.answer !== undefined && !/^\d+$/.test(run.answer), `answered ${run.answer}`);
  } finally {
    await guarded.close();
  }
});

test('a Redis that is not there at start: the server starts all the same, /readyz 503', async () => {
  const absent = await startTestServer({
    env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
    eventCount: 5,
  });
  try {
    assert.equal(await statusWithin(absent, '/readyz', 503, 10_000), 503);
  } finally {
    await absent.stop();
  }
});

test('a password changed on Redis while serving: requests 503, the log saying Redis refuses REDIS_URL rather than that it is unreachable, the password never', async () => {
  const password = 'the-first-redis-password';
  const guarded = await startPrivateRedis(['--requirepass', password]);
  const server = await startTestServer({
    env: { REDIS_URL: `redis://:${password}@127.0.0.1:${guarded.port}` },
    eventCount: 5,
  });
  const admin = new Redis(`redis://:${password}@127.0.0.1:${guarded.port}`);
  try {
    const client = new DigestClient(server.baseUrl, server.keys.member);
    const events = `/api/public/v1.0/orgs/${server.orgId}/events`;
    assert.equal((await client.request(events)).status, 200);
    // Rotated on Redis alone; the server's connection goes, as on a Redis restart.
    await admin.config('SET', 'requirepass', 'the-second-redis-password');
    await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    assert.equal(await statusWithin(server, '/readyz', 503, 10_000), 503);
    assert.equal((await client.request(events)).status, 503);
    const messages = server.logLines().map((line) => String(line.msg));
    assert.ok(
      messages.some((m) => /^Redis refuses REDIS_URL \(user "default" at .*\): WRONGPASS/.test(m)),
      messages.join('\n'),
    );
    assert.ok(!messages.some((m) => m.startsWith('Redis unreachable')), messages.join('\n'));
    assert.ok(!server.output().includes(password), 'the password in REDIS_URL is not logged');
  } finally {
    admin.disconnect();
    await server.stop();
    await guarded.close();
  }
});
