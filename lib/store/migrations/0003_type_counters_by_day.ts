import { type Kysely, sql } from 'kysely';

// Per-type counters move from hours to days (the all-types row stays hourly):
// bulk loads wrote almost one counter row per event on sparse data. The column
// becomes `bucket`, whose unit depends on the row (see lib/store/schema.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE event_counts RENAME COLUMN hour TO bucket`.execute(db);
  // Floor division that is also right for hours before 1970.
  const day = sql`(bucket - ((bucket % 24) + 24) % 24) / 24`;
  await sql`CREATE TABLE event_counts_by_day AS
    SELECT org_id, event_type, ${day} AS bucket, SUM(n) AS n
    FROM event_counts WHERE event_type <> ''
    GROUP BY org_id, event_type, ${day}`.execute(db);
  await sql`DELETE FROM event_counts WHERE event_type <> ''`.execute(db);
  await sql`INSERT INTO event_counts (org_id, event_type, bucket, n)
    SELECT org_id, event_type, bucket, n FROM event_counts_by_day`.execute(db);
  await sql`DROP TABLE event_counts_by_day`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Days cannot be split back into hours: spread nothing, refuse instead.
  await Promise.reject(
    new Error('0003_type_counters_by_day cannot be reverted; restore a backup instead'),
  );
  void db;
}
