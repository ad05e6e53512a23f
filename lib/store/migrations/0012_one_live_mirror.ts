import { type Kysely, sql } from 'kysely';

/**
 * At most one live mirror of a source into an org (issue 11). The mirror
 * checks the ledger before it starts, but two mirrors starting together can
 * both pass that check; the database refuses the second `running` row
 * instead, so the refusal is atomic on every engine and every instance.
 *
 * Runs left `running` by stores from before this migration (killed mirrors
 * never settled) would block the index: all but the newest of each source
 * are settled as interrupted first, as the ledger would settle them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`UPDATE ingest_runs SET status = 'interrupted',
      detail = 'settled when one live mirror per source became a rule'
    WHERE kind = 'mirror' AND status = 'running' AND EXISTS (
      SELECT 1 FROM ingest_runs newer
      WHERE newer.kind = 'mirror' AND newer.status = 'running'
        AND newer.org_id = ingest_runs.org_id AND newer.source = ingest_runs.source
        AND (newer.started > ingest_runs.started
          OR (newer.started = ingest_runs.started AND newer.id > ingest_runs.id)))`.execute(db);
  await sql`CREATE UNIQUE INDEX ingest_runs_one_live_mirror ON ingest_runs (org_id, source)
    WHERE kind = 'mirror' AND status = 'running'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX ingest_runs_one_live_mirror`.execute(db);
}
