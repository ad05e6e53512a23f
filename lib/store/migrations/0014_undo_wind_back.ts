import type { Kysely } from 'kysely';

/**
 * Where an undo winds mirror checkpoints back from (issue 11):
 * ingest_runs.undo_from, the `created` of the run's oldest event when its
 * undo began, recorded before anything is deleted. An undo stopped midway
 * has deleted the oldest of the run's events; run again, the oldest left
 * is newer, and a mirror that saved its checkpoint meanwhile (it read the
 * events as present) kept a gap that was never walked again. Null when no
 * undo is under way (cleared when one completes).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ingest_runs').addColumn('undo_from', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ingest_runs').dropColumn('undo_from').execute();
}
