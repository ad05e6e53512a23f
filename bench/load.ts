/**
 * `npx tsx bench/load.ts [--events N] [--formats ndjson,envelope]`
 *
 * Bulk-load throughput, stage by stage, on fresh stores:
 *
 * 1. the generator alone (events/s, no database);
 * 2. seeding N events (what `npm run cli -- seed` does: generator thread +
 *    inserting thread);
 * 3. the ceiling: JSON.parse of the same export's lines alone (one thread,
 *    no validation, no database), and reading, validating, encoding and packing the
 *    file alone (no database);
 * 4. importing that file (what `npm run cli -- import` does: a run in the
 *    import ledger, each event tagged with it), per format, and (NDJSON)
 *    undoing that run (`imports undo`; `events prune` deletes alike). The
 *    NDJSON file is another org's export imported with --rehome, the
 *    envelope the target org's own: both of the encoder's fast paths; on
 *    SQLite, where the import's inserting thread spent its time, statement
 *    by statement;
 * 5. the inserting thread alone (as many batches at once as a bulk load
 *    inserts), on batches generated beforehand (at most
 *    WRITER_EVENTS of them, generated again for each run), with the field
 *    index (postings, term counters) and without it: what indexing costs the
 *    writer, side by side; with the store's upkeep on its own thread, as in
 *    a bulk load; on SQLite, with where the inserting thread's time went,
 *    statement by statement.
 *
 * SQLite stores go to bench/data/load-*.db (removed after each stage); with
 * DATABASE_URL=postgres://... the loads go to that database instead, each
 * into a new organization. Figures are printed and written to
 * bench/results/load-<engine>-<N>.json. Nothing is asserted on time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { recycleText } from '@/lib/ingest/bulk-batch';
import { runBulkLoad } from '@/lib/ingest/bulk-load';
import { endIngestRun, startIngestRun, undoIngestRun } from '@/lib/ingest/ingest-runs';
import { DEFAULT_IMPORT_BATCH, readEventBatches } from '@/lib/ingest/import';
import { newObjectId } from '@/lib/domain/object-id';
import { generateEventBatches, generateEvents, type SeedOptions } from '@/lib/ingest/seed';
import { type BatchTerms, batchTerms } from '@/lib/store/terms';
import { openStore, parseDatabaseUrl } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { machineInfo, machineLine, processesCpuSeconds } from './lib/machine';
import { measureStatements, type StatementTime } from './lib/statement-time';

const ROOT = path.resolve(__dirname, '..');
const DATA = path.join(ROOT, 'bench', 'data');
const FROM = Date.UTC(2025, 0, 1);
const TO = Date.UTC(2025, 3, 1);
/** Events per batch: what `seed` and `import` use unless told otherwise. */
const BATCH = DEFAULT_IMPORT_BATCH;
/** Events held in memory for stage 5. */
const WRITER_EVENTS = 200_000;

type Figure = {
  stage: string;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** CPU time of the whole process (all threads) per event: what the stage costs on an idle machine. */
  cpuMicrosPerEvent: number;
  /** The local database server's CPU time per event (PostgreSQL at localhost only). */
  serverCpuMicrosPerEvent?: number;
  loadAverage: number;
  /** The process's peak resident memory so far (MB): flat as --events grows means streaming holds. */
  peakRssMb: number;
};

/** Where a SQLite stage's inserting thread spent its time, by statement (bench/lib/statement-time.ts). */
type WriterSplit = {
  /** The stage, as its figure names it. */
  stage: string;
  events: number;
  seconds: number;
  statements: StatementTime[];
};

/** A split as lines under the figures: each statement's share of the stage and its microseconds an event. */
function splitLines(split: WriterSplit): string[] {
  const inStatements = split.statements.reduce((sum, s) => sum + s.ms, 0);
  const line = (name: string, ms: number, calls?: number) =>
    `  ${name.padEnd(22)} ${((ms / (split.seconds * 1000)) * 100).toFixed(0).padStart(3)}%  ${((ms * 1000) / split.events).toFixed(2).padStart(6)} us/event${calls === undefined ? '' : `  (${calls.toLocaleString('en-US')} statements)`}`;
  return [
    '',
    `${split.stage}: where the inserting thread's time went`,
    ...split.statements
      .filter((s) => (s.ms * 1000) / split.events >= 0.01)
      .map((s) => line(s.target, s.ms, s.calls)),
    line('outside statements', split.seconds * 1000 - inStatements),
  ];
}

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

/**
 * The database server's processes, when it runs on this machine (PostgreSQL
 * at localhost): their CPU time is part of what a stage costs, on the same
 * cores.
 */
const LOCAL_SERVER = localPostgres(process.env.DATABASE_URL) ? 'postgres' : undefined;

function localPostgres(url: string | undefined): boolean {
  if (!url || parseDatabaseUrl(url).engine !== 'postgres') return false;
  const host = new URL(url).hostname;
  // No host: a Unix socket, local too.
  return ['', 'localhost', '127.0.0.1', '[::1]'].includes(host);
}

type Timing = {
  seconds: number;
  /** This process's CPU time (all its threads). */
  cpuSeconds: number;
  /** The local database server's CPU time, if it is local (LOCAL_SERVER). */
  serverCpuSeconds?: number;
};

/** Wall and CPU time of one stage; the machine may be shared, so both are reported. */
async function timed<T>(fn: () => Promise<T>): Promise<Timing & { value: T }> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const server = LOCAL_SERVER && processesCpuSeconds(LOCAL_SERVER);
  const value = await fn();
  const used = process.cpuUsage(cpu);
  const serverAfter = LOCAL_SERVER && processesCpuSeconds(LOCAL_SERVER);
  return {
    value,
    seconds: (performance.now() - wall) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
    ...(typeof server === 'number' && typeof serverAfter === 'number'
      ? { serverCpuSeconds: serverAfter - server }
      : {}),
  };
}

function figure(stage: string, events: number, seconds: number, cpu: Timing): Figure {
  const perEvent = (cpuSeconds: number) => Number(((cpuSeconds / events) * 1e6).toFixed(2));
  const result: Figure = {
    stage,
    events,
    seconds,
    eventsPerSecond: Math.round(events / seconds),
    cpuMicrosPerEvent: perEvent(cpu.cpuSeconds),
    ...(cpu.serverCpuSeconds === undefined
      ? {}
      : { serverCpuMicrosPerEvent: perEvent(cpu.serverCpuSeconds) }),
    loadAverage: os.loadavg()[0]!,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  log(
    `${stage}: ${events.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s = ${result.eventsPerSecond.toLocaleString('en-US')} events/s (${result.cpuMicrosPerEvent} CPU-us/event${serverCpu(result)}, peak RSS ${result.peakRssMb} MB, load ${result.loadAverage.toFixed(2)})`,
  );
  return result;
}

/** ", server N" when the server's CPU time was measured. */
function serverCpu(figure: Figure): string {
  return figure.serverCpuMicrosPerEvent === undefined
    ? ''
    : ` + server ${figure.serverCpuMicrosPerEvent.toFixed(1)}`;
}

/** The loads' stores are throwaway: only the timings matter. */
function removeStore(file: string | undefined): void {
  if (file === undefined) return;
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
}

async function freshStore(
  name: string,
): Promise<{ store: EventStore; engine: string; file?: string }> {
  const url = process.env.DATABASE_URL;
  if (url && parseDatabaseUrl(url).engine === 'postgres') {
    return { store: await openStore(url), engine: 'postgres' };
  }
  const file = path.join(DATA, `${name}.db`);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  return { store: await openStore(file), engine: 'sqlite', file };
}

/**
 * Runs the generator on a worker thread set up like the seed pipeline's (the
 * same young-generation size), counting events: its throughput on its own.
 * Event by event, as seed's producer takes them (lib/ingest/bulk-worker.ts):
 * gathered into batches first, their objects lived on to be copied by the
 * collector, which took a third of the time and measured what seed no
 * longer does (13.7-17.7 CPU-µs an event, against ~5).
 */
function generateInWorker(options: SeedOptions): Promise<number> {
  const seedModule = path.join(ROOT, 'lib', 'ingest', 'seed.ts');
  const worker = new Worker(
    `require('tsx/cjs/api').register();
     const { parentPort, workerData } = require('node:worker_threads');
     const { generateNewEvents } = require(${JSON.stringify(seedModule)});
     let count = 0;
     for (const _event of generateNewEvents(workerData.options)) count++;
     parentPort.postMessage(count);`,
    {
      eval: true,
      workerData: { options },
      resourceLimits: { maxYoungGenerationSizeMb: 96 },
    },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', (count: number) => {
      void worker.terminate();
      resolve(count);
    });
    worker.once('error', reject);
  });
}

async function writeExport(file: string, options: SeedOptions, format: string): Promise<number> {
  const out = fs.createWriteStream(file);
  const write = (text: string) =>
    out.write(text)
      ? Promise.resolve()
      : new Promise<void>((resolve) => out.once('drain', resolve));
  if (format === 'envelope') await write('{"links":[],"results":[\n');
  let first = true;
  for (const event of generateEvents(options)) {
    const text = JSON.stringify(event);
    await write(format === 'envelope' ? `${first ? '' : ',\n'}${text}` : `${text}\n`);
    first = false;
  }
  if (format === 'envelope') await write(`\n],"totalCount":${options.count}}\n`);
  await new Promise((resolve) => out.end(resolve));
  return fs.statSync(file).size;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '1000000' },
      formats: { type: 'string', default: 'ndjson,envelope' },
    },
  });
  const events = Number(values.events.replace(/[_,]/g, ''));
  if (!Number.isSafeInteger(events) || events < 1000)
    throw new Error('--events must be at least 1000');
  const formats = values.formats.split(',').filter(Boolean);
  fs.mkdirSync(DATA, { recursive: true });
  const figures: Figure[] = [];
  const writerSplits: WriterSplit[] = [];
  log(machineLine());

  // 1. The generator alone.
  const seedOptions = (orgId: string, seed: string): SeedOptions => ({
    orgId,
    count: events,
    seed,
    from: FROM,
    to: TO,
  });
  const generated = await timed(() => generateInWorker(seedOptions(newObjectId(), 'gen')));
  figures.push(
    figure(
      'generator alone (its worker thread, as in seed)',
      generated.value,
      generated.seconds,
      generated,
    ),
  );

  // 2. Seeding.
  const seeded = await freshStore(`load-${events}-seed`);
  const engine = seeded.engine;
  const seedOrg = newObjectId();
  await seeded.store.createOrg({ id: seedOrg, name: 'Load benchmark (seed)', created: FROM });
  const seed = await timed(() =>
    runBulkLoad(seeded.store, seedOrg, {
      kind: 'seed',
      options: seedOptions(seedOrg, 'seed'),
      batchSize: BATCH,
    }),
  );
  await seeded.store.close();
  removeStore(seeded.file);
  figures.push(figure(`seed into ${engine}`, seed.value.inserted, seed.value.seconds, seed));

  // 3 and 4. Import, per format.
  for (const format of formats) {
    const file = path.join(DATA, `load-${events}.${format === 'envelope' ? 'json' : 'ndjson'}`);
    const importOrg = newObjectId();
    // The NDJSON file is another org's export, imported with --rehome (as
    // most real imports are: a source org's events into a local org of
    // another id); the envelope is the target org's own.
    const rehome = format === 'ndjson';
    const exportOrg = rehome ? newObjectId() : importOrg;
    const readOptions = { orgId: importOrg, batchSize: BATCH, rehome };
    const how = rehome ? " (another org's, --rehome)" : '';
    log(`Writing a ${format} export of ${events.toLocaleString('en-US')} events...`);
    const bytes = await writeExport(file, seedOptions(exportOrg, `import-${format}`), format);
    log(`  ${(bytes / 1e6).toFixed(0)} MB`);

    if (format === 'ndjson') {
      const ceiling = await timed(async () => {
        let count = 0;
        let pending = '';
        for await (const chunk of fs.createReadStream(file, {
          encoding: 'utf8',
          highWaterMark: 1 << 20,
        })) {
          const lines = (pending + (chunk as string)).split('\n');
          pending = lines.pop()!;
          for (const line of lines) if (line !== '' && JSON.parse(line) !== null) count++;
        }
        if (pending !== '' && JSON.parse(pending) !== null) count++;
        return count;
      });
      figures.push(
        figure(
          'ceiling: JSON.parse of the ndjson lines alone',
          ceiling.value,
          ceiling.seconds,
          ceiling,
        ),
      );
    }

    const read = await timed(async () => {
      let count = 0;
      for await (const batch of readEventBatches(file, readOptions)) {
        count += batch.count;
        // As the inserting thread gives each batch's text buffer back.
        recycleText(batch.text);
      }
      return count;
    });
    figures.push(
      figure(
        `read + validate + encode + pack ${format}${how} alone`,
        read.value,
        read.seconds,
        read,
      ),
    );

    const target = await freshStore(`load-${events}-import-${format}`);
    await target.store.createOrg({
      id: importOrg,
      name: `Load benchmark (import ${format})`,
      created: FROM,
    });
    // Recorded in the import ledger as the CLI's `import` does: each event
    // carries the run's id (and its index entry), which `imports undo` uses.
    const ledger = await startIngestRun(target.store, {
      orgId: importOrg,
      kind: 'import',
      source: file,
    });
    // The inserting thread is this one (the reading one is a worker). The
    // wrapper timing each statement costs two clock reads a statement, some
    // 8,000 statements in 300,000 events: nothing the import's figure shows.
    const statements = engine === 'sqlite' ? measureStatements() : undefined;
    const run = await timed(() =>
      runBulkLoad(target.store, importOrg, {
        kind: 'import',
        path: file,
        runId: ledger.id,
        options: readOptions,
      }),
    );
    const split = statements?.stop();
    const imported = run.value;
    await endIngestRun(target.store, ledger.id, {
      status: imported.fatal ? 'failed' : 'finished',
      inserted: imported.inserted,
      skipped: imported.skipped,
      rejected: imported.summary.invalid,
      detail: imported.fatal ?? null,
    });
    if (imported.fatal || imported.summary.invalid > 0) {
      throw new Error(
        `The import failed: ${imported.fatal ?? `${imported.summary.invalid} invalid`}`,
      );
    }
    const stage = `import ${format}${how} into ${engine}`;
    figures.push(figure(stage, imported.inserted, imported.seconds, run));
    if (split) {
      writerSplits.push({
        stage,
        events: imported.inserted,
        seconds: imported.seconds,
        statements: split,
      });
    }
    if (format === 'ndjson') {
      // 4b. Deleting them again, postings and counters included: `imports
      // undo` of the run (`events prune` deletes the same way).
      const removal = await timed(
        async () => (await undoIngestRun(target.store, ledger.id)).deleted,
      );
      figures.push(
        figure(
          `undo the import (imports undo; prune alike) from ${engine}`,
          removal.value,
          removal.seconds,
          removal,
        ),
      );
    }
    await target.store.close();
    removeStore(target.file);
    fs.rmSync(file, { force: true });
  }

  // 5. The inserting thread alone, with and without the field index. A
  // batch given empty precomputed terms writes no postings: the difference
  // between the two runs is what indexing costs the writer.
  const writerEvents = Math.min(events, WRITER_EVENTS);
  const writerOrg = newObjectId();
  const none: BatchTerms = {
    terms: [],
    postings: new Int32Array(0),
    dayCounts: new Float64Array(0),
    values: new Float64Array(0),
    keys: new Float64Array(0),
  };
  for (const indexed of [true, false]) {
    // Each run its own batches, the same events generated again: a batch
    // inserted a second time goes in faster (why is not known; see
    // docs/benchmarks.md), so the run after another on the same batches wrote
    // its events rows at a third of the cost (2.8 against 8.3 us an event),
    // and the index seemed to take three quarters of the writer's speed
    // away, where it takes a little more than half.
    // Only the events the stage inserts are generated: generating all N and
    // keeping a slice held every batch at once (2 GB of peak RSS at 1,000,000).
    const batches = [
      ...generateEventBatches({ ...seedOptions(writerOrg, 'writer'), count: writerEvents }, BATCH),
    ];
    const withTerms = indexed ? batches.map((batch) => batchTerms(batch)) : [];
    const target = await freshStore(`load-${events}-writer-${indexed ? 'indexed' : 'bare'}`);
    const org = newObjectId();
    await target.store.createOrg({ id: org, name: 'Load benchmark (writer)', created: FROM });
    // As many batches at once as a bulk load inserts (PostgreSQL: two lanes),
    // and the store's upkeep on its own thread as in a bulk load (SQLite: WAL
    // checkpoints). Without it each commit that found the WAL past its size
    // ran the checkpoint itself: a third of the writer's time in this stage
    // until 2026-11, which an import's inserting thread never spends.
    const lanes = target.store.bulkInsertLanes();
    const statements = engine === 'sqlite' ? measureStatements() : undefined;
    const run = await timed(async () => {
      const helper = target.store.startBulkLoadHelper();
      let inserted = 0;
      let next = 0;
      const lane = async () => {
        while (next < batches.length) {
          const i = next++;
          const terms = indexed ? withTerms[i]! : none;
          // Not `inserted += await ...`: that reads `inserted` before the await, and lanes interleave.
          const result = await target.store.insertEvents(org, batches[i]!, { terms });
          inserted += result.inserted;
          helper?.afterBatch();
        }
      };
      try {
        await Promise.all(Array.from({ length: lanes }, lane));
      } finally {
        await helper?.close();
      }
      return inserted;
    });
    const split = statements?.stop();
    const stage = `writer alone into ${engine}, ${indexed ? 'with' : 'without'} the field index`;
    if (split)
      writerSplits.push({ stage, events: run.value, seconds: run.seconds, statements: split });
    await target.store.close();
    removeStore(target.file);
    figures.push(figure(stage, run.value, run.seconds, run));
  }

  const width = Math.max(...figures.map((f) => f.stage.length));
  console.log(
    [
      `Bulk load: ${events.toLocaleString('en-US')} events, ${engine}, batches of ${BATCH.toLocaleString('en-US')}`,
      '',
      ...figures.map(
        (f) =>
          `${f.stage.padEnd(width)}  ${f.eventsPerSecond.toLocaleString('en-US').padStart(9)} events/s  ${f.cpuMicrosPerEvent.toFixed(1).padStart(5)} CPU-us/event${serverCpu(f)}  (${f.seconds.toFixed(1)} s, peak RSS ${f.peakRssMb} MB, load ${f.loadAverage.toFixed(1)})`,
      ),
      ...writerSplits.flatMap(splitLines),
    ].join('\n'),
  );
  const resultsDir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const out = path.join(resultsDir, `load-${engine}-${events}.json`);
  fs.writeFileSync(
    out,
    `${JSON.stringify(
      {
        engine,
        events,
        batchSize: BATCH,
        machine: machineInfo(),
        date: new Date().toISOString(),
        figures,
        writerSplits,
      },
      null,
      2,
    )}\n`,
  );
  log(`Wrote ${path.relative(ROOT, out)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
