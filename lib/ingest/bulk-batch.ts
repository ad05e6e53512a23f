import type { NewEvent } from '@/lib/domain/event';
import { documentTerms } from '@/lib/store/terms';

/**
 * A batch of events packed into a few long strings for postMessage between
 * threads: copying four strings is far cheaper than cloning thousands of
 * small objects. Documents are JSON.stringify output, which never contains a
 * raw newline, so newline is a safe separator; a raw of null packs as "".
 */
export type PackedBatch = {
  count: number;
  ids: string;
  types: string;
  docs: string;
  raws: string;
  /** Each event's index terms (JSON), computed on the producer thread. */
  terms: string;
  created: Float64Array;
};

export function packBatch(events: readonly NewEvent[]): PackedBatch {
  const created = new Float64Array(events.length);
  const ids: string[] = new Array<string>(events.length);
  const types: string[] = new Array<string>(events.length);
  const docs: string[] = new Array<string>(events.length);
  const raws: string[] = new Array<string>(events.length);
  const terms: (readonly string[])[] = new Array<readonly string[]>(events.length);
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    created[i] = event.created;
    ids[i] = event.id;
    types[i] = event.eventTypeName;
    docs[i] = event.doc;
    raws[i] = event.raw ?? '';
    terms[i] = event.terms ?? documentTerms(event.doc);
  }
  return {
    count: events.length,
    ids: ids.join('\n'),
    types: types.join('\n'),
    docs: docs.join('\n'),
    raws: raws.join('\n'),
    terms: JSON.stringify(terms),
    created,
  };
}

export function unpackBatch(packed: PackedBatch): NewEvent[] {
  const ids = packed.ids.split('\n');
  const types = packed.types.split('\n');
  const docs = packed.docs.split('\n');
  const raws = packed.raws.split('\n');
  const terms = JSON.parse(packed.terms) as string[][];
  const events: NewEvent[] = new Array<NewEvent>(packed.count);
  for (let i = 0; i < packed.count; i++) {
    const raw = raws[i]!;
    events[i] = {
      id: ids[i]!,
      created: packed.created[i]!,
      eventTypeName: types[i]!,
      doc: docs[i]!,
      raw: raw === '' ? null : raw,
      terms: terms[i]!,
    };
  }
  return events;
}
