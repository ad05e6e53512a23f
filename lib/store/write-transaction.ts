import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema';

/**
 * Tries of a transaction PostgreSQL rolled back to break a deadlock (40P01).
 * Writers take most locks in one order, but not all (an insert's events in
 * its batch's order, a deletion's counters in its join's order): an import
 * and an undo in one org deadlocked in every one of 9 tries.
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
    }
  }
}
