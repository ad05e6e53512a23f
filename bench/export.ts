/**
 * `npm run bench:export -- [--events N] [--reuse] [--runs R] [--database URL]
 *   [--only ndjson,csv,...] [--no-cli] [--seed-only]`
 *
 * Export throughput of GET /orgs/{orgId}/events/export through the node:http
 * adapter (the `npm start` fast path), NDJSON and CSV, with and without raw,
 * read by a client process of its own: events/s, first-byte time, peak RSS
 * growth of the server (this process) during the export, and events per
 * CPU-second of the server (what the code costs, whatever else the machine
 * runs), beside the ceiling measured in the same run: the engine's own
 * command-line client printing the same rows' stored documents (`sqlite3`,
 * or `psql` running `COPY (SELECT doc ...) TO STDOUT`), to /dev/null. Also
 * the whole `org-events events export` command (process start to file
 * renamed). The machine's 1-minute load is printed beside every figure.
 *
 * SQLite at bench/data/export-<N>.db by default; --database
 * postgres://.../DB uses that (empty or already seeded) database instead.
 * Seeded with N events (default 1,000,000) unless --reuse. --only picks
 * the variants (ndjson, ndjson-raw, csv, csv-raw). Nothing is asserted on
 * time; results also go to bench/results/export-<engine>-<N>.json.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApiHandler } from '@/lib/api/handler';
import { createNodeApiHandler } from '@/lib/api/node-adapter';
import { issueApiKey } from '@/lib/auth/api-keys';
import { getConfig } from '@/lib/config';
import { runBulkLoad } from '@/lib/ingest/bulk-load';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { answerChallenge } from '@/tests/helpers/digest-client';
import { machineInfo, machineLine } from './lib/machine';

const ORG_ID = '5be0c4a1b2c3d4e5f6a7b8ca';
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2025, 3, 1);
const ROOT = path.resolve(__dirname, '..');

// Request lines would interleave with the figures on stdout.
process.env.LOG_LEVEL ??= 'warn';

const VARIANTS = [
  { key: 'ndjson', name: 'NDJSON', query: 'format=ndjson' },
  { key: 'ndjson-raw', name: 'NDJSON + raw', query: 'format=ndjson&includeRaw=true' },
  { key: 'csv', name: 'CSV', query: 'format=csv' },
  { key: 'csv-raw', name: 'CSV + raw', query: 'format=csv&includeRaw=true' },
] as const;

/** The 1-minute load average now, printed beside each figure. */
const load = () => `load ${os.loadavg()[0]!.toFixed(2)}`;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function options() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      reuse: { type: 'boolean', default: false },
      runs: { type: 'string', default: '3' },
      'seed-only': { type: 'boolean', default: false },
      database: { type: 'string' },
      only: { type: 'string', default: 'ndjson,ndjson-raw,csv,csv-raw' },
      'no-cli': { type: 'boolean', default: false },
    },
  });
  const only = new Set(values.only.split(','));
  for (const name of only) {
    if (!VARIANTS.some((v) => v.key === name)) throw new Error(`--only: unknown variant ${name}`);
  }
  const events = Number(values.events.replace(/[_,]/g, ''));
  const runs = Number(values.runs);
  if (!Number.isSafeInteger(events) || events < 1000) throw new Error('--events: at least 1000');
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs: a positive integer');
  return {
    events,
    reuse: values.reuse,
    runs,
    seedOnly: values['seed-only'],
    database: values.database,
    only,
    cli: !values['no-cli'],
  };
}

async function seeded(
  url: string,
  file: string | null,
  events: number,
  reuse: boolean,
): Promise<EventStore> {
  if (file && !reuse) {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  }
  const store = await openStore(url);
  if (await store.getOrg(ORG_ID)) {
    const have = await store.countEvents({ orgId: ORG_ID });
    if (have !== events) throw new Error(`The store holds ${have} events, not ${events}`);
    if (!reuse && !file) log('The database is already seeded: reusing it.');
    return store;
  }
  await store.createOrg({ id: ORG_ID, name: 'Export benchmark', created: FROM });
  log(`Seeding ${events.toLocaleString('en-US')} events...`);
  const result = await runBulkLoad(store, ORG_ID, {
    kind: 'seed',
    options: { orgId: ORG_ID, count: events, seed: 'bench', from: FROM, to: TO },
    batchSize: 10_000,
  });
  log(`Seeded in ${result.seconds.toFixed(1)} s.`);
  await store.refreshStatistics();
  return store;
}

type Run = {
  seconds: number;
  /** CPU time of this process (the server) during the export. */
  cpuSeconds: number;
  firstByteMs: number;
  bytes: number;
  rssGrowthMB: number;
};

/** One export over HTTP, the body counted and dropped; the server's RSS sampled while it runs. */
async function exportOnce(baseUrl: string, url: string, key: Credentials): Promise<Run> {
  const authorization = answerChallenge(
    (await fetch(`${baseUrl}${url}`)).headers.get('www-authenticate'),
    key,
    url,
  );
  global.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const cpuBefore = process.cpuUsage();
  const received = await download(`${baseUrl}${url}`, authorization);
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ...received,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rssGrowthMB: (peak - rssBefore) / 2 ** 20,
  };
}

/**
 * The client: a process of its own, as a real one is (and as the ceiling's
 * output goes to /dev/null from its own process), so this process's CPU
 * time and memory are the server's alone. It times from its request to the
 * first byte and to the end, counting and dropping the body.
 */
const CLIENT = `
const http = require('node:http');
const [url, authorization] = process.argv.slice(1);
const started = performance.now();
let firstByteMs = 0, bytes = 0;
http.get(url, { headers: { authorization } }, (res) => {
  if (res.statusCode !== 200) { console.error('status ' + res.statusCode); process.exit(1); }
  res.on('data', (chunk) => { if (bytes === 0) firstByteMs = performance.now() - started; bytes += chunk.length; });
  res.on('end', () => process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000, firstByteMs, bytes })));
}).on('error', (e) => { console.error(e); process.exit(1); });
`;

function download(
  url: string,
  authorization: string,
): Promise<{ seconds: number; firstByteMs: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CLIENT, url, authorization], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0)
        resolve(JSON.parse(out) as { seconds: number; firstByteMs: number; bytes: number });
      else reject(new Error(`the client exited ${code}`));
    });
  });
}

type Credentials = { publicKey: string; privateKey: string };

const CEILING_SQL = `SELECT doc FROM events WHERE org_id='${ORG_ID}' ORDER BY created DESC, id DESC`;

/**
 * The ceiling: the engine's command-line client printing the same rows'
 * documents, to /dev/null (psql through COPY, which streams, where a plain
 * SELECT would hold the whole result in memory first).
 */
function ceilingOnce(url: string, file: string | null): { seconds: number; cpuSeconds: number } {
  const [command, args] = file
    ? ['sqlite3', [file, CEILING_SQL]]
    : ['psql', [url, '-Atqc', `COPY (${CEILING_SQL}) TO STDOUT`]];
  const started = performance.now();
  // bash's `times` prints its children's CPU time (user, then system) on its second line.
  const result = spawnSync('bash', ['-c', '"$@" > /dev/null && times', 'bash', command, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
  const times = [...(result.stdout.split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)];
  if (times.length !== 2) throw new Error(`bash times: ${result.stdout}`);
  const cpuSeconds = times.reduce((sum, [, m, sec]) => sum + Number(m) * 60 + Number(sec), 0);
  return { seconds, cpuSeconds };
}

/** The whole CLI command, process start to the renamed file. */
function cliOnce(database: string, format: string): Promise<number> {
  const out = path.join(os.tmpdir(), `org-events-bench-export-${process.pid}.${format}`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'org-events.mjs'),
        ...['events', 'export', '--org', ORG_ID, '--format', format, '--out', out],
        ...['--database', database],
      ],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    child.on('error', reject);
    child.on('exit', (code) => {
      fs.rmSync(out, { force: true });
      if (code === 0) resolve((performance.now() - started) / 1000);
      else reject(new Error(`the CLI exited ${code}`));
    });
  });
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const opts = options();
  const file = opts.database ? null : path.join(ROOT, 'bench', 'data', `export-${opts.events}.db`);
  const url = opts.database ?? `file:${file}`;
  if (file) fs.mkdirSync(path.dirname(file), { recursive: true });
  const store = await seeded(url, file, opts.events, opts.reuse);
  if (opts.seedOnly) return store.close();
  const { privateKey, record } = await issueApiKey(store, {
    orgId: ORG_ID,
    role: 'ORG_MEMBER',
    description: 'bench',
    realm: getConfig().DIGEST_REALM,
  });
  const key = { publicKey: record.publicKey, privateKey };
  const handler = createApiHandler({ store: () => Promise.resolve(store) });
  const server = http.createServer(createNodeApiHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const n = opts.events;
  const rate = (seconds: number) => Math.round(n / seconds);
  const engine = file ? 'SQLite' : 'PostgreSQL';
  const where = file ? path.relative(ROOT, file) : new URL(url).pathname.slice(1);

  console.log(machineLine());
  console.log(
    `Export of ${n.toLocaleString('en-US')} events (${engine} ${where}), median of ${opts.runs} runs`,
  );
  const ceilingRuns = Array.from({ length: opts.runs }, () => ceilingOnce(url, file));
  const ceiling = rate(median(ceilingRuns.map((r) => r.seconds)));
  // Per CPU-second: what the code costs, whatever else the machine is running.
  const ceilingCpu = rate(median(ceilingRuns.map((r) => r.cpuSeconds)));
  const client = file ? 'sqlite3' : 'psql COPY';
  console.log(
    `  ceiling: ${client} printing the documents`.padEnd(44) +
      ` ${ceiling.toLocaleString('en-US').padStart(10)} events/s, ${ceilingCpu.toLocaleString('en-US')} per CPU-second (${load()})`,
  );

  const results: Record<string, unknown> = {
    machine: machineInfo(),
    engine,
    events: n,
    ceiling,
    ceilingCpu,
  };
  for (const variant of VARIANTS.filter((v) => opts.only.has(v.key))) {
    const target = `/api/public/v1.0/orgs/${ORG_ID}/events/export?${variant.query}`;
    const runs: Run[] = [];
    for (let i = 0; i < opts.runs; i++) runs.push(await exportOnce(baseUrl, target, key));
    const seconds = median(runs.map((r) => r.seconds));
    const figure = {
      eventsPerSecond: rate(seconds),
      ofCeiling: rate(seconds) / ceiling,
      perCpuSecond: rate(median(runs.map((r) => r.cpuSeconds))),
      firstByteMs: median(runs.map((r) => r.firstByteMs)),
      peakRssGrowthMB: Math.max(...runs.map((r) => r.rssGrowthMB)),
      megabytes: runs[0]!.bytes / 2 ** 20,
      loadavg: os.loadavg(),
    };
    results[variant.name] = figure;
    console.log(
      `  ${`API export, ${variant.name}`.padEnd(42)} ${figure.eventsPerSecond.toLocaleString('en-US').padStart(10)} events/s (${(figure.ofCeiling * 100).toFixed(0)}% of the ceiling), ${figure.perCpuSecond.toLocaleString('en-US')} per CPU-second (${((figure.perCpuSecond / ceilingCpu) * 100).toFixed(0)}%), first byte ${figure.firstByteMs.toFixed(1)} ms, peak RSS growth ${figure.peakRssGrowthMB.toFixed(0)} MB, ${figure.megabytes.toFixed(0)} MB (${load()})`,
    );
  }
  await new Promise((resolve) => server.close(resolve));
  await store.close();

  if (opts.cli) {
    for (const format of ['ndjson', 'csv']) {
      const seconds = median(await sequence(opts.runs, () => cliOnce(url, format)));
      results[`cli ${format}`] = { seconds, eventsPerSecond: rate(seconds), loadavg: os.loadavg() };
      console.log(
        `  ${`whole command: events export ${format}`.padEnd(42)} ${rate(seconds).toLocaleString('en-US').padStart(10)} events/s (${seconds.toFixed(2)} s with process start) (${load()})`,
      );
    }
  }
  console.log(
    `Load after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const out = path.join(ROOT, 'bench', 'results', `export-${engine.toLowerCase()}-${n}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
}

async function sequence<T>(count: number, run: () => Promise<T>): Promise<T[]> {
  const values: T[] = [];
  for (let i = 0; i < count; i++) values.push(await run());
  return values;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
