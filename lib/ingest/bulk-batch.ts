import type { NewEvent } from '@/lib/domain/event';
import { type BatchTerms, checkedEventKey, TermCollector } from '@/lib/store/terms';

/**
 * A batch of events packed into a few long strings and typed arrays for
 * postMessage between threads: copying a few strings (and transferring the
 * arrays) is far cheaper than cloning thousands of small objects. Documents
 * are compact JSON, which never contains a raw newline, so newline is a safe
 * separator; a raw of null packs as "".
 *
 * Strings and arrays hold the events in the order they were added (read
 * order); `order` is the order the store writes them in
 * (compareEventsForWrite), which unpackBatch hands them over in. The batch's
 * postings and counter deltas (lib/store/terms.ts) are computed on the
 * producer thread too, numbering events in that write order, so the
 * inserting thread only runs statements.
 */
export type PackedBatch = {
  count: number;
  /** Events dropped as repeats of an id the batch already held (BatchPacker.add). */
  repeated: number;
  /** Ids, documents and raws: each a list of chunks of newline-joined texts (ChunkedLines). */
  ids: string[];
  docs: string[];
  raws: string[];
  created: Float64Array;
  /** The batch's type names (JSON), and each event's index into them. */
  typeNames: string;
  typeOf: Int32Array;
  /** order[k]: the event (by read order) the store writes k-th. */
  order: Int32Array;
  /** The batch's distinct terms (JSON: a term may hold any character). */
  terms: string;
  postings: Int32Array;
  dayCounts: Float64Array;
  values: Float64Array;
  /** Each event's key, in write order (BatchTerms). */
  keys: Float64Array;
  /** Where the file stands once this batch is stored (an import's: BatchThrough). */
  through?: BatchThrough;
};

/**
 * An import's file up to the end of a batch's last record: the records read
 * to there (valid or not) and the invalid among them, and the offset in
 * bytes just past that record (of the decompressed text, for a gzip
 * archive; -1 where it is not known). What a stopped or failed import says
 * it imported up to, once the batch and every one before it are stored.
 */
export type BatchThrough = { read: number; invalid: number; textBytes: number };

/**
 * Characters between two joins of a batch's texts. A batch's records are
 * thus held as a few large strings while it fills, not as 20,000 records'
 * objects and the source texts they point into, which every young-generation
 * collection copied, until 2026-11, once or twice each.
 *
 * Each joined chunk must be larger than V8's largest regular object (128 KiB):
 * only then is it allocated, on this thread and again where the inserting
 * thread receives it, where a collection moves it without copying. Chunks of
 * 256 events were that for large documents only: with an export's ~360
 * characters of document and ~320 of raw an event, every chunk was copied
 * by the collector of both threads, once as it survived and again as it was
 * promoted (~240 MB copied on each thread for 300,000 events). 256 Ki
 * characters is over that limit with room to spare.
 */
const CHUNK_CHARS = 1 << 18;

/**
 * Events in a chunk at most, however short their texts: an id is a slice of
 * its record's text, which keeps the whole megabyte read alive with it, and
 * ids alone took ~10,000 events to fill CHUNK_CHARS. Ids chunks stay small
 * (and copied), which costs little.
 */
const CHUNK_MAX_EVENTS = 1024;

/**
 * Strings joined by newline a chunk at a time (see CHUNK_CHARS), handed on
 * as the list of chunks: joining those into one string per batch copied a
 * batch's documents once more (a quarter of the reading thread's page
 * faults), and postMessage copies a list of strings as readily as one.
 */
class ChunkedLines {
  private readonly chunks: string[] = [];
  private readonly pending: string[] = [];
  private pendingChars = 0;

  constructor(private readonly chunkChars: number) {}

  add(text: string): void {
    const events = this.pending.push(text);
    if ((this.pendingChars += text.length + 1) >= this.chunkChars || events >= CHUNK_MAX_EVENTS) {
      this.chunks.push(this.pending.join('\n'));
      this.pending.length = 0;
      this.pendingChars = 0;
    }
  }

  finish(): string[] {
    if (this.pending.length > 0) this.chunks.push(this.pending.join('\n'));
    this.pending.length = 0;
    this.pendingChars = 0;
    return this.chunks;
  }
}

/**
 * The ids of a batch's events, as their two 48-bit halves (eventKey) in an
 * open-addressing table of numbers. A Set of the id strings made a whole
 * import 4% slower (each id copied so as not to keep its record's text
 * alive, and 20,000 of them surviving every young-generation collection of
 * the batch); numbers in typed arrays cost neither.
 */
class EventKeySet {
  private highs = new Float64Array(1024);
  /** -1: an empty slot (a half is never negative). */
  private lows = new Float64Array(1024).fill(-1);
  private size = 0;

  /** Adds an id by its key (checkedEventKey); false when it was already there. */
  add([high, low]: readonly [number, number]): boolean {
    if ((this.size + 1) * 2 > this.lows.length) this.grow();
    if (!this.insert(high, low)) return false;
    this.size++;
    return true;
  }

  /** Inserts unless present (linear probing); false when present. */
  private insert(high: number, low: number): boolean {
    const mask = this.lows.length - 1;
    // The low half ends in the ObjectId's counter: its low bits spread well.
    for (let slot = low % (mask + 1); ; slot = (slot + 1) & mask) {
      const held = this.lows[slot]!;
      if (held === -1) {
        this.lows[slot] = low;
        this.highs[slot] = high;
        return true;
      }
      if (held === low && this.highs[slot] === high) return false;
    }
  }

  private grow(): void {
    const { highs, lows } = this;
    this.highs = new Float64Array(lows.length * 2);
    this.lows = new Float64Array(lows.length * 2).fill(-1);
    for (let slot = 0; slot < lows.length; slot++) {
      if (lows[slot] !== -1) this.insert(highs[slot]!, lows[slot]!);
    }
  }
}

/**
 * A batch packed as its events are read: each event's strings go into
 * chunks, its terms into a TermCollector, and nothing else of it is kept.
 */
export class BatchPacker {
  readonly collector: TermCollector;
  private readonly ids: ChunkedLines;
  private readonly docs: ChunkedLines;
  private readonly raws: ChunkedLines;
  private readonly seen = new EventKeySet();
  private repeated = 0;
  /** Set by the reader when the batch is full (an import's: where the file stands after it). */
  through: BatchThrough | undefined;

  /** `chunkChars`: characters between joins (Infinity: one join, when finished). */
  constructor(capacity: number, chunkChars = CHUNK_CHARS) {
    this.collector = new TermCollector(capacity);
    this.ids = new ChunkedLines(chunkChars);
    this.docs = new ChunkedLines(chunkChars);
    this.raws = new ChunkedLines(chunkChars);
  }

  get count(): number {
    return this.collector.count;
  }

  /**
   * Adds an event, unless the batch already holds its id: the first copy read
   * is the one stored, as when the copies fall in different batches (the
   * store keeps the first it inserts, and a batch is inserted in write
   * order, newest first, not in read order).
   */
  add(event: NewEvent): void {
    // The id's key, computed (and the id checked) once for both.
    const key = checkedEventKey(event.id);
    if (!this.seen.add(key)) {
      this.repeated++;
      return;
    }
    this.collector.add(event, key);
    this.ids.add(event.id);
    this.docs.add(event.doc);
    this.raws.add(event.raw ?? '');
  }

  /** Gives every event (in read order) a new `created` from it and its id's key: a listing's sort keys (lib/ingest/listing-order.ts). */
  mapCreated(sortKey: (created: number, id: readonly [number, number]) => number): void {
    const { created, keys, count } = this.collector;
    for (let e = 0; e < count; e++)
      created[e] = sortKey(created[e]!, [keys[e * 2]!, keys[e * 2 + 1]!]);
  }

  /** The packed batch; the packer is spent. */
  finish(): PackedBatch {
    const collector = this.collector;
    const count = collector.count;
    const order = writeOrder(collector);
    const position = new Int32Array(count);
    for (let k = 0; k < count; k++) position[order[k]!] = k;
    const terms: BatchTerms = collector.finish(position);
    return {
      count,
      repeated: this.repeated,
      ids: this.ids.finish(),
      docs: this.docs.finish(),
      raws: this.raws.finish(),
      created: collector.created.slice(0, count),
      typeNames: JSON.stringify(collector.typeNames),
      typeOf: collector.typeIndex.slice(0, count),
      order,
      terms: JSON.stringify(terms.terms),
      postings: terms.postings,
      dayCounts: terms.dayCounts,
      values: terms.values,
      keys: terms.keys,
      ...(this.through === undefined ? {} : { through: this.through }),
    };
  }
}

/**
 * The collector's events in compareEventsForWrite's order (by type name,
 * newest first, then by id descending), from its typed arrays: an id's key
 * orders as its text does. It must be that order exactly, or PostgreSQL's
 * writer sorts the batch again (inWriteOrder) and SQLite's writes the per-type
 * index out of order (bulk-batch.test.ts compares the two).
 */
function writeOrder(collector: TermCollector): Int32Array {
  const { created, keys, typeIndex, typeNames } = collector;
  // Each type's rank in name order (UTF-16 code units, as `<` compares).
  const rank = new Int32Array(typeNames.length);
  const names = typeNames.map((name, t) => ({ name, t }));
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  names.forEach(({ t }, r) => (rank[t] = r));
  const order = new Array<number>(collector.count);
  for (let e = 0; e < order.length; e++) order[e] = e;
  order.sort(
    (a, b) =>
      rank[typeIndex[a]!]! - rank[typeIndex[b]!]! ||
      created[b]! - created[a]! ||
      keys[b * 2]! - keys[a * 2]! ||
      keys[b * 2 + 1]! - keys[a * 2 + 1]!,
  );
  return Int32Array.from(order);
}

/** The buffers postMessage can move instead of copying. */
export function transferables(packed: PackedBatch): ArrayBuffer[] {
  return [
    packed.created,
    packed.typeOf,
    packed.order,
    packed.postings,
    packed.dayCounts,
    packed.values,
    packed.keys,
  ].map((array) => array.buffer as ArrayBuffer);
}

/** The batch's events in write order, and their terms (which number them so). */
export function unpackBatch(packed: PackedBatch): { events: NewEvent[]; terms: BatchTerms } {
  const ids = lines(packed.ids, packed.count);
  const docs = lines(packed.docs, packed.count);
  const raws = lines(packed.raws, packed.count);
  const typeNames = JSON.parse(packed.typeNames) as string[];
  const events: NewEvent[] = new Array<NewEvent>(packed.count);
  for (let k = 0; k < packed.count; k++) {
    const e = packed.order[k]!;
    const raw = raws[e]!;
    events[k] = {
      id: ids[e]!,
      created: packed.created[e]!,
      eventTypeName: typeNames[packed.typeOf[e]!]!,
      doc: docs[e]!,
      raw: raw === '' ? null : raw,
    };
  }
  return {
    events,
    terms: {
      terms: JSON.parse(packed.terms) as string[],
      postings: packed.postings,
      dayCounts: packed.dayCounts,
      values: packed.values,
      keys: packed.keys,
    },
  };
}

/**
 * The `count` texts joined in `chunks`. A newline inside one (never in
 * compact JSON, so never from the encoder) would shift every event after it
 * onto another's document: refused instead.
 */
function lines(chunks: readonly string[], count: number): string[] {
  const texts: string[] = [];
  for (const chunk of chunks) for (const text of chunk.split('\n')) texts.push(text);
  if (texts.length !== count) {
    throw new Error(
      `A packed batch of ${count} events holds ${texts.length} texts: one has a newline`,
    );
  }
  return texts;
}
