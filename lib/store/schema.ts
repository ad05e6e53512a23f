import type { ColumnType, Generated } from 'kysely';
import { DAY_MS, HOUR_MS } from '@/lib/domain/dates';

/** Table shapes as Kysely sees them. `org_id` leads every key. */

type Millis = ColumnType<number, number, number>;

export type OrgsTable = { id: string; name: string; created: Millis };

export type EventsTable = {
  org_id: string;
  id: string;
  created: Millis;
  event_type: string;
  doc: string;
  raw: string | null;
  /** The import or mirror run that inserted it (migration 0007); null for seeds. */
  run_id: ColumnType<string | null, string | null | undefined, string | null>;
};

/**
 * Event counters, maintained in the same transaction as the events. The
 * all-types row (`event_type = ''`) counts per hour; each type counts per day
 * (`bucket` is the hour or day number since the epoch). They make totalCount
 * and deep pages O(buckets) instead of O(events).
 */
export type EventCountsTable = {
  org_id: string;
  event_type: string;
  bucket: number;
  n: number;
};

/** An integer per event type name (migrations/0008_compact_postings.ts). */
export type EventTypeIdsTable = { id: Generated<number>; name: string };

/** The distinct terms of an org, with an integer id each and their counts. */
export type TermDictTable = { id: Generated<number>; org_id: string; term: string; n: number };

/** Postings of the filterable fields: see migrations/0008_compact_postings.ts and terms.ts. */
export type TermPostingsTable = {
  term_id: number;
  created: Millis;
  id_hi: number;
  id_lo: number;
  type_id: number;
};

/**
 * Per term id, UTC day (`bucket` = day number since the epoch) and type id
 * (migrations/0010_term_days_by_type.ts).
 */
export type TermDaysTable = { term_id: number; bucket: number; type_id: number; n: number };

/** The words of each dictionary term (migrations/0011_term_words.ts). */
export type TermWordsTable = { org_id: string; word: string; term_id: number };

export type ApiKeysTable = {
  id: string;
  public_key: string;
  description: string;
  created: Millis;
  disabled: number;
  realm: string;
  ha1_md5: string;
  ha1_sha256: string;
};

export type MembershipsTable = {
  org_id: string;
  api_key_id: string;
  role: string;
  created: Millis;
};

export type SettingsTable = { key: string; value: string };

export type SavedViewsTable = {
  id: string;
  org_id: string;
  owner_key_id: string;
  name: string;
  shared: number;
  state: string;
  created: Millis;
  updated: Millis;
};

/** The import ledger: one row per import or mirror run (migration 0007). */
export type IngestRunsTable = {
  id: string;
  org_id: string;
  kind: string;
  source: string;
  started: Millis;
  finished: ColumnType<number | null, number | null | undefined, number | null>;
  inserted: Millis;
  skipped: Millis;
  rejected: Millis;
  status: string;
  detail: string | null;
  /** The machine and process that started the run (migration 0009; null before it). */
  host: ColumnType<string | null, string | null | undefined, string | null>;
  pid: ColumnType<number | null, number | null | undefined, number | null>;
  /** Its last sign of life, ms (migration 0009). */
  heartbeat: ColumnType<number | null, number | null | undefined, number | null>;
  /** Where its undo winds mirror checkpoints back from, while one is under way (migration 0014). */
  undo_from: ColumnType<number | null, number | null | undefined, number | null>;
};

/** Where a mirror of one source organization stands (JSON state). */
export type MirrorCheckpointsTable = {
  org_id: string;
  source: string;
  state: string;
  updated: Millis;
};

export type Database = {
  orgs: OrgsTable;
  events: EventsTable;
  event_counts: EventCountsTable;
  event_type_ids: EventTypeIdsTable;
  term_dict: TermDictTable;
  term_postings: TermPostingsTable;
  term_days: TermDaysTable;
  term_words: TermWordsTable;
  api_keys: ApiKeysTable;
  memberships: MembershipsTable;
  settings: SettingsTable;
  saved_views: SavedViewsTable;
  ingest_runs: IngestRunsTable;
  mirror_checkpoints: MirrorCheckpointsTable;
};

/**
 * The counters' time unit: hours for the all-types row (the unfiltered list is
 * the hot path), days per type (24x fewer counter rows to write on bulk loads;
 * one type's day holds few enough rows to skip within).
 */
export function counterUnit(byType: boolean): number {
  return byType ? DAY_MS : HOUR_MS;
}
