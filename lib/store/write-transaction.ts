import type { Kysely, Transaction } from 'kysely';
import { errorDetails, storeLogger } from './log';
import type { Database } from './schema';
import type { NewEvent } from './types';

/**
 * The one order every writer (a batch inserted, a batch of events deleted)
 * locks shared rows in, so two writers in one org wait for each other
 * instead of deadlocking: the tables in the order events, event_counts,
 * term_dict, term_words, term_days; within each table, rows by key:
 *
 * - events by compareEventsForWrite;
 * - event_counts by event type (compareText), then bucket;
 * - term_dict by term (compareText);
 * - term_days by term id, bucket, type id (numbers).
 *
 * PostgreSQL upserts rows in its source's order, so inserts pass their
 * arrays sorted; a deletion locks its rows in this order first (retention.ts),
 * since an UPDATE … FROM locks in whatever order its join produces. Before it
 * did, an undo beside a two-lane import into the same org met 1–7 deadlocks
 * in every one of 8 rounds.
 */

/** Text order for the lock order above: binary, the same in every writer. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The order a batch's events are written in: by type, then newest first,
 * then by id (descending), a total order. Besides locking (PostgreSQL: two
 * batches holding some of the same ids wait instead of deadlocking), it
 * writes the per-type index in runs instead of hopping between ~300 places
 * for every row; bulk loads put their batches in this order on the producing
 * thread (writeOrder in lib/ingest/bulk-batch.ts), so the writer finds them so.
 */
export function compareEventsForWrite(a: NewEvent, b: NewEvent): number {
  if (a.eventTypeName !== b.eventTypeName) return a.eventTypeName < b.eventTypeName ? -1 : 1;
  if (a.created !== b.created) return b.created - a.created;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** `events` in compareEventsForWrite's order: as they are when already so (a bulk load's batch). */
export function inWriteOrder(events: readonly NewEvent[]): readonly NewEvent[] {
  for (let i = 1; i < events.length; i++) {
    if (compareEventsForWrite(events[i - 1]!, events[i]!) > 0) {
      return [...events].sort(compareEventsForWrite);
    }
  }
  return events;
}

/**
 * Tries of a transaction PostgreSQL rolled back to break a deadlock (40P01):
 * with every writer locking in one order there should be none, but another
 * client writing these tables could still cause one.
 */
const DEADLOCK_ATTEMPTS = 5;

/**
 * One transaction of the store's writers (a batch inserted, a batch of
 * events deleted), which move counters shared with any other writer:
 *
 * - READ COMMITTED whatever the server's default: under REPEATABLE READ or
 *   SERIALIZABLE (a database's default_transaction_isolation may be either),
 *   two transactions bumping one counter row fail with 40001 instead of the
 *   second waiting and adding to the first's committed count. SQLite has one
 *   writer at a time and ignores the setting.
 * - Run again when PostgreSQL chose it as a deadlock's victim: it was rolled
 *   back whole, so running it again applies it once.
 */
export async function writeTransaction<T>(
  db: Kysely<Database>,
  body: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().setIsolationLevel('read committed').execute(body);
    } catch (error) {
      const deadlock = (error as { code?: unknown } | null)?.code === '40P01';
      if (attempt >= DEADLOCK_ATTEMPTS || !deadlock) throw error;
      // Rare by design (see above): worth an operator's notice when it is not.
      storeLogger().warn(
        { ...errorDetails(error), attempt, of: DEADLOCK_ATTEMPTS },
        'deadlock: the write transaction was rolled back and runs again',
      );
    }
  }
}
