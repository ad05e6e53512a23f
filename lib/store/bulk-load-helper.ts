import BetterSqlite3 from 'better-sqlite3';

/**
 * Store upkeep a bulk load can run on another thread while the store's own
 * thread keeps inserting. The store names the work with a plain value
 * (`EventStore.bulkLoadHelperTarget()`), which crosses to a worker thread as
 * it is; the worker opens it with `openBulkLoadHelper` and calls `afterBatch`
 * each time a batch is committed. What the value holds and what the helper
 * does is the engine's business, never the caller's.
 */

declare const opaque: unique symbol;
/** Where a bulk-load helper attaches: opaque outside lib/store, structured-clone safe. */
export type BulkLoadHelperTarget = { readonly [opaque]: 'BulkLoadHelperTarget' };

/**
 * Lives as long as the worker thread: its resources go with the thread (a
 * bulk load's worker is terminated when the load ends).
 */
export type BulkLoadHelper = {
  /** After each committed batch: best effort, never throws. */
  afterBatch(): void;
};

/** What the engines put inside a target. */
type TargetData = { kind: 'sqlite-wal-checkpoint'; file: string };

/**
 * SQLite: checkpoint the WAL from the helper's own connection. A passive
 * checkpoint after each committed batch copies the new WAL frames into the
 * database while the inserting connection goes on writing (WAL mode lets a
 * checkpoint run alongside a writer), so that connection's own automatic
 * checkpoint finds little or nothing left to do and does not stall inserts.
 */
export function sqliteCheckpointTarget(file: string): BulkLoadHelperTarget {
  const data: TargetData = { kind: 'sqlite-wal-checkpoint', file };
  return data as unknown as BulkLoadHelperTarget;
}

/**
 * Opens the helper a target names, or returns undefined when it cannot be
 * opened (the load then goes on without it: the helper only saves time).
 */
export function openBulkLoadHelper(target: BulkLoadHelperTarget): BulkLoadHelper | undefined {
  const data = target as unknown as TargetData;
  if (data.kind === 'sqlite-wal-checkpoint') return openSqliteCheckpointer(data.file);
  return undefined;
}

function openSqliteCheckpointer(file: string): BulkLoadHelper | undefined {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(file, { fileMustExist: true });
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 0');
  } catch {
    return undefined;
  }
  return {
    afterBatch: () => {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // Busy (another checkpoint is running) or transient: the next batch retries.
      }
    },
  };
}
