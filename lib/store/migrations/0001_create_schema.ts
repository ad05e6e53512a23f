import { type Kysely, sql } from 'kysely';

// Engine-neutral DDL: text ids, bigint milliseconds, integer flags.
// Keys lead with org_id so the events can be distributed by organization.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('orgs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('doc', 'text', (c) => c.notNull())
    .addColumn('raw', 'text')
    .addPrimaryKeyConstraint('events_pk', ['org_id', 'id'])
    .execute();
  // Newest first with id as the tie-break: serves the unfiltered list.
  await sql`CREATE INDEX events_by_created ON events (org_id, created DESC, id DESC)`.execute(db);
  // The same order within one event type: serves eventType filters.
  await sql`CREATE INDEX events_by_type ON events (org_id, event_type, created DESC, id DESC)`.execute(
    db,
  );

  await db.schema
    .createTable('event_counts')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('event_counts_pk', ['org_id', 'event_type', 'hour'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull().unique())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('realm', 'text', (c) => c.notNull())
    .addColumn('ha1_md5', 'text', (c) => c.notNull())
    .addColumn('ha1_sha256', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['org_id', 'api_key_id', 'role'])
    .execute();
  await sql`CREATE INDEX memberships_by_key ON memberships (api_key_id, org_id)`.execute(db);

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['settings', 'memberships', 'api_keys', 'event_counts', 'events', 'orgs']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
