/**
 * `npm run test:chaos`: a bounded fuzz and load run against the built
 * server (`npm start`'s server.ts, on a fresh SQLite database seeded like
 * the integration tests). Needs `npm run build`.
 *
 * 1. Fuzz: CHAOS_FUZZ_REQUESTS (default 100,000) random requests over 64
 *    connections: methods, API and dashboard paths with broken encodings and
 *    ids, random query parameters and values, URLs up to 70 KB (past the
 *    64 KB header limit: 431), and headers that lie (malformed and wrong
 *    Digest Authorization, junk cookies, hosts, forwarding headers and
 *    request ids).
 * 2. Load: CHAOS_LOAD_SECONDS (default 60) of authenticated list and get
 *    requests from 64 Digest clients (bench/lib/digest-load.ts).
 *
 * Fails (exit 1) on any 5xx, on any non-200 under load, or if the server
 * dies. Prints the server's RSS before and after and the load average.
 * tests/ops/chaos.test.ts runs a short variant in CI.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { runLoad } from '@/bench/lib/digest-load';
import { machineLine } from '@/bench/lib/machine';
import { authorizationHeader } from '@/tests/helpers/digest-client';
import { startTestServer, type TestServer } from '@/tests/helpers/server';

const FUZZ_REQUESTS = Number(process.env.CHAOS_FUZZ_REQUESTS ?? 100_000);
const LOAD_SECONDS = Number(process.env.CHAOS_LOAD_SECONDS ?? 60);
const CONNECTIONS = 64;

// ---- a small seeded PRNG: a failing run can be replayed with CHAOS_SEED ----
let state = Number(process.env.CHAOS_SEED ?? Date.now()) >>> 0 || 1;
const seed = state;
function random(): number {
  // xorshift32
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
}
const int = (n: number) => Math.floor(random() * n);
const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
const chance = (p: number) => random() < p;
const hex = (n: number) => Array.from({ length: n }, () => int(16).toString(16)).join('');
const printable = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(0x21 + int(0x7e - 0x21))).join('');

// ---- what a request may be made of ----
const METHODS = ['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'];
const PARAM_NAMES = [
  'pageNum',
  'itemsPerPage',
  'eventType',
  'minDate',
  'maxDate',
  'pretty',
  'envelope',
  'includeRaw',
  'includeCount',
  'backingDatabase',
  'x',
];
const PARAM_VALUES = [
  '1',
  '0',
  '-1',
  '500',
  '501',
  '99999999999999999999',
  'true',
  'false',
  'TRUE',
  '',
  'NaN',
  '2024-02-30',
  '2024-03-01T24:00:00Z',
  '2024-03-01T10:00:00.000Z',
  '1709280000000',
  'JOINED_ORG',
  'USER_ROLES_CHANGED_AUDIT',
  'not-a-type',
  '%',
  '%zz',
  '%00',
  '%E2%82',
  '..%2F..%2F',
  '<script>',
  "'; DROP TABLE events; --",
];

function segment(server: TestServer): string {
  return pick([
    server.orgId,
    server.otherOrgId,
    hex(24),
    hex(23),
    'ZZZZZZZZZZZZZZZZZZZZZZZZ',
    '',
    '.',
    '..',
    '%2e%2e',
    '%',
    '%zz',
    '%2F',
    encodeURIComponent('ö'),
    printable(int(12)).replace(/[?#/]/g, '_'),
  ]);
}

/**
 * Mostly API paths (cheap to answer, where the parsing is); one in six goes
 * to Next (pages, probes, assets), whose server rendering costs far more.
 */
function randomPath(server: TestServer): string {
  const api = '/api/public/v1.0';
  const event = server.events.org[int(server.events.org.length)]!;
  if (chance(1 / 6)) {
    return pick([
      '/',
      '/sign-in',
      `/orgs/${segment(server)}`,
      `/orgs/${server.orgId}/events`,
      '/healthz',
      '/readyz',
      '/metrics',
      `/_next/static/${printable(8).replace(/[?#/%]/g, '_')}.js`,
      `/${segment(server)}`,
    ]);
  }
  return pick([
    `${api}/orgs`,
    `${api}/orgs/${segment(server)}`,
    `${api}/orgs/${segment(server)}/events`,
    `${api}/orgs/${server.orgId}/events`,
    `${api}/orgs/${server.orgId}/events/${pick([event.id, hex(24), segment(server)])}`,
    `${api}/orgs/${segment(server)}/eventTypes`,
    `${api}/openapi.json`,
    `${api}`,
    `${api}/`,
    `${api}//orgs`,
    `${api}/orgs/${server.orgId}/events/`,
    `${api}/${segment(server)}/${segment(server)}/${segment(server)}`,
  ]);
}

function randomQuery(): string {
  if (chance(0.3)) return '';
  const pairs = Array.from({ length: 1 + int(6) }, () => {
    const name = chance(0.9) ? pick(PARAM_NAMES) : printable(1 + int(8)).replace(/[#&=]/g, '_');
    const value = chance(0.9) ? pick(PARAM_VALUES) : printable(int(20)).replace(/[#&]/g, '_');
    return `${name}=${value}`;
  });
  return `?${pairs.join('&')}`;
}

/** A long query: many eventType filters, 2 to 70 KB (past 64 KB Node answers 431). */
function longQuery(): string {
  const target = 2_048 + int(68 * 1024);
  let query = '?itemsPerPage=5';
  while (query.length < target) query += `&eventType=${pick(PARAM_VALUES.slice(15, 18))}`;
  return query;
}

function badDigest(server: TestServer, uri: string): string {
  const { member } = server.keys;
  const fields = {
    username: pick([member.publicKey, hex(8), '', '"', 'a'.repeat(300)]),
    realm: pick([server.realm, 'other', '']),
    nonce: pick([hex(40), '', 'not base64 !', 'A'.repeat(500)]),
    uri: pick([uri, '/', '/api/public/v1.0/orgs', '']),
    response: pick([hex(32), hex(64), '', 'zz']),
  };
  return pick([
    // Well formed, wrong: a valid shape with a made-up nonce and response.
    () =>
      authorizationHeader({
        username: member.publicKey,
        password: 'wrong',
        realm: server.realm,
        nonce: fields.nonce || hex(40),
        method: 'GET',
        uri,
        nc: 1 + int(0xffffffff),
        algorithm: pick(['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess'] as const),
      }),
    () =>
      `Digest ${Object.entries(fields)
        .map(([k, v]) => `${k}="${v}"`)
        .join(', ')}`,
    () => `Digest username="${fields.username}", realm="${fields.realm}`, // unterminated quote
    () => `Digest ${printable(int(200))}`,
    () =>
      `Digest nc=${pick(['ffffffffff', '-1', 'zz', ''])}, qop=${pick(['auth', 'auth-int', ''])}`,
    () => `Digest username=a, username=b, realm=c, realm=d`,
    () => `Digest algorithm=${pick(['MD4', 'SHA-512', '', '"'])}, ${printable(30)}`,
    () => 'Digest',
    () => `Basic ${Buffer.from(`${member.publicKey}:${member.privateKey}`).toString('base64')}`,
    () => `Bearer ${printable(40)}`,
    () => `Digest ${'x="y", '.repeat(2_000)}`,
  ])();
}

function randomHeaders(server: TestServer, path: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (chance(0.5)) headers.authorization = badDigest(server, path);
  if (chance(0.15)) headers.cookie = `org_events_session=${printable(int(400)).replace(/;/g, '_')}`;
  if (chance(0.1)) headers['x-forwarded-for'] = pick(['203.0.113.9', 'junk', '1.1.1.1, 2.2.2.2']);
  if (chance(0.05)) headers['x-forwarded-proto'] = pick(['https', 'gopher']);
  if (chance(0.05)) headers.host = pick(['evil.example', '[::1]:99999', printable(20)]);
  if (chance(0.1)) headers['x-request-id'] = printable(int(300));
  if (chance(0.1)) headers['x-org-events-client'] = 'dashboard';
  if (chance(0.1)) headers.accept = pick(['text/html', 'application/json', '*/*', printable(10)]);
  return headers;
}

type Tally = {
  statuses: Map<number, number>;
  transportErrors: Map<string, number>;
  /** The first few 5xx answers, what was asked and what came back, to replay by hand. */
  serverErrors: string[];
};
const SERVER_ERRORS_KEPT = 5;

function sendOne(
  agent: http.Agent,
  base: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ outcome: number | string; body?: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path,
        headers,
        timeout: 30_000,
        // A redirect's Location repeats a URL of up to 64 KB: read it as a browser would.
        maxHeaderSize: 128 * 1024,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // Only a 5xx's body is kept (it names what failed); the rest are drained.
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          if (status >= 500) chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ outcome: status, body: Buffer.concat(chunks).toString('utf8').slice(0, 300) }),
        );
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ outcome: error.code ?? 'response error' }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ outcome: error.code ?? error.message }),
    );
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') req.end(printable(int(64)));
    else req.end();
  });
}

async function fuzz(server: TestServer, total: number): Promise<Tally> {
  const base = new URL(server.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const tally: Tally = { statuses: new Map(), transportErrors: new Map(), serverErrors: [] };
  let sent = 0;
  const worker = async () => {
    while (sent < total) {
      sent += 1;
      const path = randomPath(server);
      // Node's client sends no raw spaces: '+' is what a form would send.
      const target = (path + (chance(0.03) ? longQuery() : randomQuery())).replace(/ /g, '+');
      const method = pick(METHODS);
      const headers = randomHeaders(server, target);
      const { outcome, body } = await sendOne(agent, base, method, target, headers);
      if (
        typeof outcome === 'number' &&
        outcome >= 500 &&
        tally.serverErrors.length < SERVER_ERRORS_KEPT
      ) {
        tally.serverErrors.push(
          `${outcome} ${method} ${target.slice(0, 300)} headers ${JSON.stringify(headers).slice(0, 300)} -> ${body}`,
        );
      }
      const map = typeof outcome === 'number' ? tally.statuses : tally.transportErrors;
      map.set(outcome as never, (map.get(outcome as never) ?? 0) + 1);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  } finally {
    agent.destroy();
  }
  return tally;
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
  return Math.round((kib / 1024) * 10) / 10;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sorted = (map: Map<number | string, number>) =>
  Object.fromEntries([...map].sort(([a], [b]) => String(a).localeCompare(String(b))));

async function main(): Promise<void> {
  console.log(machineLine());
  console.log(
    `seed ${seed}: fuzz ${FUZZ_REQUESTS} requests, load ${LOAD_SECONDS} s, ${CONNECTIONS} connections`,
  );
  // Warnings (every refused Digest) would flood the pipe: errors only.
  const server = await startTestServer({ env: { LOG_LEVEL: 'error' } });
  const failures: string[] = [];
  try {
    const rssStart = rssMiB(server.pid);

    let started = performance.now();
    const tally = await fuzz(server, FUZZ_REQUESTS);
    const fuzzSeconds = (performance.now() - started) / 1000;
    const rssAfterFuzz = rssMiB(server.pid);
    const fuzz5xx = [...tally.statuses].filter(([status]) => status >= 500);
    console.log(`fuzz: ${FUZZ_REQUESTS} requests in ${fuzzSeconds.toFixed(1)} s`);
    console.log(`  statuses ${JSON.stringify(sorted(tally.statuses))}`);
    console.log(`  transport errors ${JSON.stringify(sorted(tally.transportErrors))}`);
    if (fuzz5xx.length) {
      failures.push(`fuzz got 5xx: ${JSON.stringify(Object.fromEntries(fuzz5xx))}`);
      for (const line of tally.serverErrors) console.log(`  5xx: ${line}`);
    }
    if (!alive(server.pid)) failures.push('the server died during the fuzz run');

    started = performance.now();
    const { orgId, events } = server;
    const paths = [
      `/api/public/v1.0/orgs/${orgId}/events?itemsPerPage=100`,
      `/api/public/v1.0/orgs/${orgId}/events?itemsPerPage=10&pageNum=3&eventType=JOINED_ORG`,
      `/api/public/v1.0/orgs/${orgId}/events/${events.org[0]!.id}`,
      `/api/public/v1.0/orgs/${orgId}/eventTypes`,
      `/api/public/v1.0/orgs/${orgId}`,
    ];
    const load = await runLoad({
      baseUrl: server.baseUrl,
      paths,
      credentials: {
        username: server.keys.member.publicKey,
        password: server.keys.member.privateKey,
      },
      concurrency: CONNECTIONS,
      durationMs: LOAD_SECONDS * 1000,
    });
    console.log(
      `load: ${load.requests} requests in ${(load.durationMs / 1000).toFixed(1)} s ` +
        `(${Math.round(load.rps)}/s, p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, ` +
        `max ${load.max.toFixed(0)} ms), statuses ${JSON.stringify(load.statuses)}`,
    );
    if (load.errors) failures.push(`load got non-200 answers: ${JSON.stringify(load.statuses)}`);
    if (!alive(server.pid)) failures.push('the server died during the load run');

    const rssEnd = rssMiB(server.pid);
    console.log(
      `server RSS: ${rssStart} MiB at start, ${rssAfterFuzz} MiB after the fuzz, ${rssEnd} MiB after the load ` +
        `(growth ${(rssEnd - rssStart).toFixed(1)} MiB)`,
    );
    console.log(
      `load average (1, 5, 15 min): ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    const errorLines = server.logLines().filter((line) => line.level === 'error');
    if (errorLines.length) {
      failures.push(
        `${errorLines.length} error log lines, first: ${JSON.stringify(errorLines[0])}`,
      );
    }
  } finally {
    await server.stop();
  }
  if (failures.length) {
    console.error(`FAILED (seed ${seed}):\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
  console.log('chaos: zero 5xx, every loaded request answered 200');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
