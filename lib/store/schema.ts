import type { ColumnType } from 'kysely';

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
};

/**
 * Per-hour event counters, maintained in the same transaction as the events.
 * `event_type = ''` holds the all-types total. They make totalCount and deep
 * pages O(hours) instead of O(events).
 */
export type EventCountsTable = {
  org_id: string;
  event_type: string;
  hour: number;
  n: number;
};

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

export type Database = {
  orgs: OrgsTable;
  events: EventsTable;
  event_counts: EventCountsTable;
  api_keys: ApiKeysTable;
  memberships: MembershipsTable;
  settings: SettingsTable;
};

export const HOUR_MS = 3_600_000;
