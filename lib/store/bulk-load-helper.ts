import { Worker } from 'node:worker_threads';

/**
 * Store upkeep a bulk load hands to a thread of its own while the store's
 * thread keeps inserting: the store starts it (`EventStore.startBulkLoadHelper`),
 * the load calls `afterBatch` each time a batch is committed and `close` at
 * the end. What the helper does is the engine's business, never the caller's.
 */
export type BulkLoadHelper = {
  /** After each committed batch: returns at once; best effort, never throws. */
  afterBatch(): void;
  /** Finishes the work asked for so far, then ends the thread. */
  close(): Promise<void>;
};

/**
 * The checkpointing thread's code: plain JavaScript, so the thread starts in
 * milliseconds without a TypeScript loader. Each message is either a
 * checkpoint request or 'close'; messages queued while a checkpoint runs are
 * handled in order, and a checkpoint with nothing new to copy returns at once.
 * A connection that cannot open ends the thread: the load goes on without it
 * (the inserting connection's own automatic checkpoint still runs).
 */
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 0');
} catch {
  process.exit(0);
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy (another checkpoint is running) or transient: the next batch retries.
  }
});
`;

/**
 * SQLite: checkpoint the WAL from a connection on its own thread. A passive
 * checkpoint after each committed batch copies the new WAL frames into the
 * database while the inserting connection goes on writing (WAL mode lets a
 * checkpoint run alongside a writer), so that connection's own automatic
 * checkpoint finds little or nothing left to do and does not stall inserts.
 *
 * Its own thread, not the producer's: an import's producer (parse, validate,
 * encode) is the slower half of the pipeline, and a checkpoint there took a
 * fifth of its time while the inserting thread waited for batches. On a
 * thread of its own the scheduler gives it whichever core is idle.
 */
export function startSqliteCheckpointer(file: string): BulkLoadHelper {
  const worker = new Worker(CHECKPOINTER_SOURCE, {
    eval: true,
    workerData: { file, driver: require.resolve('better-sqlite3') },
  });
  let ended = false;
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      ended = true;
      resolve();
    });
    // A failure of the helper never fails the load.
    worker.on('error', () => undefined);
  });
  return {
    afterBatch: () => {
      if (!ended) worker.postMessage('checkpoint');
    },
    close: async () => {
      if (!ended) worker.postMessage('close');
      await exited;
    },
  };
}
