import { type Kysely, sql } from 'kysely';

/**
 * The import ledger (issue 11) and the mirror's checkpoints:
 *
 * - ingest_runs: one row per import or mirror run (what, from where, when,
 *   how many inserted / skipped / rejected, its status).
 * - events.run_id: the run that inserted the event (null for seeded events
 *   and events stored before this migration). An event skipped as already
 *   present keeps the run that first added it, so undoing a run removes
 *   exactly what it added. The index is partial: seeds, which carry no run,
 *   pay nothing for it.
 * - mirror_checkpoints: where a mirror of one source organization stands
 *   (JSON), so a killed mirror resumes instead of starting over.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN run_id text`.execute(db);
  await sql`CREATE INDEX events_by_run ON events (org_id, run_id) WHERE run_id IS NOT NULL`.execute(
    db,
  );
  await db.schema
    .createTable('ingest_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('started', 'bigint', (c) => c.notNull())
    .addColumn('finished', 'bigint')
    .addColumn('inserted', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('rejected', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .execute();
  await sql`CREATE INDEX ingest_runs_by_org ON ingest_runs (org_id, started)`.execute(db);
  await db.schema
    .createTable('mirror_checkpoints')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('mirror_checkpoints_pk', ['org_id', 'source'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mirror_checkpoints').ifExists().execute();
  await db.schema.dropTable('ingest_runs').ifExists().execute();
  await sql`DROP INDEX IF EXISTS events_by_run`.execute(db);
  await sql`ALTER TABLE events DROP COLUMN run_id`.execute(db);
}
