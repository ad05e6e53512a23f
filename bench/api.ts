/**
 * `npm run bench`: API throughput and latency, ours against a plain node:http
 * baseline running the same lib/ code, measured in the same run, on SQLite and
 * PostgreSQL. Prints one table and writes bench/results/api-<time>.json.
 * Nothing here asserts on time: it reports.
 *
 *   npm run bench -- [--events 1000000] [--engines sqlite,postgres]
 *                    [--duration 3000] [--concurrency 1,16] [--reuse] [--no-next]
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
import { machineInfo } from './lib/machine';
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
    concurrency: { type: 'string', default: '1,16' },
    reuse: { type: 'boolean', default: false },
    'no-next': { type: 'boolean', default: false },
    'pg-admin-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const EVENTS = Number(args.events);
const DURATION_MS = Number(args.duration);
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

async function measure(server: RunningServer, list: Scenario[], credentials: Credentials) {
  const out: Record<string, LoadResult> = {};
  for (const scenario of list) {
    for (const concurrency of CONCURRENCY) {
      const result = await runLoad({
        baseUrl: server.baseUrl,
        paths: scenario.paths,
        credentials,
        concurrency,
        durationMs: DURATION_MS,
        warmupMs: 700,
      });
      out[`${scenario.name}|${concurrency}`] = result;
      log(
        `  ${server.name.padEnd(28)} ${scenario.name.padEnd(22)} c=${String(concurrency).padEnd(3)} ` +
          `${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms` +
          (result.errors ? `  ERRORS ${result.errors}` : ''),
      );
    }
  }
  return out;
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
      ['ours', () => startOurServer(env)],
      ['baseline', () => startBaselineServer(env)],
      ...(args['no-next']
        ? []
        : ([['next', () => startNextOnlyServer(env, 3990)]] as [
            string,
            () => Promise<RunningServer>,
          ][])),
    ];
    const byServer: Record<string, Record<string, LoadResult>> = {};
    // One server at a time: on two cores they must not compete with each other.
    for (const [key, start] of servers) {
      const server = await start();
      try {
        byServer[key] = await measure(server, list, credentials);
      } finally {
        await server.stop();
      }
    }
    for (const scenario of list) {
      for (const concurrency of CONCURRENCY) {
        const cell = `${scenario.name}|${concurrency}`;
        rows.push({
          engine,
          scenario: scenario.name,
          concurrency,
          results: Object.fromEntries(Object.entries(byServer).map(([k, v]) => [k, v[cell]!])),
        });
      }
    }
  }
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
      (ours.rps / baseline.rps).toFixed(2) + 'x',
      nextOnly ? nextOnly.rps.toFixed(0) : '-',
      nextOnly ? (nextOnly.rps / baseline.rps).toFixed(2) + 'x' : '-',
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
