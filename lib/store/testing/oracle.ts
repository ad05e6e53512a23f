import { eventTypeLabel } from '@/lib/domain/catalog';
import {
  ACTOR_FIELDS,
  FILTER_FIELDS,
  type FacetField,
  type FilterField,
  hasWordPrefix,
  inCidr,
  parseCidr,
} from '@/lib/domain/filters';
import { bucketStarts, chooseInterval } from '@/lib/domain/histogram';
import type { NewEvent } from '@/lib/domain/event';
import type { EventFilter, Facets, Histogram, HistogramQuery } from '../types';

/**
 * The store contract's in-memory oracle for issue 9's filters: the plain,
 * obviously-right reading of each rule over parsed documents, with no index,
 * counter or term in sight. The store must agree with it exactly.
 */
export type OracleEvent = NewEvent & { fields: Record<string, unknown> };

export function toOracle(events: readonly NewEvent[]): OracleEvent[] {
  return events
    .map((e) => ({ ...e, fields: JSON.parse(e.doc) as Record<string, unknown> }))
    .sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

const str = (e: OracleEvent, field: string) => {
  const v = e.fields[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
};

export function matches(e: OracleEvent, f: Omit<EventFilter, 'orgId'>, skip?: string): boolean {
  if (skip !== 'eventTypeName') {
    if (f.eventTypes?.length && !f.eventTypes.includes(e.eventTypeName)) return false;
    if (f.excludeEventTypes?.includes(e.eventTypeName)) return false;
  }
  if (f.minCreated !== undefined && e.created < f.minCreated) return false;
  if (f.maxCreated !== undefined && e.created > f.maxCreated) return false;
  for (const [field, values] of Object.entries(f.fields ?? {})) {
    if (!values || field === skip) continue;
    const v = str(e, field);
    const ok = values.some((value) => {
      if (v === undefined) return false;
      if (!value.includes('/')) return v === value;
      const cidr = parseCidr(value);
      return cidr !== null && inCidr(v, cidr);
    });
    if (!ok) return false;
  }
  if (f.actor?.length && skip !== 'actor') {
    if (!ACTOR_FIELDS.some((field) => f.actor!.includes(str(e, field) ?? '\u0000'))) return false;
  }
  for (const word of f.q ?? []) {
    const texts = [
      e.eventTypeName,
      eventTypeLabel(e.eventTypeName),
      ...FILTER_FIELDS.filter((field) => !f.unsearchedFields?.includes(field))
        .map((field) => str(e, field))
        .filter((v) => v !== undefined),
    ];
    if (!texts.some((t) => hasWordPrefix(t, word))) return false;
  }
  return true;
}

export function facetValue(e: OracleEvent, field: FacetField): string | undefined {
  if (field === 'eventTypeName') return e.eventTypeName;
  if (field === 'actor') return str(e, 'username') ?? str(e, 'publicKey');
  return str(e, field as FilterField);
}

export function oracleFacets(
  events: readonly OracleEvent[],
  f: Omit<EventFilter, 'orgId'>,
  fields: readonly FacetField[],
  limit: number,
): Facets {
  const facets: Facets['facets'] = {};
  for (const field of fields) {
    const counts = new Map<string, number>();
    for (const e of events) {
      if (!matches(e, f, field)) continue;
      const v = facetValue(e, field);
      if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    facets[field] = [...counts]
      .map(([value, count]) => ({ value, count }))
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
      .slice(0, limit);
  }
  return { totalCount: events.filter((e) => matches(e, f)).length, facets };
}

export function oracleHistogram(
  events: readonly OracleEvent[],
  q: Omit<HistogramQuery, 'orgId'>,
): Histogram {
  const set = events.filter((e) => matches(e, q));
  const min = q.minCreated ?? set[set.length - 1]?.created;
  const max = q.maxCreated ?? set[0]?.created;
  if (min === undefined || max === undefined || min > max) {
    return { interval: q.interval ?? 'hour', totalCount: 0, buckets: [] };
  }
  const interval = q.interval ?? chooseInterval(min, max, q.buckets, q.timeZone);
  const starts = bucketStarts(min, max, interval, q.timeZone);
  const buckets = starts.map((start, i) => ({
    start,
    count: set.filter(
      (e) => e.created >= start && (i + 1 === starts.length || e.created < starts[i + 1]!),
    ).length,
  }));
  return { interval, totalCount: set.length, buckets };
}
