import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { FILTER_FIELDS } from '@/lib/domain/filters';

/**
 * The field filters of issue 9 (lib/store/terms.ts says what a term is):
 *
 * - event_terms: one posting per event and filterable field it carries,
 *   keyed (org_id, term, created, id) with the event type beside it, so one
 *   value's events come newest first from one index range, counts and type
 *   checks never read the events table, and "does event X have term T" is
 *   one key lookup. SQLite stores it WITHOUT ROWID: the key is the table.
 * - term_counts: per term and UTC day, like event_counts per type: counts,
 *   deep pages, facets and histograms of one field filter read these.
 * - event_values: the distinct terms of an org with their counts: the
 *   dictionary q and remoteAddress CIDRs are resolved against, and the
 *   estimate that picks which filter drives a query.
 *
 * Existing events are backfilled from their documents.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const withoutRowid = sqlite ? sql.raw(' WITHOUT ROWID') : sql.raw('');
  await sql`CREATE TABLE event_terms (
    org_id text NOT NULL,
    term text NOT NULL,
    created bigint NOT NULL,
    id text NOT NULL,
    event_type text NOT NULL,
    PRIMARY KEY (org_id, term, created, id)
  )${withoutRowid}`.execute(db);
  await sql`CREATE TABLE term_counts (
    org_id text NOT NULL,
    term text NOT NULL,
    bucket bigint NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (org_id, term, bucket)
  )${withoutRowid}`.execute(db);
  await sql`CREATE TABLE event_values (
    org_id text NOT NULL,
    term text NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (org_id, term)
  )${withoutRowid}`.execute(db);

  // Backfill: one pass per field over the stored documents.
  for (const field of FILTER_FIELDS) {
    const value = sqlite ? sql`json_extract(doc, ${`$.${field}`})` : sql`(doc::jsonb ->> ${field})`;
    const isText = sqlite
      ? sql`json_type(doc, ${`$.${field}`}) = 'text'`
      : sql`jsonb_typeof(doc::jsonb -> ${field}) = 'string'`;
    await sql`INSERT INTO event_terms (org_id, term, created, id, event_type)
      SELECT org_id, ${`${field}:`} || ${value}, created, id, event_type
      FROM events WHERE ${isText} AND ${value} <> ''`.execute(db);
  }
  const day = sql`(created - ((created % 86400000) + 86400000) % 86400000) / 86400000`;
  await sql`INSERT INTO term_counts (org_id, term, bucket, n)
    SELECT org_id, term, ${day}, count(*) FROM event_terms GROUP BY org_id, term, ${day}`.execute(
    db,
  );
  await sql`INSERT INTO event_values (org_id, term, n)
    SELECT org_id, term, count(*) FROM event_terms GROUP BY org_id, term`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['event_values', 'term_counts', 'event_terms']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
