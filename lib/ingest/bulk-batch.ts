import type { NewEvent } from '@/lib/domain/event';
import { type BatchTerms, checkedEventKey, grown, TermCollector } from '@/lib/store/terms';

/**
 * A batch of events packed for postMessage between threads: their texts as
 * UTF-8 in one buffer, and typed arrays, all moved (transferred), not
 * copied; cloning thousands of small objects cost far more.
 *
 * Texts and arrays hold the events in the order they were added (read
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
  /**
   * Each event's id, document and raw, back to back as UTF-8 (BatchText);
   * the buffer is the inserting thread's to give back once the batch is
   * stored (recycleText).
   */
  text: ArrayBuffer;
  /** Where each event's id, document and raw end in `text`, three an event; a raw of null is empty. */
  textEnds: Float64Array;
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
 * Bytes of text past which a batch is full (BatchPacker.full), whatever its
 * events' count: 20,000 records near the 1 MB limit would otherwise be held
 * at once (20 GB). An export's events take ~700 bytes: a batch of 20,000
 * is ~14 MB, well below.
 */
export const MAX_BATCH_TEXT_BYTES = 64 << 20;

/** A new text buffer's size; it grows (doubling) as a batch needs. */
const FIRST_TEXT_BYTES = 16 << 20;

/** Text buffers kept for reuse at most (a load has `lanes` + 2 in use). */
const MAX_POOLED_TEXTS = 6;

/**
 * The largest text buffer kept for reuse: one grown past it by a record
 * near the 256 MB limit is let go with its batch, not held on to.
 */
const MAX_POOLED_TEXT_BYTES = 2 * MAX_BATCH_TEXT_BYTES;

/**
 * Text buffers given back (recycleText), reused by the next batches. A new
 * buffer's pages are each faulted in and zeroed by the kernel as first
 * written, and freed again with the batch: until 2026-12 a batch's texts
 * were strings, allocated anew on both threads, and those page faults were
 * a tenth of a whole import's CPU time.
 */
const textPool: ArrayBuffer[] = [];

/** Gives a batch's text buffer (PackedBatch.text) back for reuse: no event of its batch may be read after. */
export function recycleText(text: ArrayBuffer): void {
  const size = text.byteLength;
  if (size > 0 && size <= MAX_POOLED_TEXT_BYTES && textPool.length < MAX_POOLED_TEXTS) {
    textPool.push(text);
  }
}

/** A batch's texts as UTF-8, appended one after another into a (pooled) buffer. */
class BatchText {
  private bytes: Buffer;
  length = 0;

  constructor() {
    this.bytes = Buffer.from(textPool.pop() ?? new ArrayBuffer(FIRST_TEXT_BYTES));
  }

  /** Appends `text`; the offset just past it. */
  add(text: string): number {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: the exact length is
    // measured only when that bound does not fit.
    if (this.length + text.length * 3 > this.bytes.length) this.reserve(Buffer.byteLength(text));
    this.length += this.bytes.write(text, this.length);
    return this.length;
  }

  private reserve(bytes: number): void {
    const needed = this.length + bytes;
    if (needed <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.from(new ArrayBuffer(size));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  /** The whole buffer (its first `length` bytes used). */
  finish(): ArrayBuffer {
    return this.bytes.buffer as ArrayBuffer;
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
 * A batch packed as its events are read: each event's texts go into the
 * batch's text buffer, its terms into a TermCollector, and nothing else of
 * it is kept.
 */
export class BatchPacker {
  readonly collector: TermCollector;
  private readonly text = new BatchText();
  /** Where each event's id, document and raw end in `text`. */
  private textEnds: Float64Array;
  private readonly seen = new EventKeySet();
  private repeated = 0;
  /** Set by the reader when the batch is full (an import's: where the file stands after it). */
  through: BatchThrough | undefined;

  constructor(private readonly capacity: number) {
    this.collector = new TermCollector(capacity);
    this.textEnds = new Float64Array(Math.max(16, capacity) * 3);
  }

  get count(): number {
    return this.collector.count;
  }

  /** Holds `capacity` events, or MAX_BATCH_TEXT_BYTES of their texts. */
  get full(): boolean {
    return this.count >= this.capacity || this.text.length >= MAX_BATCH_TEXT_BYTES;
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
    const at = this.count * 3;
    this.collector.add(event, key);
    if (at === this.textEnds.length) {
      this.textEnds = grown(this.textEnds, at + 3, (length) => new Float64Array(length));
    }
    const ends = this.textEnds;
    ends[at] = this.text.add(event.id);
    ends[at + 1] = this.text.add(event.doc);
    ends[at + 2] = event.raw === null ? ends[at + 1]! : this.text.add(event.raw);
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
      text: this.text.finish(),
      textEnds: this.textEnds.slice(0, count * 3),
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
    packed.text,
    ...[
      packed.textEnds,
      packed.created,
      packed.typeOf,
      packed.order,
      packed.postings,
      packed.dayCounts,
      packed.values,
      packed.keys,
    ].map((array) => array.buffer as ArrayBuffer),
  ];
}

/**
 * An event of a packed batch: its document and raw are decoded from the
 * batch's text each time they are read, as the store binds them. Decoded
 * all at unpacking, a batch's texts (~14 MB) lived until it was stored, and
 * each young-generation collection meanwhile copied them. Their bytes must
 * stay until the batch is stored: recycleText is called only after.
 *
 * `doc` and `raw` are getters on the prototype: a spread or Object.assign
 * of such an event leaves them out (the stores only read them).
 */
class PackedEvent implements NewEvent {
  constructor(
    readonly id: string,
    readonly created: number,
    readonly eventTypeName: string,
    private readonly text: Buffer,
    private readonly docStart: number,
    private readonly docEnd: number,
    private readonly rawEnd: number,
  ) {}

  get doc(): string {
    return this.slice(this.docStart, this.docEnd);
  }

  get raw(): string | null {
    return this.rawEnd === this.docEnd ? null : this.slice(this.docEnd, this.rawEnd);
  }

  get docBytes(): Uint8Array {
    this.checkText();
    return this.text.subarray(this.docStart, this.docEnd);
  }

  get rawBytes(): Uint8Array | null {
    this.checkText();
    return this.rawEnd === this.docEnd ? null : this.text.subarray(this.docEnd, this.rawEnd);
  }

  private slice(start: number, end: number): string {
    this.checkText();
    return this.text.toString(undefined, start, end);
  }

  /**
   * A recycled buffer was moved to the producer, and this view is empty:
   * reading on would give "" for every text, silently.
   */
  private checkText(): void {
    if (this.rawEnd > this.text.length) {
      throw new Error("A packed event's text was read after its batch was recycled");
    }
  }
}

/** The batch's events in write order, and their terms (which number them so). */
export function unpackBatch(packed: PackedBatch): { events: NewEvent[]; terms: BatchTerms } {
  const text = Buffer.from(packed.text);
  const ends = packed.textEnds;
  const typeNames = JSON.parse(packed.typeNames) as string[];
  const events: NewEvent[] = new Array<NewEvent>(packed.count);
  for (let k = 0; k < packed.count; k++) {
    const e = packed.order[k]!;
    const idEnd = ends[e * 3]!;
    events[k] = new PackedEvent(
      // An id is 24 hex digits (checkedEventKey): one byte a character.
      text.toString('latin1', e === 0 ? 0 : ends[e * 3 - 1]!, idEnd),
      packed.created[e]!,
      typeNames[packed.typeOf[e]!]!,
      text,
      idEnd,
      ends[e * 3 + 1]!,
      ends[e * 3 + 2]!,
    );
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
