import { type Kysely, type Migration, type MigrationProvider, PostgresAdapter, sql } from 'kysely';
import * as m0001 from './0001_create_schema';
import * as m0002 from './0002_cover_event_counts';
import * as m0003 from './0003_type_counters_by_day';
import * as m0004 from './0004_create_saved_views';
import * as m0005 from './0005_event_terms';
import * as m0007 from './0007_ingest_runs';
import * as m0008 from './0008_compact_postings';
import * as m0009 from './0009_ingest_run_liveness';
import * as m0010 from './0010_term_days_by_type';
import * as m0011 from './0011_term_words';
import * as m0012 from './0012_one_live_mirror';
import * as m0013 from './0013_binary_text_order';
import * as m0014 from './0014_undo_wind_back';
import * as m0015 from './0015_unindex_long_values';

/**
 * Versioned migrations, applied in name order. Listed statically (not read
 * from disk) so they survive bundling into the Next server build.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001_create_schema': m0001,
  '0002_cover_event_counts': m0002,
  '0003_type_counters_by_day': m0003,
  '0004_create_saved_views': m0004,
  '0005_event_terms': m0005,
  '0007_ingest_runs': m0007,
  '0008_compact_postings': m0008,
  '0009_ingest_run_liveness': m0009,
  '0010_term_days_by_type': m0010,
  '0011_term_words': m0011,
  '0012_one_live_mirror': m0012,
  '0013_binary_text_order': m0013,
  '0014_undo_wind_back': m0014,
  '0015_unindex_long_values': m0015,
};

/** Every shipped migration's name, in the order they apply. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

/**
 * A migration may rebuild tables and indexes for minutes on a large store.
 * On PostgreSQL each runs with the server's statement_timeout lifted for its
 * transaction only (SET LOCAL): a DBA's timeout for queries would otherwise
 * cancel it midway (rolled back, so nothing is half-applied, but the store
 * could never be upgraded). Waiting for locks still obeys lock_timeout.
 */
function withoutStatementTimeout(migration: Migration): Migration {
  const lifted = (step: (db: Kysely<unknown>) => Promise<void>) => async (db: Kysely<unknown>) => {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      await sql`SET LOCAL statement_timeout = 0`.execute(db);
    }
    await step(db);
  };
  return {
    up: lifted((db) => migration.up(db)),
    ...(migration.down && { down: lifted((db) => migration.down!(db)) }),
  };
}

const PROVIDED = Object.fromEntries(
  Object.entries(MIGRATIONS).map(([name, migration]) => [name, withoutStatementTimeout(migration)]),
);

export const migrationProvider: MigrationProvider = {
  getMigrations: () => Promise.resolve(PROVIDED),
};
