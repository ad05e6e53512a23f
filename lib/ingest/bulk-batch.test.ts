import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NewEvent } from '@/lib/domain/event';
import { batchTerms } from '@/lib/store/terms';
import { compareEventsForWrite } from '@/lib/store/write-transaction';
import {
  BatchPacker,
  MAX_BATCH_TEXT_BYTES,
  type PackedBatch,
  recycleText,
  transferables,
  unpackBatch,
} from './bulk-batch';
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

/** A list packed into one batch. */
function pack(events: readonly NewEvent[], capacity = events.length): PackedBatch {
  const packer = new BatchPacker(capacity);
  for (const event of events) packer.add(event);
  return packer.finish();
}

/** Unpacked events as plain objects (their document and raw are getters). */
function unpacked(packed: PackedBatch): NewEvent[] {
  return unpackBatch(packed).events.map(({ id, created, eventTypeName, doc, raw }) => ({
    id,
    created,
    eventTypeName,
    doc,
    raw,
  }));
}

describe('BatchPacker and unpackBatch', () => {
  for (const count of [0, 1, 256, 257, 1201]) {
    test(`${count} events come back whole, in the store's write order, with their terms`, () => {
      const events = sampleEvents(count);
      assert.equal(new Set(events).size, count);
      const expected = events.map(stored).sort(compareEventsForWrite);
      // Packed at its size, and grown from a small start.
      for (const packed of [pack(events), pack(events, 16)]) {
        assert.deepEqual(unpacked(packed), expected);
        // The postings name events by their place in that order, exactly as
        // batchTerms over the unpacked list (from the documents) does.
        const { terms } = unpackBatch(packed);
        assert.deepEqual(terms, batchTerms(unpacked(packed)));
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
    const packed = packer.finish();
    const expected = events
      .map((event) => ({ ...stored(event), created: event.created + shift }))
      .sort(compareEventsForWrite);
    assert.deepEqual(unpacked(packed), expected);
    assert.deepEqual(unpackBatch(packed).terms, batchTerms(unpacked(packed)));
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
    assert.deepEqual(unpacked(packed), events.map(stored).sort(compareEventsForWrite));
    assert.deepEqual(unpackBatch(packed).terms, batchTerms(unpacked(packed)));
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
    assert.deepEqual(unpacked(packed), events.map(stored).sort(compareEventsForWrite));
  });

  test('texts of any characters come back exactly: non-ASCII, newlines, an empty document', () => {
    const [first, second, third] = sampleEvents(3);
    const events = [
      { ...first!, doc: '{"name":"Zoë Ångström 日本 🚀","n":"a\\nb"}', raw: '{"a":\n1,"é":"😀"}' },
      { ...second!, doc: '{"a":"x\ny"}', raw: null },
      { ...third!, doc: '', raw: '{}' },
    ];
    assert.deepEqual(unpacked(pack(events)), events.map(stored).sort(compareEventsForWrite));
  });

  test("a recycled text buffer is the next batch's, and an event of its batch then refuses to be read; one grown far past a batch's size is not kept", () => {
    const packed = pack(sampleEvents(50));
    const { events } = unpackBatch(packed);
    assert.equal(typeof events[0]!.doc, 'string');
    // What the inserting thread does once the batch is stored: the buffer
    // is moved to the producer (detached here), which packs into it again.
    const moved = structuredClone(packed.text, { transfer: [packed.text] });
    recycleText(moved);
    assert.equal(pack(sampleEvents(5)).text, moved);
    assert.throws(() => events[0]!.doc, /read after its batch was recycled/);
    assert.throws(() => events[1]!.raw ?? events[1]!.doc, /read after its batch was recycled/);
    // One grown far past a batch's size (a record near the limit) is let go.
    const huge = new ArrayBuffer(2 * MAX_BATCH_TEXT_BYTES + 1);
    recycleText(huge);
    assert.notEqual(pack(sampleEvents(5)).text, huge);
  });

  test('a batch is full at its capacity of events, or at MAX_BATCH_TEXT_BYTES of text before that', () => {
    const [event] = sampleEvents(1);
    const small = new BatchPacker(3);
    for (const id of ['6a0a1b2c3d4e5f6a7b8c9d01', '6a0a1b2c3d4e5f6a7b8c9d02']) {
      small.add({ ...event!, id });
      assert.equal(small.full, false);
    }
    small.add({ ...event!, id: '6a0a1b2c3d4e5f6a7b8c9d03' });
    assert.equal(small.full, true);

    // Records of 1 MiB each: full once 64 MiB of them are in, far below 20,000.
    const big = new BatchPacker(20_000);
    const raw = `{"pad":"${'x'.repeat((1 << 20) - 10)}"}`;
    let added = 0;
    while (!big.full) {
      big.add({ ...event!, id: (0x6a0a1b2c3d4en * 2n ** 48n + BigInt(added)).toString(16), raw });
      added++;
    }
    assert.equal(added, Math.ceil(MAX_BATCH_TEXT_BYTES / (raw.length + event!.doc.length + 24)));
    const packed = big.finish();
    assert.equal(unpacked(packed)[0]!.raw, raw);
    // The text buffer is among what postMessage moves.
    assert.ok(transferables(packed).includes(packed.text));
  });
});
