/**
 * `npm run bench:store -- [--events N] [--reuse] [--runs R]`
 *
 * Times the store's list queries on one large organization, through the
 * EventStore interface the API uses (so the per-hour counters, the index
 * choice and the row decoding are all in the figures):
 *
 * - the first page of 100 with the total count (what a client's first call costs);
 * - a page of 100 at 90% depth with the count, the last page, random pages;
 * - two event types within a 7-day window, first page and 90% depth, with the count;
 * - one event by id (random ids), the count alone, a first page of 500 with raw documents.
 *
 * The store is SQLite at bench/data/store-<N>.db, or PostgreSQL when
 * DATABASE_URL=postgres://... is set. Without --reuse it is recreated and
 * seeded with N events (default 1,000,000) through the same pipeline as
 * `npm run cli -- seed`, and the seed rate is printed. Results also go to
 * bench/results/store-<engine>-<N>.json. Nothing is asserted on time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runBulkLoad } from '@/lib/ingest/bulk-load';
import { openStore, parseDatabaseUrl } from '@/lib/store';
import type { EventPageQuery, EventStore } from '@/lib/store/types';
import { lcg, measure, type Timing, timingTable } from './lib/timing';
import { machineInfo, machineLine } from './lib/machine';

const ORG_ID = '5be0c4a1b2c3d4e5f6a7b8c9';
/** A fixed range, so every run seeds the same events: 90 days. */
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
      runs: { type: 'string', default: '200' },
      warmup: { type: 'string', default: '20' },
    },
  });
  const events = Number(values.events.replace(/[_,]/g, ''));
  const runs = Number(values.runs);
  const warmup = Number(values.warmup);
  if (!Number.isSafeInteger(events) || events < 1000)
    throw new Error('--events must be at least 1000');
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  if (!Number.isSafeInteger(warmup) || warmup < 0) throw new Error('--warmup must be 0 or more');
  return { events, reuse: values.reuse, runs, warmup };
}

async function openBenchStore(
  events: number,
  reuse: boolean,
): Promise<{ store: EventStore; engine: string; where: string }> {
  const url = process.env.DATABASE_URL;
  if (url && parseDatabaseUrl(url).engine === 'postgres') {
    const store = await openStore(url);
    if (!reuse && (await store.getOrg(ORG_ID))) {
      await store.close();
      throw new Error(
        'The benchmark org already exists in this PostgreSQL database: pass --reuse, or use a fresh database',
      );
    }
    return { store, engine: 'postgres', where: new URL(url).pathname.slice(1) };
  }
  const file = path.join(ROOT, 'bench', 'data', `store-${events}.db`);
  if (!reuse) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  return {
    store: await openStore(file),
    engine: 'sqlite',
    where: path.relative(ROOT, file),
  };
}

async function seed(
  store: EventStore,
  events: number,
): Promise<{ rate: number; seconds: number } | null> {
  if (await store.getOrg(ORG_ID)) {
    const have = await store.countEvents({ orgId: ORG_ID });
    if (have !== events) throw new Error(`The reused store holds ${have} events, not ${events}`);
    log(`Reusing ${have.toLocaleString('en-US')} events.`);
    return null;
  }
  await store.createOrg({ id: ORG_ID, name: `Store benchmark (${events} events)`, created: FROM });
  log(`Seeding ${events.toLocaleString('en-US')} events...`);
  let lastLog = 0;
  const result = await runBulkLoad(
    store,
    ORG_ID,
    {
      kind: 'seed',
      options: { orgId: ORG_ID, count: events, seed: 'bench', from: FROM, to: TO },
      batchSize: 10_000,
    },
    {
      onBatch: ({ inserted }) => {
        if (inserted - lastLog >= events / 10) {
          lastLog = inserted;
          log(`  ${inserted.toLocaleString('en-US')} events`);
        }
      },
    },
  );
  const rate = result.inserted / result.seconds;
  log(
    `Seeded ${result.inserted.toLocaleString('en-US')} events in ${result.seconds.toFixed(1)} s: ${Math.round(rate).toLocaleString('en-US')} events/s`,
  );
  return { rate, seconds: result.seconds };
}

async function main(): Promise<void> {
  const opts = options();
  const { store, engine, where } = await openBenchStore(opts.events, opts.reuse);
  try {
    const seeding = await seed(store, opts.events);
    const total = await store.countEvents({ orgId: ORG_ID });
    const page = (query: Partial<EventPageQuery>) =>
      store.listEvents({
        orgId: ORG_ID,
        offset: 0,
        limit: 100,
        includeCount: true,
        includeRaw: false,
        ...query,
      });
    const pageAt = (n: number, fraction: number) => Math.floor((n * fraction) / 100) * 100;

    // Two everyday types in a 7-day window in the middle of the range.
    const types = ['JOINED_ORG', 'API_KEY_CREATED'];
    const week = { minCreated: FROM + 40 * 86_400_000, maxCreated: FROM + 47 * 86_400_000 - 1 };
    const filteredTotal = await store.countEvents({ orgId: ORG_ID, eventTypes: types, ...week });

    // Ids to fetch one by one, picked from pages all over the set.
    const pick = lcg(7);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const sample = await page({
        offset: Math.floor(pick() * (total - 100)),
        limit: 20,
        includeCount: false,
      });
      ids.push(...sample.events.map((e) => e.id));
    }

    const cases: [string, (run: number) => Promise<unknown>][] = [
      ['first page of 100 + count', () => page({})],
      [
        `page of 100 at 90% (offset ${pageAt(total, 0.9)}) + count`,
        () => page({ offset: pageAt(total, 0.9) }),
      ],
      ['last page of 100 + count', () => page({ offset: pageAt(total - 1, 1) })],
      ['random page of 100 + count', () => page({ offset: pageAt(Math.floor(pick() * total), 1) })],
      [
        `2 types, 7 days (${filteredTotal} events): first page + count`,
        () => page({ eventTypes: types, ...week }),
      ],
      [
        '2 types, 7 days: page at 90% + count',
        () => page({ eventTypes: types, ...week, offset: pageAt(filteredTotal, 0.9) }),
      ],
      [
        'get one event by id (random)',
        (run) => store.getEvent(ORG_ID, ids[Math.abs(run) % ids.length]!, true),
      ],
      ['count only', () => store.countEvents({ orgId: ORG_ID })],
      ['first page of 500 with raw + count', () => page({ limit: 500, includeRaw: true })],
    ];
    const timings: Timing[] = [];
    for (const [name, fn] of cases) {
      timings.push(await measure(name, fn, { warmup: opts.warmup, runs: opts.runs }));
    }

    const header = [
      `Store benchmark: ${engine} (${where}), ${total.toLocaleString('en-US')} events in one org`,
      seeding
        ? `Seed: ${Math.round(seeding.rate).toLocaleString('en-US')} events/s (${seeding.seconds.toFixed(1)} s)`
        : 'Seed: reused',
      machineLine(),
      `Each query: ${opts.warmup} warm-up runs, then ${opts.runs} timed runs, one at a time`,
    ];
    console.log(`${header.join('\n')}\n\n${timingTable(timings)}`);

    const resultsDir = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(resultsDir, { recursive: true });
    const out = path.join(resultsDir, `store-${engine}-${opts.events}.json`);
    fs.writeFileSync(
      out,
      `${JSON.stringify(
        {
          engine,
          events: total,
          seedEventsPerSecond: seeding ? Math.round(seeding.rate) : null,
          seedSeconds: seeding ? Number(seeding.seconds.toFixed(2)) : null,
          runs: opts.runs,
          warmup: opts.warmup,
          machine: machineInfo(),
          date: new Date().toISOString(),
          timings,
        },
        null,
        2,
      )}\n`,
    );
    log(`\nWrote ${path.relative(ROOT, out)}`);
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
