import { DAY_MS } from '@/lib/domain/dates';
import { FILTER_FIELDS } from '@/lib/domain/filters';
import type { NewEvent } from '@/lib/domain/event';

/**
 * A term is `field:value` for one filterable field (lib/domain/filters.ts)
 * holding a non-empty string: field filters, actor, q and the facets all
 * become lookups of terms. Every field of one name sorts together, between
 * `field:` and `field;` (';' follows ':').
 */
export function term(field: string, value: string): string {
  return `${field}:${value}`;
}

/** The [low, high) term range of one field. */
export function fieldRange(field: string): [string, string] {
  return [`${field}:`, `${field};`];
}

export function termValue(field: string, term: string): string {
  return term.slice(field.length + 1);
}

/** The terms of one stored document (canonical JSON of the public fields). */
export function documentTerms(doc: string): string[] {
  const parsed = JSON.parse(doc) as Record<string, unknown>;
  const terms: string[] = [];
  for (const field of FILTER_FIELDS) {
    const value = parsed[field];
    if (typeof value === 'string' && value !== '') terms.push(`${field}:${value}`);
  }
  return terms;
}

export type Posting = { term: string; created: number; id: string; eventType: string };

/**
 * The postings of a batch of inserted events and the deltas of their
 * per-day term counters and of the term dictionary.
 */
export function batchTerms(events: readonly NewEvent[]): {
  postings: Posting[];
  dayCounts: Map<string, { term: string; bucket: number; n: number }>;
  values: Map<string, number>;
} {
  const postings: Posting[] = [];
  const dayCounts = new Map<string, { term: string; bucket: number; n: number }>();
  const values = new Map<string, number>();
  for (const event of events) {
    const day = Math.floor(event.created / DAY_MS);
    for (const t of event.terms ?? documentTerms(event.doc)) {
      postings.push({
        term: t,
        created: event.created,
        id: event.id,
        eventType: event.eventTypeName,
      });
      const key = `${day}\u0000${t}`;
      const entry = dayCounts.get(key);
      if (entry) entry.n += 1;
      else dayCounts.set(key, { term: t, bucket: day, n: 1 });
      values.set(t, (values.get(t) ?? 0) + 1);
    }
  }
  // In key order: the b-tree is then written in runs, not at scattered pages.
  postings.sort((a, b) =>
    a.term !== b.term
      ? a.term < b.term
        ? -1
        : 1
      : a.created !== b.created
        ? a.created - b.created
        : a.id < b.id
          ? -1
          : a.id > b.id
            ? 1
            : 0,
  );
  return { postings, dayCounts, values };
}
