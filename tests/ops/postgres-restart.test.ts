import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DigestClient } from '@/tests/helpers/digest-client';
import { startPrivatePostgres, type PrivatePostgres } from '@/tests/helpers/private-postgres';
import { startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * PostgreSQL restarted under load (`pg_ctl stop -m fast`, a few seconds
 * down, start): the server answers 503 with Retry-After while the database is
 * away and never 500, serves again by itself within 10 s of the restart, and
 * neither the requests that failed nor the pool's idle connections (which
 * the server's `-m fast` disconnects) raise an uncaught exception. The
 * PostgreSQL is the test's own cluster: the shared one must never restart
 * under the other tests. Needs `npm run build`.
 */

const CLIENTS = 4;
const WARM_UP_MS = 1_000;
const OUTAGE_MS = 3_000;
/** Full recovery within this long of `pg_ctl start`... */
const RECOVERY_MS = 10_000;
/** ...and the load goes on this much longer, to show it holds. */
const STEADY_MS = 2_000;

let postgres: PrivatePostgres;
let server: TestServer;

before(async () => {
  postgres = await startPrivatePostgres();
  server = await startTestServer({ databaseUrl: postgres.url, eventCount: 300 });
});

after(async () => {
  await server?.stop();
  await postgres?.destroy();
});

type Sample = {
  /** When the request was sent and answered, ms since the run began. */
  sent: number;
  answered: number;
  status: number;
  retryAfter: string | null;
};

test('PostgreSQL restarted under load: 503 with Retry-After meanwhile, no 500, back within 10 s', async (t) => {
  const path = `/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=20`;
  const begin = performance.now();
  const clock = () => performance.now() - begin;
  const samples: Sample[] = [];
  let running = true;

  // Each client keeps one nonce and counts nc up, like a real Digest client;
  // a network failure (not an HTTP answer) would reject and fail the test.
  const load = Array.from({ length: CLIENTS }, async () => {
    const client = new DigestClient(server.baseUrl, server.keys.member);
    while (running) {
      const sent = clock();
      const res = await client.request(path);
      samples.push({
        sent,
        answered: clock(),
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
      });
    }
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  await sleep(WARM_UP_MS);
  // A loaded machine can take longer than the warm-up to serve the first
  // request: the outage starts only once the load is really being served.
  while (!samples.some((s) => s.status === 200) && clock() < WARM_UP_MS + 20_000) await sleep(50);
  const stopping = clock();
  await postgres.stop();
  const down = clock();
  await sleep(OUTAGE_MS);
  const starting = clock();
  await postgres.start();
  const up = clock();
  await sleep(starting + RECOVERY_MS + STEADY_MS - clock());
  running = false;
  await Promise.all(load);
  const end = clock();

  const describe = (s: Sample) =>
    `${s.status} sent ${Math.round(s.sent)} ms, answered ${Math.round(s.answered)} ms`;
  const counts = new Map<number, number>();
  for (const s of samples) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  const timeline = [
    `pg_ctl stop ${Math.round(stopping)}-${Math.round(down)} ms`,
    `start ${Math.round(starting)}-${Math.round(up)} ms`,
    `end ${Math.round(end)} ms`,
    `statuses ${JSON.stringify(Object.fromEntries(counts))}`,
  ].join(', ');
  // Every finding at once: one run shows the whole picture.
  const problems: string[] = [];
  const first = (list: Sample[], what: string) => {
    if (list.length > 0)
      problems.push(`${what}: ${list.length}, e.g. ${list.slice(0, 5).map(describe).join('; ')}`);
  };

  if (!samples.some((s) => s.answered < stopping && s.status === 200))
    problems.push('nothing was served before the outage');
  first(
    samples.filter((s) => s.status !== 200 && s.status !== 503),
    'answers other than 200 and 503 (never a 500)',
  );
  // Sent after the database was down and answered before it started again:
  // nothing can serve them, and all of them must say so with a 503.
  const duringOutage = samples.filter((s) => s.sent >= down && s.answered <= starting);
  if (duringOutage.length === 0) problems.push('no request was answered during the outage');
  first(
    duringOutage.filter((s) => s.status !== 503),
    'answers other than 503 during the outage',
  );
  first(
    samples.filter((s) => s.status === 503 && !/^\d+$/.test(s.retryAfter ?? '')),
    '503s without a Retry-After in seconds',
  );

  // Full recovery: from some moment within 10 s of the restart on, every
  // answer is 200, until the end of the run.
  const lastFailure = samples
    .filter((s) => s.status !== 200)
    .reduce((latest, s) => Math.max(latest, s.answered), 0);
  if (lastFailure > starting + RECOVERY_MS)
    problems.push(`a non-200 answer ${Math.round(lastFailure - starting)} ms after pg_ctl start`);
  const steady = samples.filter((s) => s.sent > lastFailure).length;
  if (steady < 20) problems.push(`only ${steady} requests served after the last failure`);

  // The process survived on its own, and printed nothing about an uncaught error.
  try {
    process.kill(server.pid, 0);
  } catch {
    problems.push('the server process died');
  }
  for (const line of server.output().split('\n')) {
    if (/uncaught|unhandled/i.test(line)) problems.push(`server output: ${line.slice(0, 300)}`);
  }

  // The pool's idle connections the restart cut (there are some in most
  // runs, none when every connection was busy) are reported through the
  // server's own log, whose JSON lines carry the pid, at its LOG_LEVEL: they
  // went to stderr in a shape of their own (no pid), at any level.
  const outside = server
    .logLines()
    .filter((line) => line.msg === 'PostgreSQL connection lost while idle in the pool')
    .filter((line) => line.pid !== server.pid).length;
  if (outside > 0)
    problems.push(`${outside} lost-connection lines outside the server log (no pid)`);

  t.diagnostic(timeline);
  assert.deepEqual(problems, [], timeline);
});
