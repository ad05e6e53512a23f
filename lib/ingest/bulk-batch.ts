import type { NewEvent } from '@/lib/domain/event';
import { type BatchTerms, batchTerms } from '@/lib/store/terms';

/**
 * A batch of events packed into a few long strings and typed arrays for
 * postMessage between threads: copying a few strings (and transferring the
 * arrays) is far cheaper than cloning thousands of small objects. Documents
 * are compact JSON, which never contains a raw newline, so newline is a safe
 * separator; a raw of null packs as "".
 *
 * The batch's postings and counter deltas (lib/store/terms.ts) are computed
 * here, on the producer thread, so the inserting thread only runs statements.
 */
export type PackedBatch = {
  count: number;
  ids: string;
  types: string;
  docs: string;
  raws: string;
  created: Float64Array;
  /** The batch's distinct terms (JSON: a term may hold any character). */
  terms: string;
  postings: Int32Array;
  dayCounts: Float64Array;
  values: Float64Array;
};

export function packBatch(events: readonly NewEvent[]): PackedBatch {
  const created = new Float64Array(events.length);
  const ids: string[] = new Array<string>(events.length);
  const types: string[] = new Array<string>(events.length);
  const docs: string[] = new Array<string>(events.length);
  const raws: string[] = new Array<string>(events.length);
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    created[i] = event.created;
    ids[i] = event.id;
    types[i] = event.eventTypeName;
    docs[i] = event.doc;
    raws[i] = event.raw ?? '';
  }
  const terms = batchTerms(events);
  return {
    count: events.length,
    ids: ids.join('\n'),
    types: types.join('\n'),
    docs: docs.join('\n'),
    raws: raws.join('\n'),
    created,
    terms: JSON.stringify(terms.terms),
    postings: terms.postings,
    dayCounts: terms.dayCounts,
    values: terms.values,
  };
}

/** The buffers postMessage can move instead of copying. */
export function transferables(packed: PackedBatch): ArrayBuffer[] {
  return [packed.created, packed.postings, packed.dayCounts, packed.values].map(
    (array) => array.buffer as ArrayBuffer,
  );
}

export function unpackBatch(packed: PackedBatch): { events: NewEvent[]; terms: BatchTerms } {
  const ids = packed.ids.split('\n');
  const types = packed.types.split('\n');
  const docs = packed.docs.split('\n');
  const raws = packed.raws.split('\n');
  const events: NewEvent[] = new Array<NewEvent>(packed.count);
  for (let i = 0; i < packed.count; i++) {
    const raw = raws[i]!;
    events[i] = {
      id: ids[i]!,
      created: packed.created[i]!,
      eventTypeName: types[i]!,
      doc: docs[i]!,
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
    },
  };
}
