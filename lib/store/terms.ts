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

/** A term's field (no field's name holds ':'). */
export function fieldOfTerm(term: string): string {
  return term.slice(0, term.indexOf(':'));
}

/** A term's value, whatever its field (no field's name holds ':'). */
export function valueOfTerm(term: string): string {
  return term.slice(term.indexOf(':') + 1);
}

/** The distinct words of a term's value: what `q` words are matched against (term_words). */
export function termWords(term: string): string[] {
  return [...new Set(words(valueOfTerm(term)))];
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
 * An event's key (eventKey): what both engines' postings store. An id that
 * is no ObjectId has none (every insert path validates ids; this is the
 * store's own guard, as every batch's terms are gathered by TermCollector).
 */
export function checkedEventKey(id: string): [number, number] {
  if (!OBJECT_ID_PATTERN.test(id))
    throw new Error(`Event id ${JSON.stringify(id)} is not an ObjectId`);
  return eventKey(id);
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
  /**
   * Each event's key (eventKey), two numbers an event, by the postings'
   * event numbers: computed once, where the terms are, not again by the
   * store.
   */
  keys: Float64Array;
};

/** The postings and counter deltas of a batch (from each event's `fieldValues`, else its document). */
export function batchTerms(events: readonly NewEvent[]): BatchTerms {
  const collector = new TermCollector(events.length);
  for (const event of events) collector.add(event);
  return collector.finish();
}

/**
 * A batch's terms gathered one event at a time, as a bulk load's producer
 * reads them (lib/ingest/bulk-batch.ts), into typed arrays: nothing of an
 * event is held but numbers, so its strings die young instead of being
 * copied by every collection until the batch is complete. batchTerms is the
 * same over a finished list of events.
 *
 * Each distinct value of a field gets a number when first seen; `finish`
 * numbers the terms in the order batchTerms defines (first seen in key
 * order), so the result is the same however the events were added.
 */
export class TermCollector {
  /** Each event's `created` (ms); the caller may change them before finish (lib/ingest/listing-order.ts). */
  created: Float64Array;
  /** Each event's key (eventKey), two numbers an event. */
  keys: Float64Array;
  /** Each event's type, as an index into `typeNames`. */
  typeIndex: Int32Array;
  /** The batch's type names, in first-seen order. */
  readonly typeNames: string[] = [];
  count = 0;
  private readonly typeOf = new Map<string, number>();
  /** Per field, a number per distinct value. */
  private readonly valueOf = FILTER_FIELDS.map(() => new Map<string, number>());
  /** Per value number, its term ("field:value"). */
  private readonly valueTerms: string[] = [];
  /** A value number per filterable field (FILTER_FIELDS) an event, -1 where it has none. */
  private valuesOf: Int32Array;

  constructor(capacity: number) {
    const size = Math.max(16, capacity);
    this.created = new Float64Array(size);
    this.keys = new Float64Array(size * 2);
    this.typeIndex = new Int32Array(size);
    this.valuesOf = new Int32Array(size * FILTER_FIELDS.length);
  }

  /**
   * An event's terms (from its `fieldValues`, else its document), type, time
   * and key (`key`: checkedEventKey of its id, when the caller has it).
   */
  add(event: NewEvent, key = checkedEventKey(event.id)): void {
    const { created, eventTypeName } = event;
    const values =
      event.fieldValues ?? fieldValues(JSON.parse(event.doc) as Record<string, unknown>);
    const e = this.count++;
    if (e === this.created.length) this.grow();
    this.created[e] = created;
    [this.keys[e * 2], this.keys[e * 2 + 1]] = key;
    let t = this.typeOf.get(eventTypeName);
    if (t === undefined) {
      t = this.typeNames.length;
      // A copy of its own: the name may be a slice of a whole record's text,
      // which the map would otherwise keep alive for the batch.
      const name = ownCopy(eventTypeName);
      this.typeNames.push(name);
      this.typeOf.set(name, t);
    }
    this.typeIndex[e] = t;
    const fieldCount = FILTER_FIELDS.length;
    const base = e * fieldCount;
    for (let f = 0; f < fieldCount; f++) {
      const value = values[f];
      if (value === undefined) {
        this.valuesOf[base + f] = -1;
        continue;
      }
      const byValue = this.valueOf[f]!;
      let v = byValue.get(value);
      if (v === undefined) {
        v = this.valueTerms.length;
        const own = ownCopy(value);
        this.valueTerms.push(term(FILTER_FIELDS[f]!, own));
        byValue.set(own, v);
      }
      this.valuesOf[base + f] = v;
    }
  }

  /**
   * The events in key order (created, id): indices into the order they were
   * added. A stable sort: events of one key keep the order they were added in.
   */
  private byKey(): number[] {
    const { created, keys } = this;
    const order = new Array<number>(this.count);
    for (let e = 0; e < this.count; e++) order[e] = e;
    return order.sort(
      (a, b) =>
        created[a]! - created[b]! ||
        keys[a * 2]! - keys[b * 2]! ||
        keys[a * 2 + 1]! - keys[b * 2 + 1]!,
    );
  }

  /**
   * The batch's postings and counters. `position[e]`, when given, is where
   * the event added e-th goes in the list the store is handed (its write
   * order): postings name events by that position.
   */
  finish(position?: ArrayLike<number>): BatchTerms {
    const n = this.count;
    const fieldCount = FILTER_FIELDS.length;
    // Postings are collected in key order, so the stable counting sort by
    // term below leaves each term's in it; terms are numbered as first met.
    const byTime = this.byKey();
    const termOfValue = new Int32Array(this.valueTerms.length).fill(-1);
    const terms: string[] = [];
    const termOf = new Int32Array(n * fieldCount);
    const eventOf = new Int32Array(termOf.length);
    let count = 0;
    for (let r = 0; r < n; r++) {
      const e = byTime[r]!;
      const at = position ? position[e]! : e;
      for (let f = 0, base = e * fieldCount; f < fieldCount; f++) {
        const v = this.valuesOf[base + f]!;
        if (v < 0) continue;
        let t = termOfValue[v]!;
        if (t < 0) {
          t = termOfValue[v] = terms.length;
          terms.push(this.valueTerms[v]!);
        }
        termOf[count] = t;
        eventOf[count] = at;
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
    // Types, days and keys by the events' positions in the list (postings' numbering).
    const typeIndex = new Int32Array(n);
    const dayOf = new Float64Array(n);
    const keys = new Float64Array(n * 2);
    for (let e = 0; e < n; e++) {
      const at = position ? position[e]! : e;
      typeIndex[at] = this.typeIndex[e]!;
      dayOf[at] = Math.floor(this.created[e]! / DAY_MS);
      keys[at * 2] = this.keys[e * 2]!;
      keys[at * 2 + 1] = this.keys[e * 2 + 1]!;
    }
    return {
      terms,
      postings,
      ...countPostings(typeIndex, this.typeNames.length, dayOf, terms.length, postings),
      keys,
    };
  }

  private grow(): void {
    const size = this.count + 1;
    const float64 = (length: number) => new Float64Array(length);
    const int32 = (length: number) => new Int32Array(length);
    this.created = grown(this.created, size, float64);
    this.keys = grown(this.keys, size * 2, float64);
    this.typeIndex = grown(this.typeIndex, size, int32);
    this.valuesOf = grown(this.valuesOf, size * FILTER_FIELDS.length, int32);
  }
}

/**
 * A string equal to `text` that shares no storage with it. V8 may make a
 * substring (a JSON value cut from a record) a view of the whole text; kept
 * in a map for a batch, such a view would keep the whole text alive.
 */
function ownCopy(text: string): string {
  // Flattening the concatenation copies it; the slice then views the copy.
  return ` ${text}`.slice(1);
}

/** A copy of `array` with room for at least `size` items. */
export function grown<T extends Int32Array | Float64Array>(
  array: T,
  size: number,
  make: (length: number) => T,
): T {
  const larger = make(Math.max(size, array.length * 2));
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
  return {
    terms: batch.terms,
    postings,
    ...countPostings(typeIndex, typeOf.size, dayOf, batch.terms.length, postings),
    keys: batch.keys,
  };
}

/**
 * The counter deltas of postings grouped by term, each term's in time order:
 * a term's postings of one day are then one run, counted per type in a small
 * typed array instead of a map per term. `typeIndex` and `dayOf` are by the
 * postings' event numbers: each event's type (0 to typeCount - 1) and day.
 */
function countPostings(
  typeIndex: Int32Array,
  typeCount: number,
  dayOf: Float64Array,
  termCount: number,
  postings: Int32Array,
): Pick<BatchTerms, 'dayCounts' | 'values'> {
  const perType = new Int32Array(typeCount);
  /** The first event of each type counted in the current run: it stands for the type. */
  const eventOfType = new Int32Array(typeCount);
  const touched: number[] = [];
  const perTerm = new Float64Array(termCount);
  const count = postings.length / 2;
  // At most one (term, day, type) counter a posting. A list grown by push
  // copied itself as it grew, into new pages each time: a tenth of the
  // producing thread's page faults in an import.
  const days = scratchDays(count * 4);
  let filled = 0;
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
      days[filled++] = term;
      days[filled++] = day;
      days[filled++] = eventOfType[t]!;
      days[filled++] = perType[t]!;
      perType[t] = 0;
    }
    touched.length = 0;
    perTerm[term] = perTerm[term]! + (end - start);
    start = end;
  }
  let used = 0;
  for (let t = 0; t < termCount; t++) if (perTerm[t]! > 0) used++;
  const values = new Float64Array(used * 2);
  for (let t = 0, v = 0; t < termCount; t++) {
    if (perTerm[t]! > 0) {
      values[v++] = t;
      values[v++] = perTerm[t]!;
    }
  }
  return { dayCounts: days.slice(0, filled), values };
}

/** countPostings' working space, kept from one batch to the next (its pages touched once). */
let dayScratch = new Float64Array(0);

function scratchDays(size: number): Float64Array {
  if (dayScratch.length < size) dayScratch = new Float64Array(size);
  return dayScratch;
}
