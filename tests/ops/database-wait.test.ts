import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { DigestClient } from '@/tests/helpers/digest-client';
import { startPrivatePostgres, type PrivatePostgres } from '@/tests/helpers/private-postgres';
import { ROOT, startTestServer, type TestServer } from '@/tests/helpers/server';
import { freePort } from '@/tests/helpers/free-port';

/**
 * A server started before its database is up (compose without depends_on,
 * a pod beside its database, a host rebooting) waits for it, up to
 * DATABASE_WAIT_SECONDS, instead of exiting at once. The PostgreSQL is the
 * test's own cluster, stopped and started here: the shared one must never
 * go down under the other tests. Needs `npm run build`.
 */

const WAITING = /Waiting for the database \(DATABASE_WAIT_SECONDS=\d+\)/;

let postgres: PrivatePostgres;
let seeded: TestServer;

before(async () => {
  postgres = await startPrivatePostgres();
  // Keys and events, then the server goes: the next one starts against a stopped database.
  seeded = await startTestServer({ databaseUrl: postgres.url, eventCount: 30 });
  await seeded.stop();
});

after(async () => {
  await postgres?.destroy();
});

test('a server started while PostgreSQL is down waits, logging why, and serves once it is up', async () => {
  await postgres.stop();
  let waitingLines = 0;
  const server = await startTestServer({
    shareDataWith: seeded,
    env: { DATABASE_WAIT_SECONDS: '120' },
    // PostgreSQL comes up only once the server has said it is waiting for it.
    whileStarting: async (output) => {
      const since = Date.now();
      while (!WAITING.test(output())) {
        if (Date.now() - since > 60_000) throw new Error(`never said it waits:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await postgres.start();
    },
  });
  try {
    const waits = server.logLines().filter((line) => WAITING.test(String(line.msg)));
    waitingLines = waits.length;
    assert.ok(waitingLines >= 1);
    assert.equal(waits[0]!.level, 'warn');
    assert.match(String(waits[0]!.msg), /DATABASE_WAIT_SECONDS=120\): The database is unavailable/);
    assert.equal(waits[0]!.attempt, 1);

    const client = new DigestClient(server.baseUrl, server.keys.member);
    const res = await client.request(
      `/api/public/v1.0/orgs/${server.orgId}/events?includeCount=true&itemsPerPage=5`,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal((JSON.parse(res.text) as { totalCount: number }).totalCount, 30);
    const ready = await fetch(`${server.baseUrl}/readyz`);
    assert.equal(ready.status, 200);
  } finally {
    await server.stop();
  }
});

/** Runs server.ts to its exit: its code, what it printed, how long it took. */
function runServer(env: Record<string, string>): Promise<{
  code: number | null;
  output: string;
  seconds: number;
}> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', SERVE: 'api', PORT: '0', REDIS_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, seconds: (performance.now() - started) / 1000 });
    });
  });
}

test('no database within DATABASE_WAIT_SECONDS: exit 1, saying it was waited for', async () => {
  const port = await freePort();
  const run = await runServer({
    DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`,
    DATABASE_WAIT_SECONDS: '3',
  });
  assert.equal(run.code, 1, run.output);
  assert.match(
    run.output,
    /org-events failed to start: The database is unavailable: .*ECONNREFUSED.* \(still after waiting 3 s for it: DATABASE_WAIT_SECONDS\)/,
  );
  assert.ok(run.seconds >= 3, `gave up after ${run.seconds} s`);
  // Attempts back off (0.5 s, 1 s, 2 s, ...): a few lines, not one per millisecond.
  const attempts = run.output.split('\n').filter((line) => WAITING.test(line)).length;
  assert.ok(attempts >= 2 && attempts <= 6, `${attempts} attempts`);
});

test('DATABASE_WAIT_SECONDS=0: no wait, the failure at once as before', async () => {
  const port = await freePort();
  const run = await runServer({
    DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/test`,
    DATABASE_WAIT_SECONDS: '0',
  });
  assert.equal(run.code, 1, run.output);
  assert.match(
    run.output,
    /org-events failed to start: The database is unavailable: .*ECONNREFUSED/,
  );
  assert.doesNotMatch(run.output, WAITING);
  assert.doesNotMatch(run.output, /still after waiting/);
});

test('a failure waiting cannot fix (no such database, no such role) ends the start at once', async () => {
  // The test's own cluster, up: the role or the database of its URL swapped for one it lacks.
  const noDatabase = new URL(postgres.url);
  noDatabase.pathname = '/org_events_no_such_database';
  const noRole = new URL(postgres.url);
  noRole.username = 'org_events_no_such_role';
  for (const [url, named] of [
    [noDatabase.href, /org_events_no_such_database/],
    [noRole.href, /org_events_no_such_role/],
  ] as const) {
    const run = await runServer({ DATABASE_URL: url, DATABASE_WAIT_SECONDS: '60' });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /org-events failed to start: /);
    assert.match(run.output, named);
    assert.doesNotMatch(run.output, WAITING);
    assert.ok(run.seconds < 50, `took ${run.seconds} s`);
  }
});
