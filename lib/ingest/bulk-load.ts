import path from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { EventStore } from '@/lib/store/types';
import { type BatchThrough, type PackedBatch, unpackBatch } from './bulk-batch';
import type { ImportIssue, ReadOptions, ReadSummary } from './import';
import type { SeedOptions } from './seed';
import { refreshStatisticsAfterLoad } from './refresh-statistics';
import { favourThisThread } from './thread-priority';

/**
 * Bulk loads (seed, import) as a two-stage pipeline on two threads: a worker
 * produces encoded batches while this thread inserts the previous ones, so
 * generation or parsing overlaps with the database's work instead of adding
 * to it. Each batch is one `store.insertEvents` call, atomic on its own.
 * Where the engine takes concurrent writers (PostgreSQL), up to
 * `store.bulkInsertLanes()` batches are inserted at once, each on its own
 * connection: one batch's statements leave the database's second core idle.
 */

export type BulkJob =
  | { kind: 'seed'; options: SeedOptions; batchSize: number }
  | {
      kind: 'import';
      path: string;
      options: Omit<ReadOptions, 'onIssue' | 'onProgress'>;
      /** The ledger's run the inserted events belong to (lib/ingest/ingest-runs.ts). */
      runId?: string;
    };

/** What the worker thread starts with. */
export type WorkerInput = {
  job: BulkJob;
  /** Batches being inserted at once: the worker keeps one more ready. */
  lanes: number;
};

export type BulkSummary = Omit<ReadSummary, 'format'> & { format: ReadSummary['format'] | 'seed' };

export type FromWorker =
  | {
      type: 'batch';
      batch: PackedBatch;
      progress: number;
      /** A gzip-compressed file's: the bytes of text decompressed when the batch was handed on. */
      decompressedBytes?: number;
    }
  | { type: 'issue'; issue: ImportIssue }
  | { type: 'done'; summary: BulkSummary }
  | { type: 'fatal'; message: string; summary?: ReadSummary; voidsRun: boolean }
  | { type: 'crash'; message: string };

/** A batch is stored: its text buffer comes back for reuse (recycleText). */
export type ToWorker = { type: 'ack'; text: ArrayBuffer };

export type BulkResult = {
  summary: BulkSummary;
  inserted: number;
  skipped: number;
  seconds: number;
  /** Set when the source could not be read to the end (import only). */
  fatal?: string;
  /** With `fatal`: the run's events are not to be kept (ImportFatalError.voidsRun). */
  voidsRun?: boolean;
  /**
   * Ended by `BulkCallbacks.stop` before the source's end: the batches
   * committed stand; `summary` says where the file stands after the last of
   * them (StoredThrough): `read` the records up to there, `invalid` those
   * invalid among them, `bytes` (a gzip archive's `decompressedBytes`) the
   * offset just past the last; `format` is unknown.
   */
  stopped?: boolean;
  /**
   * Why the statistics were not refreshed after the load, its batches all
   * committed (lib/ingest/refresh-statistics.ts): no failure of the load.
   */
  statisticsNotRefreshed?: string;
};

export type BulkCallbacks = {
  /**
   * After each inserted batch: events stored so far and the producer's
   * progress (events or bytes), with the bytes of text decompressed by then
   * when the file read is gzip-compressed.
   */
  onBatch?: (state: {
    inserted: number;
    skipped: number;
    progress: number;
    decompressedBytes?: number;
  }) => void;
  onIssue?: (issue: ImportIssue) => void;
  /**
   * A batch of `records` read was taken to be inserted, before it commits:
   * a load that fails then counts the events of the batch that failed (and
   * of any being inserted beside it) as read, not stored. `through`: where
   * an import's file stands after it.
   */
  onBatchTaken?: (records: number, through?: StoredThrough) => void;
  /**
   * Aborted (SIGINT, SIGTERM): no further batch is inserted; those being
   * inserted commit, and the load returns with `stopped`.
   */
  stop?: AbortSignal;
};

/**
 * Where an import's file stands once a batch and every one before it are
 * stored: the records read up to the end of its last record and the invalid
 * among them, and the offset in bytes just past that record (`bytes`), or,
 * for a gzip archive, in its text (`decompressedBytes`, with `bytes` the
 * archive's bytes read when the batch was handed on).
 */
export type StoredThrough = {
  read: number;
  invalid: number;
  bytes: number;
  decompressedBytes?: number;
};

/** StoredThrough of a batch, from its reader's BatchThrough and the bytes read when it was handed on. */
function storedThrough(
  through: BatchThrough,
  progress: number,
  decompressedBytes: number | undefined,
): StoredThrough {
  const { read, invalid, textBytes } = through;
  // Not known (a record held from further back than the text kept): the reader's place.
  const known = textBytes >= 0;
  return decompressedBytes === undefined
    ? { read, invalid, bytes: known ? textBytes : progress }
    : { read, invalid, bytes: progress, decompressedBytes: known ? textBytes : decompressedBytes };
}

/** Defined (true) in the CLI's bundle (scripts/build-cli.mjs), undeclared under tsx. */
declare const ORG_EVENTS_BUNDLE: boolean | undefined;

/**
 * The producing thread's code: in the CLI's bundle, its own bundled file
 * beside this one; from the sources, the TypeScript with tsx's register hook
 * (resolved from this module: the worker's eval'd code resolves bare names
 * from the process's working directory, so a load started outside the
 * project, `npx org-events seed` from /tmp, found no tsx).
 */
function producerThread(options: WorkerOptions): Worker {
  if (typeof ORG_EVENTS_BUNDLE !== 'undefined' && ORG_EVENTS_BUNDLE) {
    return new Worker(path.join(__dirname, 'bulk-worker.cjs'), options);
  }
  const tsx = require.resolve('tsx/cjs/api');
  const source = path.join(__dirname, 'bulk-worker.ts');
  return new Worker(
    `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(source)});`,
    { ...options, eval: true },
  );
}

/**
 * How many nice steps lower every other thread runs while a load inserts
 * (favourThisThread). 1,000,000 events imported into SQLite, alternating
 * without and with it: the inserting thread was off a core 5.6 / 4.9 / 5.2 s
 * and 3.5 / 3.3 / 4.2 s of ~30 s (runnable but waiting 3.0-3.4 s, then
 * 1.5-1.6 s), ~5% of the import.
 */
const BULK_LOAD_NICE = 5;

export async function runBulkLoad(
  store: EventStore,
  orgId: string,
  job: BulkJob,
  callbacks: BulkCallbacks = {},
): Promise<BulkResult> {
  const started = performance.now();
  const fromStdin = job.kind === 'import' && job.path === '-';
  const lanes = store.bulkInsertLanes();
  const workerInput: WorkerInput = { job, lanes };
  const worker = producerThread({
    workerData: workerInput,
    // A larger young generation: the producer allocates short-lived strings
    // by the megabyte, and the default semi-space makes it GC-bound.
    resourceLimits: { maxYoungGenerationSizeMb: 96 },
    // A worker's process.stdin is its own empty stream unless fed from here.
    stdin: fromStdin,
  });
  if (fromStdin) process.stdin.pipe(worker.stdin!);
  // The store's upkeep (if its engine has any) runs on a third thread, so
  // neither the inserting thread nor the producer stops for it. SQLite's
  // upkeep is WAL checkpoints. On the producer's thread (until 2026-11) it
  // took a fifth of an import's producer, then the slower half: 500,000
  // events imported at 40,764 / 40,044 events/s so, 44,185 / 44,900 with a
  // thread of its own (alternating, load 1.6-1.7). A seed's producer has
  // time to spare: 1M seeded at ~58,000 either way, within noise.
  const helper = store.startBulkLoadHelper();
  // Every thread is running now (V8's, the producer, the helper): all but this one yield to it.
  const restorePriorities = favourThisThread(BULK_LOAD_NICE);

  const queue: FromWorker[] = [];
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  worker.on('message', (message: FromWorker) => {
    queue.push(message);
    wake?.();
  });
  worker.on('error', (error) => {
    failure = error;
    wake?.();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`The bulk-load worker exited early (code ${code})`);
    wake?.();
  });
  /** The worker's next message; undefined once a stop is requested and a batch (or nothing) is next. */
  const nextMessage = async (): Promise<FromWorker | undefined> => {
    for (;;) {
      // What the producer said after its last batch (issues, done, a fatal
      // error) is still taken: a stop that came once every batch was in
      // reported a whole load as stopped ("500,000 of 500,000 inserted").
      if (callbacks.stop?.aborted && (queue.length === 0 || queue[0]!.type === 'batch')) {
        return undefined;
      }
      const message = queue.shift();
      if (message) return message;
      if (failure) throw failure;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };

  callbacks.stop?.addEventListener('abort', () => wake?.(), { once: true });
  let inserted = 0;
  let skipped = 0;
  let invalid = 0;
  // Producer progress of the furthest batch committed (lanes may finish out
  // of order), and a compressed file's text decompressed by then.
  let progress = 0;
  let decompressedBytes: number | undefined;
  /** The member of a summary (or onBatch's state) saying so, for a compressed file. */
  const decompressed = () => (decompressedBytes === undefined ? {} : { decompressedBytes });
  const inserting = new Set<Promise<void>>();
  /**
   * The batches taken, by number, until they and every one before them are
   * stored (lanes may commit out of order), and where the file stands after
   * the last batch so stored.
   */
  const awaiting = new Map<number, StoredThrough | null>();
  let takenBatches = 0;
  let storedBatches = 0;
  let stored: StoredThrough | undefined;
  const insert = (
    batch: PackedBatch,
    batchProgress: number,
    batchText: number | undefined,
    through: StoredThrough | undefined,
  ) => {
    const number = takenBatches++;
    const { events, terms } = unpackBatch(batch);
    const done: Promise<void> = store
      .insertEvents(orgId, events, {
        runId: job.kind === 'import' ? job.runId : undefined,
        terms,
      })
      .then(
        (result) => {
          inserted += result.inserted;
          // Ids repeated within the batch were dropped before it (BatchPacker.add).
          skipped += result.skipped + batch.repeated;
          if (batchProgress >= progress) {
            progress = batchProgress;
            decompressedBytes = batchText;
          }
          awaiting.set(number, through ?? null);
          while (awaiting.has(storedBatches)) {
            stored = awaiting.get(storedBatches) ?? stored;
            awaiting.delete(storedBatches++);
          }
          helper?.afterBatch();
          // Its events are read no more: their text buffer goes back.
          worker.postMessage({ type: 'ack', text: batch.text } satisfies ToWorker, [batch.text]);
          callbacks.onBatch?.({ inserted, skipped, progress, ...decompressed() });
        },
        (error: unknown) => {
          failure ??= error instanceof Error ? error : new Error(String(error));
          wake?.();
        },
      )
      .finally(() => inserting.delete(done));
    inserting.add(done);
  };
  /**
   * The end of a load: every batch being inserted has committed or failed
   * (the first failure is thrown), then the statistics are refreshed if rows
   * were added; why that failed, if it did, is returned with the result.
   */
  const finish = async (): Promise<Pick<BulkResult, 'statisticsNotRefreshed'>> => {
    await Promise.all(inserting);
    if (failure) throw failure;
    const notRefreshed = inserted > 0 ? await refreshStatisticsAfterLoad(store) : undefined;
    return notRefreshed === undefined ? {} : { statisticsNotRefreshed: notRefreshed };
  };
  try {
    for (;;) {
      // A failed batch stops the load, even with more batches already queued.
      if (failure) throw failure;
      const message = await nextMessage();
      if (message === undefined) {
        const refreshed = await finish();
        // The file up to the end of the last batch stored (an import's), its
        // records read and the invalid among them: the reader has read on,
        // and what it reported past there is read again by a re-run.
        const through =
          stored ??
          (job.kind === 'import'
            ? // Nothing stored: it stands at the file's start.
              {
                read: 0,
                invalid: 0,
                bytes: 0,
                ...(decompressedBytes === undefined ? {} : { decompressedBytes: 0 }),
              }
            : { read: inserted + skipped + invalid, invalid, bytes: progress, ...decompressed() });
        return {
          summary: { format: null, ...through },
          inserted,
          skipped,
          seconds: elapsed(started),
          stopped: true,
          ...refreshed,
        };
      }
      switch (message.type) {
        case 'batch': {
          const through =
            message.batch.through &&
            storedThrough(message.batch.through, message.progress, message.decompressedBytes);
          // Its repeats of an id too: they count as read (and skipped) once it commits.
          callbacks.onBatchTaken?.(message.batch.count + message.batch.repeated, through);
          insert(message.batch, message.progress, message.decompressedBytes, through);
          if (inserting.size >= lanes) await Promise.race(inserting);
          // A turn of the event loop's I/O phase after each batch: with the
          // worker's batches always queued, a SIGINT's handler (and with it
          // a stop) waited until the whole file was in.
          if (callbacks.stop) await new Promise<void>((resolve) => setImmediate(resolve));
          break;
        }
        case 'issue':
          invalid++;
          callbacks.onIssue?.(message.issue);
          break;
        case 'done': {
          const refreshed = await finish();
          return {
            summary: message.summary,
            inserted,
            skipped,
            seconds: elapsed(started),
            ...refreshed,
          };
        }
        case 'fatal': {
          const refreshed = await finish();
          return {
            summary: message.summary ?? { format: null, read: 0, invalid: 0, bytes: 0 },
            inserted,
            skipped,
            seconds: elapsed(started),
            fatal: message.message,
            voidsRun: message.voidsRun,
            ...refreshed,
          };
        }
        case 'crash':
          throw new Error(`The bulk-load worker failed: ${message.message}`);
      }
    }
  } finally {
    // No batch is left writing once this returns or throws: the counts are final.
    await Promise.all(inserting);
    if (fromStdin) process.stdin.unpipe(worker.stdin!);
    worker.removeAllListeners('exit');
    await Promise.all([worker.terminate(), helper?.close()]);
    restorePriorities();
  }
}

function elapsed(started: number): number {
  return (performance.now() - started) / 1000;
}
