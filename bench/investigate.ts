/**
 * `npx tsx bench/investigate.ts -- [--events N] [--reuse] [--runs R]`
 *
 * Issue 9's investigation queries on one large organization, through the
 * EventStore the API uses: first and 90%-deep pages with exact totalCount
 * for one to three field filters plus type and date range, and for `q`;
 * facets for all eight fields; histograms. Beside them, the baseline measured
 * in the same run: the unfiltered first page with its count. The filter
 * values are picked from the data (the most frequent actor, its busiest
 * cluster, ...), so every case returns rows. SQLite at
 * bench/data/investigate-<N>.db, or PostgreSQL with DATABASE_URL. Prints the
 * machine's load; nothing is asserted on time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DAY_MS } from '@/lib/domain/dates';
import { FACET_FIELDS } from '@/lib/domain/filters';
import { runBulkLoad } from '@/lib/ingest/bulk-load';
import { openStore, parseDatabaseUrl } from '@/lib/store';
import type { EventFilter, EventStore } from '@/lib/store/types';
import { machineLine } from './lib/machine';
import { measure, type Timing, timingTable } from './lib/timing';

const ORG_ID = '5be0c4a1b2c3d4e5f6a7b8ca';
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2025, 3, 1);
const ROOT = path.resolve(__dirname, '..');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      reuse: { type: 'boolean', default: false },
      runs: { type: 'string', default: '40' },
    },
  });
  const events = Number(values.events.replace(/[_,]/g, ''));
  const runs = Number(values.runs);
  const url = process.env.DATABASE_URL;
  const postgres = url !== undefined && parseDatabaseUrl(url).engine === 'postgres';
  const file = path.join(ROOT, 'bench', 'data', `investigate-${events}.db`);
  if (!postgres && !values.reuse) {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  }
  const store: EventStore = await openStore(postgres ? url : file);
  try {
    let seedLine = 'Seed: reused';
    if (!(await store.getOrg(ORG_ID))) {
      await store.createOrg({ id: ORG_ID, name: 'Investigate benchmark', created: FROM });
      process.stderr.write(`Seeding ${events.toLocaleString('en-US')} events...\n`);
      const load = os.loadavg()[0]!;
      const result = await runBulkLoad(store, ORG_ID, {
        kind: 'seed',
        options: { orgId: ORG_ID, count: events, seed: 'investigate', from: FROM, to: TO },
        batchSize: 10_000,
      });
      seedLine = `Seed: ${Math.round(result.inserted / result.seconds).toLocaleString('en-US')} events/s (${result.seconds.toFixed(1)} s, load ${load.toFixed(1)} at start, ${os.loadavg()[0]!.toFixed(1)} at end)`;
    }
    const total = await store.countEvents({ orgId: ORG_ID });

    // Values from the data itself: the busiest actor, its busiest cluster, ...
    const week = { minCreated: FROM + 40 * DAY_MS + 3_600_000, maxCreated: FROM + 47 * DAY_MS };
    const top = async (filter: Omit<EventFilter, 'orgId'>, field: (typeof FACET_FIELDS)[number]) =>
      (await store.facets({ orgId: ORG_ID, ...filter }, [field], 1)).facets[field]![0]?.value ??
      'none';
    const actor = await top(week, 'actor');
    const cluster = await top({ ...week, actor: [actor] }, 'clusterName');
    const clusterAny = await top(week, 'clusterName');
    const host = await top({ ...week, fields: { clusterName: [clusterAny] } }, 'hostname');
    const type = await top({ ...week, fields: { clusterName: [clusterAny] } }, 'eventTypeName');
    // From that cluster's events, so the CIDR combination below measures a
    // set that holds events. (It was cluster + host + CIDR, always empty:
    // host events come from the system and carry no client address.)
    const address = await top({ fields: { clusterName: [clusterAny] } }, 'remoteAddress');
    const cidr = address.includes(':')
      ? `${address.split(':').slice(0, 3).join(':')}::/48`
      : `${address.split('.').slice(0, 2).join('.')}.0.0/16`;

    const combos: [string, Omit<EventFilter, 'orgId'>][] = [
      ['actor + 7 days', { ...week, actor: [actor] }],
      [
        'actor + clusterName + 7 days',
        { ...week, actor: [actor], fields: { clusterName: [cluster] } },
      ],
      [
        'clusterName + hostname + type + 7 days',
        { ...week, eventTypes: [type], fields: { clusterName: [clusterAny], hostname: [host] } },
      ],
      [
        'clusterName + remoteAddress CIDR + 90 days',
        { fields: { clusterName: [clusterAny], remoteAddress: [cidr] } },
      ],
      ['clusterName alone, 90 days', { fields: { clusterName: [clusterAny] } }],
      ['q (1 word) + 7 days', { ...week, q: [actor.split(/[^a-z0-9]/)[0]!] }],
      // One-letter words, as typed into the search box: each matches
      // thousands of terms and many types.
      ['q (1 letter), 90 days', { q: ['a'] }],
      ['q (3 letters) + 7 days', { ...week, q: ['a', 's', 'c'] }],
      [
        'q (2 words) + type + 7 days',
        {
          ...week,
          eventTypes: [type],
          q: ['clu', clusterAny.toLowerCase().split(/[^a-z0-9]/)[0]!],
        },
      ],
    ];
    const page = (filter: Omit<EventFilter, 'orgId'>, offset: number) =>
      store.listEvents({
        orgId: ORG_ID,
        ...filter,
        offset,
        limit: 100,
        includeCount: true,
        includeRaw: false,
      });
    const cases: [string, () => Promise<unknown>, number][] = [
      ['BASELINE unfiltered first page + count', () => page({}, 0), 100],
    ];
    for (const [name, filter] of combos) {
      const n = await store.countEvents({ orgId: ORG_ID, ...filter });
      const deep = Math.max(0, Math.floor((n * 0.9) / 100) * 100);
      cases.push([`${name} (${n}): first page + count`, () => page(filter, 0), 100]);
      cases.push([`${name}: page at 90% + count`, () => page(filter, deep), 100]);
    }
    cases.push([
      'facets, 8 fields, 7 days',
      () => store.facets({ orgId: ORG_ID, ...week }, FACET_FIELDS, 10),
      250,
    ]);
    cases.push([
      'facets, 8 fields, actor + 7 days',
      () => store.facets({ orgId: ORG_ID, ...week, actor: [actor] }, FACET_FIELDS, 10),
      250,
    ]);
    cases.push([
      'facets, 8 fields, clusterName + type, 90 days',
      () =>
        store.facets(
          { orgId: ORG_ID, eventTypes: [type], fields: { clusterName: [clusterAny] } },
          FACET_FIELDS,
          10,
        ),
      250,
    ]);
    cases.push([
      'histogram, 90 days, unfiltered',
      () => store.histogram({ orgId: ORG_ID, buckets: 60 }),
      100,
    ]);
    cases.push([
      'histogram, 7 days hourly, unfiltered',
      () => store.histogram({ orgId: ORG_ID, ...week, interval: 'hour', buckets: 60 }),
      100,
    ]);
    cases.push([
      'histogram, clusterName, 90 days',
      () => store.histogram({ orgId: ORG_ID, fields: { clusterName: [clusterAny] }, buckets: 60 }),
      100,
    ]);
    cases.push([
      'histogram, actor + clusterName, 7 days hourly',
      () =>
        store.histogram({
          orgId: ORG_ID,
          ...week,
          actor: [actor],
          fields: { clusterName: [cluster] },
          interval: 'hour',
          buckets: 60,
        }),
      100,
    ]);

    const timings: Timing[] = [];
    const goals: number[] = [];
    for (const [name, fn, goal] of cases) {
      process.stderr.write(`  ${name}\n`);
      timings.push(await measure(name, fn, { warmup: 3, runs }));
      goals.push(goal);
    }
    const missed = timings.filter((t, i) => t.p95 > goals[i]!).map((t) => t.name);
    console.log(
      [
        `Investigation benchmark: ${postgres ? 'postgres' : 'sqlite'}, ${total.toLocaleString('en-US')} events in one org`,
        seedLine,
        machineLine(),
        `Values: actor ${actor}, clusterName ${clusterAny} (with actor: ${cluster}), hostname ${host}, type ${type}, CIDR ${cidr}`,
        '',
        timingTable(timings),
        '',
        missed.length
          ? `p95 over goal (pages/histogram 100 ms, facets 250 ms):\n  ${missed.join('\n  ')}`
          : 'Every p95 within its goal.',
      ].join('\n'),
    );
  } finally {
    await store.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
