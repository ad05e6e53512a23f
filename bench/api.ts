/**
 * `npm run bench`: API throughput and latency, ours against a plain node:http
 * baseline running the same lib/ code, measured in the same run, on SQLite and
 * PostgreSQL. Prints one table and writes bench/results/api-<time>.json.
 * Nothing here asserts on time: it reports.
 *
 *   npm run bench -- [--events 1000000] [--engines sqlite,postgres]
 *                    [--duration 3000] [--rounds 3] [--concurrency 1,16] [--reuse] [--no-next]
 *                    [--api-only]
 *
 * On a shared machine the load moves from second to second, so the servers
 * run side by side (an idle one costs nothing) and take turns: each cell is
 * `rounds` short runs per server, interleaved, and the ratio printed is the
 * median of the rounds' ratios. Before it is measured, `npm start` serves a
 * dashboard page, as it has in production: Next's rendering turns on
 * process-wide machinery (on Node 20, AsyncLocalStorage's promise hooks)
 * that the API's fast path then runs beside. `--api-only` measures `npm start`
 * with SERVE=api instead: a process that serves only the API (no Next).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { issueApiKey } from '@/lib/auth/api-keys';
import { getConfig } from '@/lib/config';
import { objectIdAt } from '@/lib/domain/object-id';
import { generateEventBatches } from '@/lib/ingest/seed';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { type Credentials, type LoadResult, runLoad } from './lib/digest-load';
import { machineInfo, machineLine } from './lib/machine';
import {
  type RunningServer,
  startBaselineServer,
  startNextOnlyServer,
  startOurServer,
} from './lib/servers';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    engines: { type: 'string', default: 'sqlite,postgres' },
    duration: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,16' },
    reuse: { type: 'boolean', default: false },
    'no-next': { type: 'boolean', default: false },
    'api-only': { type: 'boolean', default: false },
    'pg-admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const EVENTS = Number(args.events);
const DURATION_MS = Number(args.duration);
const ROUNDS = Math.max(1, Number(args.rounds));
const CONCURRENCY = args.concurrency.split(',').map(Number);
const ENGINES = args.engines.split(',') as ('sqlite' | 'postgres')[];
const ORG_ID = objectIdAt(Date.UTC(2025, 0, 1), '0000000000000be7');
const SEED_TO = Date.UTC(2026, 10, 1);
const SEED_FROM = SEED_TO - 365 * 86_400_000;
const ROOT = path.resolve(__dirname, '..');

type Scenario = { name: string; paths: string[] };
type Row = {
  engine: string;
  scenario: string;
  concurrency: number;
  results: Record<string, LoadResult>;
  /** Per server: the median over rounds of its req/s over the baseline's in the same round. */
  ratios: Record<string, number>;
};

function log(message: string) {
  process.stderr.write(`${message}\n`);
}

async function databaseUrlFor(engine: 'sqlite' | 'postgres'): Promise<string> {
  if (engine === 'sqlite') {
    const file = path.join(ROOT, 'bench', 'data', `api-${EVENTS}.db`);
    if (!args.reuse)
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    return `file:${file}`;
  }
  const name = `org_events_bench_${EVENTS}`;
  const admin = new pg.Client({ connectionString: args['pg-admin-url'] });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!args.reuse && exists.rowCount) await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    if (!args.reuse || !exists.rowCount) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(args['pg-admin-url']);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Seeds the org (unless already there) and issues a fresh key for this run. */
async function prepare(
  store: EventStore,
): Promise<{ credentials: Credentials; seedRate?: number }> {
  let seedRate: number | undefined;
  if (!(await store.getOrg(ORG_ID))) {
    await store.createOrg({ id: ORG_ID, name: 'Benchmark Org', created: SEED_FROM });
    const started = performance.now();
    let done = 0;
    for (const batch of generateEventBatches(
      { orgId: ORG_ID, count: EVENTS, seed: 7, from: SEED_FROM, to: SEED_TO },
      10_000,
    )) {
      await store.insertEvents(ORG_ID, batch);
      done += batch.length;
      if (done % 200_000 === 0) log(`  seeded ${done.toLocaleString()} events`);
    }
    await store.refreshStatistics();
    seedRate = done / ((performance.now() - started) / 1000);
    log(
      `  seeded ${done.toLocaleString()} events at ${Math.round(seedRate).toLocaleString()} events/s`,
    );
  }
  const { record, privateKey } = await issueApiKey(store, {
    orgId: ORG_ID,
    role: 'ORG_MEMBER',
    description: 'benchmark',
    realm: getConfig().DIGEST_REALM,
  });
  return { credentials: { username: record.publicKey, password: privateKey }, seedRate };
}

async function scenarios(store: EventStore): Promise<Scenario[]> {
  const base = `/api/public/v1.0/orgs/${ORG_ID}/events`;
  const total = await store.countEvents({ orgId: ORG_ID });
  const deepPage = Math.max(1, Math.floor((total * 0.9) / 100));
  const types = (await store.eventTypeCounts(ORG_ID)).slice(0, 2).map((t) => t.eventTypeName);
  const maxDate = new Date(SEED_TO).toISOString();
  const minDate = new Date(SEED_TO - 7 * 86_400_000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const page = await store.listEvents({
      orgId: ORG_ID,
      offset: Math.floor((total / 50) * i),
      limit: 1,
      includeCount: false,
      includeRaw: false,
    });
    if (page.events[0]) ids.push(page.events[0].id);
  }
  return [
    { name: 'list first page', paths: [base] },
    { name: 'list 90% deep', paths: [`${base}?pageNum=${deepPage}&itemsPerPage=100`] },
    {
      name: 'list 2 types, 7 days',
      paths: [
        `${base}?eventType=${types[0]}&eventType=${types[1]}&minDate=${encodeURIComponent(minDate)}&maxDate=${encodeURIComponent(maxDate)}`,
      ],
    },
    { name: 'get by id', paths: ids.map((id) => `${base}/${id}`) },
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Rounds of one server merged: requests and time summed, latencies their median. */
function merge(rounds: LoadResult[]): LoadResult {
  const requests = rounds.reduce((sum, r) => sum + r.requests, 0);
  const durationMs = rounds.reduce((sum, r) => sum + r.durationMs, 0);
  const statuses: Record<number, number> = {};
  for (const round of rounds)
    for (const [status, n] of Object.entries(round.statuses))
      statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n;
  return {
    requests,
    durationMs,
    statuses,
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    challenges: rounds.reduce((sum, r) => sum + r.challenges, 0),
    rps: requests / (durationMs / 1000),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    max: Math.max(...rounds.map((r) => r.max)),
  };
}

type Cell = { results: Record<string, LoadResult>; ratios: Record<string, number> };

/** Every scenario on every server, the servers taking turns round by round. */
async function measure(
  servers: Record<string, RunningServer>,
  list: Scenario[],
  credentials: Credentials,
): Promise<Record<string, Cell>> {
  const out: Record<string, Cell> = {};
  for (const scenario of list) {
    for (const concurrency of CONCURRENCY) {
      const rounds: Record<string, LoadResult[]> = {};
      for (let round = 0; round < ROUNDS; round++) {
        for (const [key, server] of Object.entries(servers)) {
          const result = await runLoad({
            baseUrl: server.baseUrl,
            paths: scenario.paths,
            credentials,
            concurrency,
            durationMs: DURATION_MS / ROUNDS,
            warmupMs: round === 0 ? 700 : 200,
          });
          (rounds[key] ??= []).push(result);
        }
      }
      const results = Object.fromEntries(Object.entries(rounds).map(([k, v]) => [k, merge(v)]));
      const baseline = rounds.baseline!;
      const ratios = Object.fromEntries(
        Object.entries(rounds).map(([k, v]) => [
          k,
          median(v.map((r, i) => r.rps / baseline[i]!.rps)),
        ]),
      );
      out[`${scenario.name}|${concurrency}`] = { results, ratios };
      for (const [key, result] of Object.entries(results)) {
        log(
          `  ${servers[key]!.name.padEnd(28)} ${scenario.name.padEnd(22)} c=${String(concurrency).padEnd(3)} ` +
            `${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms` +
            (result.errors ? `  ERRORS ${result.errors}` : ''),
        );
      }
    }
  }
  return out;
}

/** One dashboard page from Next, as a production server has served before any API call we time. */
async function serveDashboardPage(server: RunningServer): Promise<void> {
  const response = await fetch(`${server.baseUrl}/sign-in`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /sign-in answered ${response.status}`);
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    throw new Error('No production build: run `npm run build` first.');
  }
  const rows: Row[] = [];
  const meta: Record<string, unknown> = {
    events: EVENTS,
    durationMs: DURATION_MS,
    startedAt: new Date().toISOString(),
    machine: machineInfo(),
  };
  for (const engine of ENGINES) {
    log(`\n== ${engine}: ${EVENTS.toLocaleString()} events`);
    const databaseUrl = await databaseUrlFor(engine);
    const store = await openStore(databaseUrl);
    const { credentials, seedRate } = await prepare(store);
    const list = await scenarios(store);
    await store.close();
    meta[`${engine}SeedEventsPerSecond`] = seedRate;

    const env = { DATABASE_URL: databaseUrl, NODE_ENV: 'production' };
    const servers: [string, () => Promise<RunningServer>][] = [
      ['ours', () => startOurServer(args['api-only'] ? { ...env, SERVE: 'api' } : env)],
      ['baseline', () => startBaselineServer(env)],
      ...(args['no-next']
        ? []
        : ([['next', () => startNextOnlyServer(env, 3990)]] as [
            string,
            () => Promise<RunningServer>,
          ][])),
    ];
    const running: Record<string, RunningServer> = {};
    try {
      for (const [key, start] of servers) running[key] = await start();
      if (!args['api-only']) await serveDashboardPage(running.ours!);
      const cells = await measure(running, list, credentials);
      for (const scenario of list) {
        for (const concurrency of CONCURRENCY) {
          const cell = cells[`${scenario.name}|${concurrency}`]!;
          rows.push({ engine, scenario: scenario.name, concurrency, ...cell });
        }
      }
    } finally {
      for (const server of Object.values(running)) await server.stop();
    }
  }
  console.log(
    `\n${machineLine()} (at the end; at the start: ${(meta.machine as ReturnType<typeof machineInfo>).loadavg.map((l) => l.toFixed(2)).join(' ')})`,
  );
  printTable(rows);
  const outDir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, `api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ meta, rows }, null, 2));
  log(`\nwrote ${path.relative(ROOT, file)}`);
}

function printTable(rows: Row[]) {
  const header = [
    'engine',
    'scenario',
    'c',
    'ours req/s',
    'p50 ms',
    'p99 ms',
    'baseline req/s',
    'p50 ms',
    'p99 ms',
    'ours/baseline',
    'next-only req/s',
    'next/baseline',
  ];
  const lines = rows.map((row) => {
    const ours = row.results.ours!;
    const baseline = row.results.baseline!;
    const nextOnly = row.results.next;
    return [
      row.engine,
      row.scenario,
      String(row.concurrency),
      ours.rps.toFixed(0),
      ours.p50.toFixed(2),
      ours.p99.toFixed(2),
      baseline.rps.toFixed(0),
      baseline.p50.toFixed(2),
      baseline.p99.toFixed(2),
      row.ratios.ours!.toFixed(2) + 'x',
      nextOnly ? nextOnly.rps.toFixed(0) : '-',
      nextOnly ? row.ratios.next!.toFixed(2) + 'x' : '-',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  console.log('\n' + format(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const line of lines) console.log(format(line));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
