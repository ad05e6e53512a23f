/**
 * `npm run bench:mirror -- [--events N] [--rounds R] [--targets sqlite,postgres] [--latency-ms L] [--reuse]`
 *
 * Mirror throughput (issue 11): a source server of this product (`npm start`
 * with SERVE=api, hosted variant, SQLite at bench/data/mirror-source-<N>.db
 * seeded with N events, default 100,000) and `runMirror` copying its org
 * into a fresh store per round (SQLite file, and a throwaway PostgreSQL
 * database when the targets include it). Beside it, measured in the same run
 * and alternating with it, the baseline: the source's API paged alone, with
 * the same windows the mirror asked for (recorded from its progress), the
 * same Digest client and the same parsing (SourceClient.page), no store.
 * The gap between the two is what the copy costs on top of reading.
 *
 * The request budget is lifted (the real service's 500/min would make this a
 * benchmark of waiting). `--latency-ms L` puts a proxy in front of the source
 * that holds each answer L ms, as a remote service over the internet would
 * (both sides go through it): the mirror requests the next page while it
 * stores the current one, which only shows when requests take time. Prints events/s, requests and retries per run, the
 * medians, and the machine's load before and after; nothing is asserted on
 * time. Results also go to bench/results/mirror-<N>.json.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { issueApiKey } from '@/lib/auth/api-keys';
import { getConfig } from '@/lib/config';
import { runBulkLoad } from '@/lib/ingest/bulk-load';
import { type MirrorProgress, runMirror } from '@/lib/mirror/mirror';
import { SourceClient, type SourceOptions } from '@/lib/mirror/source';
import { openStore } from '@/lib/store';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { machineInfo, machineLine } from './lib/machine';
import { startOurServer } from './lib/servers';

const ORG_ID = '5be0c4a1b2c3d4e5f6a7b8cb';
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2025, 3, 1);
const ROOT = path.resolve(__dirname, '..');
const ITEMS_PER_PAGE = 500;

type Target = 'sqlite' | 'postgres';
type Window = MirrorProgress['window'];

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function options() {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '100000' },
      rounds: { type: 'string', default: '3' },
      targets: { type: 'string', default: 'sqlite,postgres' },
      reuse: { type: 'boolean', default: false },
      'latency-ms': { type: 'string', default: '0' },
    },
  });
  const events = Number(values.events.replace(/[_,]/g, ''));
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(events) || events < 1000) throw new Error('--events: at least 1000');
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('--rounds: a positive integer');
  const targets = values.targets.split(',').map((t) => t.trim());
  for (const t of targets) {
    if (t !== 'sqlite' && t !== 'postgres')
      throw new Error(`--targets: sqlite or postgres, not ${t}`);
  }
  const latencyMs = Number(values['latency-ms']);
  if (!Number.isSafeInteger(latencyMs) || latencyMs < 0) {
    throw new Error('--latency-ms: a non-negative integer');
  }
  return { events, rounds, targets: targets as Target[], reuse: values.reuse, latencyMs };
}

/** The source database: N seeded events and a member key (reused when asked and complete). */
async function seedSource(file: string, events: number, reuse: boolean) {
  if (!reuse) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const store = await openStore(file);
  try {
    if (!(await store.getOrg(ORG_ID))) {
      await store.createOrg({ id: ORG_ID, name: 'Mirror benchmark', created: FROM });
      log(`Seeding the source with ${events.toLocaleString('en-US')} events...`);
      const seeded = await runBulkLoad(store, ORG_ID, {
        kind: 'seed',
        options: { orgId: ORG_ID, count: events, seed: 'mirror-bench', from: FROM, to: TO },
        batchSize: 10_000,
      });
      log(`Seeded in ${seeded.seconds.toFixed(1)} s.`);
      await store.refreshStatistics();
    }
    const have = await store.countEvents({ orgId: ORG_ID });
    if (have !== events) throw new Error(`The reused source holds ${have} events, not ${events}`);
    // A fresh key per run: the private key is never stored, only its HA1.
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG_ID,
      role: 'ORG_MEMBER',
      description: 'mirror benchmark',
      realm: getConfig().DIGEST_REALM,
    });
    return { publicKey: record.publicKey, privateKey };
  } finally {
    await store.close();
  }
}

/** A fresh, empty store with the org, and how to drop it. */
async function freshTarget(target: Target, dir: string) {
  if (target === 'sqlite') {
    const file = path.join(dir, 'mirror-copy.db');
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    const store = await openStore(file);
    await store.createOrg({ id: ORG_ID, name: 'Copy', created: FROM });
    return {
      store,
      drop: async () => {
        await store.close();
        for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      },
    };
  }
  const database = await createTestDatabase();
  const store = await openStore(database.url);
  await store.createOrg({ id: ORG_ID, name: 'Copy', created: FROM });
  return {
    store,
    drop: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * One run: the distinct events read from the source (the mirror drops the
 * repeats at window edges uncounted: EdgeSecond in lib/mirror/mirror.ts), time, requests.
 */
type Measured = { records: number; seconds: number; requests: number; retries: number };

async function mirrorOnce(
  target: Target,
  dir: string,
  source: SourceOptions,
  expected: number,
  windows?: Window[],
): Promise<Measured> {
  const { store, drop } = await freshTarget(target, dir);
  try {
    const started = performance.now();
    const summary = await runMirror({
      store,
      orgId: ORG_ID,
      source,
      onProgress: (p) => windows?.push({ ...p.window }),
    });
    const seconds = (performance.now() - started) / 1000;
    const copied = await store.countEvents({ orgId: ORG_ID });
    if (summary.copied !== expected || copied !== expected) {
      throw new Error(`The mirror copied ${summary.copied} (${copied} stored), not ${expected}`);
    }
    return {
      records: summary.copied + summary.skipped,
      seconds,
      requests: summary.requests,
      retries: summary.retries,
    };
  } finally {
    await drop();
  }
}

/** The baseline: the same pages read and parsed through the same client, nothing stored. */
async function pageOnce(source: SourceOptions, windows: Window[]): Promise<Measured> {
  const client = new SourceClient(source);
  try {
    // By id, as the mirror counts: the windows overlap by the second at their edge.
    const ids = new Set<unknown>();
    const started = performance.now();
    for (const window of windows) {
      const page = await client.page({ ...window, itemsPerPage: ITEMS_PER_PAGE });
      // This product's own server: every record an object.
      for (const record of page) ids.add((record.value as { id?: unknown }).id);
    }
    const seconds = (performance.now() - started) / 1000;
    return { records: ids.size, seconds, requests: client.requests, retries: client.retries };
  } finally {
    client.close();
  }
}

/** A proxy to `target` that sends each answer `latencyMs` after the source gave it. */
function delayingProxy(
  target: string,
  latencyMs: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          setTimeout(() => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(chunks));
          }, latencyMs),
        );
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function main() {
  const { events, rounds, targets, reuse, latencyMs } = options();
  // Both sides read the same pages; their rate is the org's events per second of the run.
  const rate = (m: Measured) => events / m.seconds;
  const dataDir = path.join(ROOT, 'bench', 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const sourceFile = path.join(dataDir, `mirror-source-${events}.db`);
  const key = await seedSource(sourceFile, events, reuse);
  const server = await startOurServer({
    DATABASE_URL: `file:${sourceFile}`,
    EVENTS_VARIANT: 'hosted',
    SERVE: 'api',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
  });
  const proxy = latencyMs > 0 ? await delayingProxy(server.baseUrl, latencyMs) : undefined;
  const source: SourceOptions = {
    baseUrl: `${proxy?.url ?? server.baseUrl}/api/public/v1.0`,
    orgId: ORG_ID,
    ...key,
    requestsPerMinute: 1_000_000,
  };
  const loadBefore = os.loadavg();
  log(machineLine());
  const results: Record<string, { mirror: Measured[]; baseline: Measured[] }> = {};
  try {
    // The windows the mirror walks depend only on the source's data: recorded once.
    const windows: Window[] = [];
    for (const target of targets) {
      const runs = { mirror: [] as Measured[], baseline: [] as Measured[] };
      results[target] = runs;
      for (let round = 0; round < rounds; round++) {
        // Alternate the order so neither side always runs on a warmer machine.
        const mirrorFirst = round % 2 === 0 || windows.length === 0;
        const record = windows.length === 0 ? windows : undefined;
        if (mirrorFirst)
          runs.mirror.push(await mirrorOnce(target, dataDir, source, events, record));
        const baseline = await pageOnce(source, windows);
        if (baseline.records !== runs.mirror[0]!.records) {
          throw new Error(
            `The baseline read ${baseline.records} records, the mirror ${runs.mirror[0]!.records}`,
          );
        }
        runs.baseline.push(baseline);
        if (!mirrorFirst) runs.mirror.push(await mirrorOnce(target, dataDir, source, events));
        const [m, b] = [runs.mirror.at(-1)!, runs.baseline.at(-1)!];
        log(
          `${target} round ${round + 1}: mirror ${fmt(rate(m))} events/s (${m.requests} requests, ${m.retries} retries, ${m.seconds.toFixed(2)} s); ` +
            `API paging alone ${fmt(rate(b))} events/s (${b.requests} requests, ${b.retries} retries, ${b.seconds.toFixed(2)} s)`,
        );
      }
    }
  } finally {
    await proxy?.close();
    await server.stop();
  }
  const loadAfter = os.loadavg();

  const lines = [
    `Mirror of ${fmt(events)} events from a source server (npm start, SERVE=api, SQLite, hosted), ${ITEMS_PER_PAGE} per page, ${latencyMs} ms added per request, ${rounds} rounds, medians:`,
    machineLine(),
    `Load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
    '',
    `${'target'.padEnd(10)} ${'mirror ev/s'.padStart(12)} ${'paging alone ev/s'.padStart(18)} ${'ratio'.padStart(6)} ${'requests'.padStart(9)} ${'retries'.padStart(8)}`,
  ];
  for (const [target, runs] of Object.entries(results)) {
    const m = median(runs.mirror.map(rate));
    const b = median(runs.baseline.map(rate));
    lines.push(
      `${target.padEnd(10)} ${fmt(m).padStart(12)} ${fmt(b).padStart(18)} ${(m / b).toFixed(2).padStart(6)} ${String(median(runs.mirror.map((r) => r.requests))).padStart(9)} ${String(median(runs.mirror.map((r) => r.retries))).padStart(8)}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  const resultsDir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(
    path.join(resultsDir, `mirror-${events}.json`),
    `${JSON.stringify({ events, rounds, latencyMs, itemsPerPage: ITEMS_PER_PAGE, machine: machineInfo(), loadBefore, loadAfter, results }, null, 2)}\n`,
  );
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
