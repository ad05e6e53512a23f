import { FILTER_FIELDS, type FilterField, parseIp } from '@/lib/domain/filters';
import type { ApiEvent } from './present';
import { type ChipKey, chipKeyName } from './query-syntax';

/**
 * Click-to-filter: the filters one event offers ("everything by this actor",
 * "everything on this cluster"), per table column or all of them, as the
 * table's cell menus and the detail panel show them.
 */

export type Pivot = {
  key: ChipKey;
  value: string;
  /** "Only actor ada@example.com" reads as the menu item. */
  label: string;
  /** Whether the API can also leave this value out (event types only). */
  canExclude: boolean;
};

/** The table columns that offer a filter menu. */
export const PIVOT_COLUMNS = ['type', 'actor', 'target', 'resource', 'remote'] as const;
export type PivotColumn = (typeof PIVOT_COLUMNS)[number];

/**
 * Each column's filterable fields, in menu order. A list inside a list is
 * "the first present": the cell shows a cluster's id (a host's id) only when
 * it has no name, and its menu offers what the cell shows.
 */
const COLUMN_FIELDS: Record<
  Exclude<PivotColumn, 'type' | 'actor'>,
  readonly (FilterField | readonly FilterField[])[]
> = {
  target: ['targetUsername', 'targetPublicKey', 'teamId'],
  resource: [
    ['clusterName', 'clusterId'],
    ['hostname', 'hostId'],
    'replicaSetName',
    'shardName',
    'groupId',
  ],
  remote: ['remoteAddress'],
};

const FIELD_WORDS: Partial<Record<ChipKey, string>> = {
  eventType: 'event type',
  actor: 'actor',
  targetUsername: 'target user',
  targetPublicKey: 'target API key',
  teamId: 'team',
  clusterName: 'cluster',
  clusterId: 'cluster id',
  hostname: 'host',
  hostId: 'host id',
  replicaSetName: 'replica set',
  shardName: 'shard',
  groupId: 'project',
  remoteAddress: 'address',
};

function text(event: ApiEvent, field: string): string | null {
  const value = event[field];
  return typeof value === 'string' && value !== '' ? value : null;
}

/**
 * Whether a value can be a filter: the URL and the API trim each value of a
 * list, so "alice " would be "alice" and "  " none (0 results, or the filter
 * gone). A comma is escaped (value-list.ts), so "comma,user@example.com" can.
 */
export function isFilterableValue(value: string): boolean {
  return value !== '' && value.trim() === value;
}

/** A field's value when present and filterable. */
function filterValue(event: ApiEvent, field: string): string | null {
  const value = text(event, field);
  return value !== null && isFilterableValue(value) ? value : null;
}

function pivot(key: ChipKey, value: string): Pivot {
  const noun = FIELD_WORDS[key] ?? chipKeyName(key);
  return { key, value, label: `${noun} ${value}`, canExclude: key === 'eventType' };
}

/** The event's actor as a filter value: the name people read (username or public key). */
function actorValue(event: ApiEvent): string | null {
  return (
    text(event, 'username') ??
    text(event, 'publicKey') ??
    text(event, 'userId') ??
    text(event, 'apiKeyId')
  );
}

/** The /24 (IPv4) or /48 (IPv6) network around an address: "everything from this network". */
export function networkOf(address: string): string | null {
  const ip = parseIp(address);
  if (!ip) return null;
  if (ip.bits === 32) return `${address.split('.').slice(0, 3).join('.')}.0/24`;
  const groups: string[] = [];
  for (let shift = 112n; groups.length < 3; shift -= 16n) {
    groups.push(((ip.value >> shift) & 0xffffn).toString(16));
  }
  return `${groups.join(':')}::/48`;
}

/** What a column's cell offers for one event; none when the cell is empty. */
export function columnPivots(event: ApiEvent, column: PivotColumn): Pivot[] {
  if (column === 'type') return [pivot('eventType', event.eventTypeName)];
  if (column === 'actor') {
    const actor = actorValue(event);
    return actor && isFilterableValue(actor) ? [pivot('actor', actor)] : [];
  }
  const pivots: Pivot[] = [];
  for (const choice of COLUMN_FIELDS[column]) {
    const field = (typeof choice === 'string' ? [choice] : choice).find((f) => text(event, f));
    const value = field ? filterValue(event, field) : null;
    if (field && value) pivots.push(pivot(field, value));
  }
  if (column === 'remote' && pivots[0]) {
    const network = networkOf(pivots[0].value);
    if (network) pivots.push({ ...pivot('remoteAddress', network), label: `network ${network}` });
  }
  return pivots;
}

/** Everything one event offers: every column's pivots, then its other filterable fields. */
export function eventPivots(event: ApiEvent): Pivot[] {
  const pivots = PIVOT_COLUMNS.flatMap((column) => columnPivots(event, column));
  const seen = new Set(pivots.map((p) => `${p.key}:${p.value}`));
  for (const field of FILTER_FIELDS) {
    const value = filterValue(event, field);
    if (value && !seen.has(`${field}:${value}`) && !seen.has(`actor:${value}`)) {
      pivots.push(pivot(field, value));
      seen.add(`${field}:${value}`);
    }
  }
  return pivots;
}

/** The pivot for one detail field (by its event field name), when it is filterable. */
export function fieldPivot(event: ApiEvent, field: string): Pivot | null {
  const value = filterValue(event, field);
  if (!value || !(FILTER_FIELDS as readonly string[]).includes(field)) return null;
  return pivot(field as FilterField, value);
}
