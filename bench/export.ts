/**
 * `npm run bench:export -- [--events N] [--reuse] [--runs R]`
 *
 * Export throughput of GET /orgs/{orgId}/events/export through the node:http
 * adapter (the `npm start` fast path), NDJSON and CSV, with and without raw:
 * events/s, first-byte time and peak RSS growth of the process during the
 * export, beside the ceiling measured in the same run: the `sqlite3` command
 * printing the same rows' stored documents
 * (`SELECT doc FROM events WHERE org_id=? ORDER BY created DESC, id DESC`).
 * Also the whole `org-events events export` command (process start to file
 * renamed). SQLite at bench/data/export-<N>.db, seeded with N events
 * (default 1,000,000) unless --reuse. Nothing is asserted on time; results
 * also go to bench/results/export-<N>.json.
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
import { authorizationHeader, parseChallenge } from '@/tests/helpers/digest-client';
import { machineInfo, machineLine } from './lib/machine';

const ORG_ID = '5be0c4a1b2c3d4e5f6a7b8ca';
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2025, 3, 1);
const ROOT = path.resolve(__dirname, '..');

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function options() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      reuse: { type: 'boolean', default: false },
      runs: { type: 'string', default: '3' },
    },
  });
  const events = Number(values.events.replace(/[_,]/g, ''));
  const runs = Number(values.runs);
  if (!Number.isSafeInteger(events) || events < 1000) throw new Error('--events: at least 1000');
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs: a positive integer');
  return { events, reuse: values.reuse, runs };
}

async function seeded(file: string, events: number, reuse: boolean): Promise<EventStore> {
  if (!reuse) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const store = await openStore(file);
  if (await store.getOrg(ORG_ID)) {
    const have = await store.countEvents({ orgId: ORG_ID });
    if (have !== events) throw new Error(`The reused store holds ${have} events, not ${events}`);
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

type Run = { seconds: number; firstByteMs: number; bytes: number; rssGrowthMB: number };

/** One export over HTTP, the body counted and dropped; RSS sampled while it runs. */
async function exportOnce(baseUrl: string, url: string, key: Credentials): Promise<Run> {
  const challenge = parseChallenge(
    (await fetch(`${baseUrl}${url}`)).headers.get('www-authenticate'),
  );
  const authorization = authorizationHeader({
    username: key.publicKey,
    password: key.privateKey,
    realm: challenge.realm,
    nonce: challenge.nonce,
    method: 'GET',
    uri: url,
    nc: 1,
  });
  global.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const started = performance.now();
  let firstByte = 0;
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    http
      .get(`${baseUrl}${url}`, { headers: { authorization } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        res.on('data', (chunk: Buffer) => {
          if (bytes === 0) firstByte = performance.now() - started;
          bytes += chunk.length;
        });
        res.on('end', resolve);
        res.on('error', reject);
      })
      .on('error', reject);
  });
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return {
    seconds: (performance.now() - started) / 1000,
    firstByteMs: firstByte,
    bytes,
    rssGrowthMB: (peak - rssBefore) / 2 ** 20,
  };
}

type Credentials = { publicKey: string; privateKey: string };

/** The ceiling: the sqlite3 command printing the same rows' documents, to /dev/null. */
function sqliteCeiling(file: string): number {
  const started = performance.now();
  const result = spawnSync(
    'sqlite3',
    [file, `SELECT doc FROM events WHERE org_id='${ORG_ID}' ORDER BY created DESC, id DESC`],
    { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 20 },
  );
  if (result.status !== 0) throw new Error(`sqlite3 failed: ${result.stderr?.toString()}`);
  return (performance.now() - started) / 1000;
}

/** The whole CLI command, process start to the renamed file. */
function cliOnce(file: string, format: string): Promise<number> {
  const out = path.join(os.tmpdir(), `org-events-bench-export-${process.pid}.${format}`);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(ROOT, 'bin', 'org-events.mjs'),
        ...['events', 'export', '--org', ORG_ID, '--format', format, '--out', out],
        ...['--database', file],
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
  const file = path.join(ROOT, 'bench', 'data', `export-${opts.events}.db`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const store = await seeded(file, opts.events, opts.reuse);
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

  console.log(machineLine());
  console.log(
    `Export of ${n.toLocaleString('en-US')} events (SQLite ${path.relative(ROOT, file)}), median of ${opts.runs} runs`,
  );
  const ceilingRuns = Array.from({ length: opts.runs }, () => sqliteCeiling(file));
  const ceiling = rate(median(ceilingRuns));
  console.log(
    `  ceiling: sqlite3 printing the documents     ${ceiling.toLocaleString('en-US').padStart(10)} events/s`,
  );

  const results: Record<string, unknown> = { machine: machineInfo(), events: n, ceiling };
  for (const [name, query] of [
    ['NDJSON', 'format=ndjson'],
    ['NDJSON + raw', 'format=ndjson&includeRaw=true'],
    ['CSV', 'format=csv'],
    ['CSV + raw', 'format=csv&includeRaw=true'],
  ] as const) {
    const url = `/api/public/v1.0/orgs/${ORG_ID}/events/export?${query}`;
    const runs: Run[] = [];
    for (let i = 0; i < opts.runs; i++) runs.push(await exportOnce(baseUrl, url, key));
    const seconds = median(runs.map((r) => r.seconds));
    const figure = {
      eventsPerSecond: rate(seconds),
      ofCeiling: rate(seconds) / ceiling,
      firstByteMs: median(runs.map((r) => r.firstByteMs)),
      peakRssGrowthMB: Math.max(...runs.map((r) => r.rssGrowthMB)),
      megabytes: runs[0]!.bytes / 2 ** 20,
    };
    results[name] = figure;
    console.log(
      `  ${`API export, ${name}`.padEnd(42)} ${figure.eventsPerSecond.toLocaleString('en-US').padStart(10)} events/s (${(figure.ofCeiling * 100).toFixed(0)}% of the ceiling), first byte ${figure.firstByteMs.toFixed(1)} ms, peak RSS growth ${figure.peakRssGrowthMB.toFixed(0)} MB, ${figure.megabytes.toFixed(0)} MB`,
    );
  }
  await new Promise((resolve) => server.close(resolve));
  await store.close();

  for (const format of ['ndjson', 'csv']) {
    const seconds = median(await sequence(opts.runs, () => cliOnce(file, format)));
    results[`cli ${format}`] = { seconds, eventsPerSecond: rate(seconds) };
    console.log(
      `  ${`whole command: events export ${format}`.padEnd(42)} ${rate(seconds).toLocaleString('en-US').padStart(10)} events/s (${seconds.toFixed(2)} s with process start)`,
    );
  }
  console.log(
    `Load after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const out = path.join(ROOT, 'bench', 'results', `export-${n}.json`);
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
