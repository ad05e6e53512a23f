import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NewEvent } from '@/lib/domain/event';
import { batchTerms } from '@/lib/store/terms';
import { compareEventsForWrite } from '@/lib/store/write-transaction';
import { BatchPacker, type PackedBatch, unpackBatch } from './bulk-batch';
import { generateEventBatches } from './seed';

/** Seed events in a shuffled (not write) order, some without raw, some sharing a second. */
function sampleEvents(count: number): NewEvent[] {
  if (count === 0) return [];
  const generated = [
    ...generateEventBatches({ orgId: '6a0a1b2c3d4e5f6a7b8c9d0f', count, seed: 'pack' }, count),
  ][0]!;
  const events = generated.map((event, i) => ({
    ...event,
    raw: i % 3 === 0 ? null : event.raw,
    // Every fifth shares its neighbour's second: ties broken by id.
    created: i % 5 === 1 ? generated[i - 1]!.created : event.created,
  }));
  // A fixed shuffle (multiplicative stride), far from any sorted order.
  return events.map((_, i) => events[(i * 7919) % events.length]!);
}

/** An event as the store receives it (the producer's field values are not sent). */
function stored({ fieldValues: _, ...event }: NewEvent): NewEvent {
  return event;
}

/** A list packed whole: one join at the end, no chunks. */
function packWhole(events: readonly NewEvent[]): PackedBatch {
  const packer = new BatchPacker(events.length, Infinity);
  for (const event of events) packer.add(event);
  return packer.finish();
}

describe('BatchPacker and unpackBatch', () => {
  for (const count of [0, 1, 256, 257, 1201]) {
    test(`${count} events come back whole, in the store's write order, with their terms`, () => {
      const events = sampleEvents(count);
      assert.equal(new Set(events).size, count);
      // Packed whole and as read, joined every ~2,000 characters: chunks end
      // within a batch, at its end, or not at all.
      const reading = new BatchPacker(count, 2_000);
      for (const event of events) reading.add(event);
      const expected = events.map(stored).sort(compareEventsForWrite);
      for (const packed of [packWhole(events), reading.finish()]) {
        const { events: unpacked, terms } = unpackBatch(packed);
        assert.deepEqual(unpacked, expected);
        // The postings name events by their place in that order, exactly as
        // batchTerms over the unpacked list (from the documents) does.
        assert.deepEqual(terms, batchTerms(unpacked));
        if (count > 1) assert.ok(terms.postings.length > 0);
      }
    });
  }

  test('times changed after adding (a listing order) are what the batch and its terms carry', () => {
    const events = sampleEvents(600);
    const packer = new BatchPacker(16); // grows past its first capacity
    for (const event of events) packer.add(event);
    const shift = 3 * 86_400_000 + 999;
    packer.mapCreated((created) => created + shift);
    const { events: unpacked, terms } = unpackBatch(packer.finish());
    const expected = events
      .map((event) => ({ ...stored(event), created: event.created + shift }))
      .sort(compareEventsForWrite);
    assert.deepEqual(unpacked, expected);
    assert.deepEqual(terms, batchTerms(unpacked));
  });

  test('an id the batch already holds is dropped and counted: the first copy read is the one packed', () => {
    const events = sampleEvents(300);
    // Later copies of two ids, newer than the first (write order puts newer first).
    const repeats = [0, 7].map((i) => ({
      ...events[i]!,
      created: events[i]!.created + 3_600_000,
      doc: events[(i + 1) % events.length]!.doc,
    }));
    const packer = new BatchPacker(events.length);
    for (const event of [...events.slice(0, 150), repeats[0]!, ...events.slice(150), repeats[1]!]) {
      packer.add(event);
    }
    assert.equal(packer.count, 300);
    const packed = packer.finish();
    assert.equal(packed.repeated, 2);
    const { events: unpacked, terms } = unpackBatch(packed);
    assert.deepEqual(unpacked, events.map(stored).sort(compareEventsForWrite));
    assert.deepEqual(terms, batchTerms(unpacked));
  });

  test('ids repeated throughout a large batch are each dropped once seen, however many', () => {
    const events = sampleEvents(3000);
    const packer = new BatchPacker(16);
    // Each event, then every one again (a later copy, another document).
    for (const event of events) packer.add(event);
    for (const event of events) packer.add({ ...event, doc: '{"later":true}' });
    assert.equal(packer.count, 3000);
    const packed = packer.finish();
    assert.equal(packed.repeated, 3000);
    assert.deepEqual(unpackBatch(packed).events, events.map(stored).sort(compareEventsForWrite));
  });

  test('chunks of documents and raws are over 128 KiB, where V8 allocates them in large-object space; ids chunks hold 1,024 ids', () => {
    // V8's largest regular object is 128 KiB: a chunk below it is copied by
    // every young-generation collection it survives, on both threads.
    const events = sampleEvents(3000);
    const packer = new BatchPacker(events.length);
    for (const event of events) packer.add(event);
    const packed = packer.finish();
    for (const chunks of [packed.docs, packed.raws]) {
      assert.ok(chunks.length > 2, `${chunks.length} chunks`);
      for (const chunk of chunks.slice(0, -1))
        assert.ok(chunk.length > 128 * 1024, `${chunk.length}`);
    }
    // An id keeps its record's text alive until its chunk is joined: at most 1,024 of them.
    assert.deepEqual(
      packed.ids.map((chunk) => chunk.split('\n').length),
      [1024, 1024, 3000 - 2048],
    );
  });

  test('a newline inside a document or raw is refused, not split into two events', () => {
    const [first, second] = sampleEvents(2);
    for (const broken of [
      { ...first!, doc: '{"a":"x\ny"}' },
      { ...first!, raw: '{"a":\n1}' },
    ]) {
      assert.throws(() => unpackBatch(packWhole([broken, second!])), /one has a newline/);
    }
  });
});
