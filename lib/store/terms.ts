import * as dates from '@/lib/domain/dates';
import * as filters from '@/lib/domain/filters';
import type { NewEvent } from '@/lib/domain/event';
import { OBJECT_ID_PATTERN } from '@/lib/domain/object-id';

// Module-level copies, read once: under tsx (how the CLI's bulk loads run)
// every use of an imported binding is a getter call on the exporting module,
// and batchTerms uses these once per field of every event.
const { DAY_MS } = dates;
const { FILTER_FIELDS, fieldValues, words } = filters;

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

/** The distinct words of a term's value: what `q` words are matched against (term_words). */
export function termWords(term: string): string[] {
  return [...new Set(words(term.slice(term.indexOf(':') + 1)))];
}

/**
 * The least string above every string that starts with `prefix` in code
 * point order (byte order of UTF-8): a prefix is the range [prefix, this).
 */
export function prefixEnd(prefix: string): string {
  const points = [...prefix];
  const last = points.pop()!.codePointAt(0)! + 1;
  // Past the surrogates (no string holds them alone), not into them.
  return points.join('') + String.fromCodePoint(last >= 0xd800 && last < 0xe000 ? 0xe000 : last);
}

/**
 * An event id (24 hex digits) as the two integers postings store it by: its
 * 48-bit halves, exact in a double, ordered as the id text is.
 */
export function eventKey(id: string): [number, number] {
  return [parseInt(id.slice(0, 12), 16), parseInt(id.slice(12), 16)];
}

/**
 * Each event's key (eventKey), two numbers per event: what both engines'
 * postings store. An id that is no ObjectId has none (every insert path
 * validates ids; this is the store's own guard).
 */
export function eventKeys(events: readonly { id: string }[]): Float64Array {
  const keys = new Float64Array(events.length * 2);
  for (let e = 0; e < events.length; e++) {
    const id = events[e]!.id;
    if (!OBJECT_ID_PATTERN.test(id))
      throw new Error(`Event id ${JSON.stringify(id)} is not an ObjectId`);
    [keys[e * 2], keys[e * 2 + 1]] = eventKey(id);
  }
  return keys;
}

/** The terms of one stored document (canonical JSON of the public fields). */
export function documentTerms(doc: string): string[] {
  const terms: string[] = [];
  const values = fieldValues(JSON.parse(doc) as Record<string, unknown>);
  for (let f = 0; f < FILTER_FIELDS.length; f++) {
    const value = values[f];
    if (value !== undefined) terms.push(term(FILTER_FIELDS[f]!, value));
  }
  return terms;
}

/**
 * The postings and counter deltas of a batch of events, in flat arrays that
 * cross threads cheaply: a bulk load computes them on its producer thread
 * (lib/ingest/bulk-batch.ts), so the inserting thread only runs statements.
 * Terms are referred to by their index in `terms`, events by their index in
 * the batch.
 */
export type BatchTerms = {
  /** The batch's distinct terms, in first-seen order. */
  terms: string[];
  /**
   * (event, term) pairs grouped by term, each term's in key order (created,
   * id): the store maps terms to integer ids, so the order between terms
   * carries nothing, and none is paid for.
   */
  postings: Int32Array;
  /**
   * (term, day, event, n) quadruples: per-day, per-type term counter deltas.
   * `event` is one event of the group, whose type the store turns into its
   * type id (ids are the store's; names would not fit a typed array).
   */
  dayCounts: Float64Array;
  /** (term, n) pairs: dictionary count deltas. */
  values: Float64Array;
};

/** The postings and counter deltas of a batch (from each event's `fieldValues`, else its document). */
export function batchTerms(events: readonly NewEvent[]): BatchTerms {
  const n = events.length;
  // Events in key order (created, id): postings are collected in this order,
  // so the stable counting sort by term below leaves each term's in it.
  const byTime = new Array<number>(n);
  for (let e = 0; e < n; e++) byTime[e] = e;
  byTime.sort((a, b) => {
    const ea = events[a]!;
    const eb = events[b]!;
    if (ea.created !== eb.created) return ea.created - eb.created;
    return ea.id < eb.id ? -1 : ea.id > eb.id ? 1 : 0;
  });
  // One lookup per posting, in a map per field keyed by the value itself:
  // each term gets its index when first seen, and its text ("field:value")
  // is made only then, once per distinct term of the batch, rather than for
  // every posting and then hashed as a fresh concatenated string.
  const fieldCount = FILTER_FIELDS.length;
  const index = FILTER_FIELDS.map(() => new Map<string, number>());
  const terms: string[] = [];
  let termOf = new Int32Array(n * 6 + 16);
  let eventOf = new Int32Array(termOf.length);
  let count = 0;
  for (let r = 0; r < n; r++) {
    const e = byTime[r]!;
    const event = events[e]!;
    const values =
      event.fieldValues ?? fieldValues(JSON.parse(event.doc) as Record<string, unknown>);
    if (count + fieldCount > termOf.length) {
      termOf = grown(termOf, count + fieldCount);
      eventOf = grown(eventOf, count + fieldCount);
    }
    for (let f = 0; f < fieldCount; f++) {
      const value = values[f];
      if (value === undefined) continue;
      const byValue = index[f]!;
      let i = byValue.get(value);
      if (i === undefined) {
        i = terms.length;
        terms.push(term(FILTER_FIELDS[f]!, value));
        byValue.set(value, i);
      }
      termOf[count] = i;
      eventOf[count] = e;
      count++;
    }
  }
  // Grouped by term with a counting sort (linear, where sorting the
  // postings took a third of this function's time).
  const next = new Int32Array(terms.length + 1);
  for (let k = 0; k < count; k++) next[termOf[k]! + 1]!++;
  for (let t = 1; t <= terms.length; t++) next[t]! += next[t - 1]!;
  const postings = new Int32Array(count * 2);
  for (let k = 0; k < count; k++) {
    const t = termOf[k]!;
    const at = next[t]!++ * 2;
    postings[at] = eventOf[k]!;
    postings[at + 1] = t;
  }
  return { terms, postings, ...countPostings(events, terms.length, postings) };
}

/** A copy of `array` with room for at least `size` items. */
function grown(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(Math.max(size, array.length * 2));
  larger.set(array);
  return larger;
}

/**
 * The same batch's terms restricted to the events `keep` accepts (those an
 * insert actually added): postings filtered, counters recounted.
 */
export function keptTerms(
  events: readonly NewEvent[],
  batch: BatchTerms,
  keep: (event: number) => boolean,
): BatchTerms {
  const kept: number[] = [];
  for (let i = 0; i < batch.postings.length; i += 2) {
    if (keep(batch.postings[i]!)) kept.push(batch.postings[i]!, batch.postings[i + 1]!);
  }
  const postings = Int32Array.from(kept);
  return {
    terms: batch.terms,
    postings,
    ...countPostings(events, batch.terms.length, postings),
  };
}

/**
 * The counter deltas of postings grouped by term, each term's in time order:
 * a term's postings of one day are then one run, counted per type in a small
 * typed array instead of a map per term.
 */
function countPostings(
  events: readonly NewEvent[],
  termCount: number,
  postings: Int32Array,
): Pick<BatchTerms, 'dayCounts' | 'values'> {
  // A batch-local number per type name, and each event's day.
  const typeOf = new Map<string, number>();
  const typeIndex = new Int32Array(events.length);
  const dayOf = new Float64Array(events.length);
  for (let e = 0; e < events.length; e++) {
    const event = events[e]!;
    let t = typeOf.get(event.eventTypeName);
    if (t === undefined) typeOf.set(event.eventTypeName, (t = typeOf.size));
    typeIndex[e] = t;
    dayOf[e] = Math.floor(event.created / DAY_MS);
  }
  const perType = new Int32Array(typeOf.size);
  /** The first event of each type counted in the current run: it stands for the type. */
  const eventOfType = new Int32Array(typeOf.size);
  const touched: number[] = [];
  const perTerm = new Float64Array(termCount);
  const days: number[] = [];
  const count = postings.length / 2;
  for (let start = 0; start < count; ) {
    const term = postings[start * 2 + 1]!;
    const day = dayOf[postings[start * 2]!]!;
    let end = start;
    for (; end < count; end++) {
      const e = postings[end * 2]!;
      if (postings[end * 2 + 1] !== term || dayOf[e] !== day) break;
      const t = typeIndex[e]!;
      if (perType[t] === 0) {
        eventOfType[t] = e;
        touched.push(t);
      }
      perType[t] = perType[t]! + 1;
    }
    for (const t of touched) {
      days.push(term, day, eventOfType[t]!, perType[t]!);
      perType[t] = 0;
    }
    touched.length = 0;
    perTerm[term] = perTerm[term]! + (end - start);
    start = end;
  }
  const values: number[] = [];
  for (let t = 0; t < termCount; t++) if (perTerm[t]! > 0) values.push(t, perTerm[t]!);
  return { dayCounts: Float64Array.from(days), values: Float64Array.from(values) };
}
