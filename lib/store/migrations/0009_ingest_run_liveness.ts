import type { Kysely } from 'kysely';

/**
 * Who is running an import or mirror, and when it was last heard from
 * (issue 11): a run killed mid-way (SIGKILL, a crash, a lost machine) never
 * writes its end, so `running` alone cannot tell a live run from a dead one.
 *
 * - host, pid: the machine (os.hostname()) and process that started the run.
 *   On that machine a run whose process is gone is known at once to be
 *   interrupted.
 * - heartbeat: the last time (ms) the run wrote a sign of life; elsewhere, a
 *   run silent for longer than the ledger's staleness limit is interrupted.
 *
 * All null on runs recorded before this migration (their `started` stands in
 * for the heartbeat).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ingest_runs').addColumn('host', 'text').execute();
  await db.schema.alterTable('ingest_runs').addColumn('pid', 'integer').execute();
  await db.schema.alterTable('ingest_runs').addColumn('heartbeat', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ingest_runs').dropColumn('heartbeat').execute();
  await db.schema.alterTable('ingest_runs').dropColumn('pid').execute();
  await db.schema.alterTable('ingest_runs').dropColumn('host').execute();
}
