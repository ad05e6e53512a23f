import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DAY_MS } from '@/lib/domain/dates';
import { generateEventBatches } from '@/lib/ingest/seed';
import {
  batchTerms,
  documentTerms,
  eventKey,
  keptTerms,
  prefixEnd,
  termWords,
  type BatchTerms,
} from './terms';

/** As the generator hands them over: with their field values. */
const generated = [
  ...generateEventBatches({ orgId: '6a0a1b2c3d4e5f6a7b8c9d0e', count: 3000, seed: 'terms' }, 3000),
][0]!;
/** Without them: the store derives the terms from each document. */
const events = generated.map(({ fieldValues: _, ...event }) => event);

/** The postings and counters written out plainly, from each event's document. */
function reference(keep: (e: number) => boolean) {
  const postings: [string, number, string][] = [];
  const days = new Map<string, number>();
  const values = new Map<string, number>();
  events.forEach((event, e) => {
    if (!keep(e)) return;
    for (const term of documentTerms(event.doc)) {
      postings.push([term, event.created, event.id]);
      const day = `${term} ${Math.floor(event.created / DAY_MS)} ${event.eventTypeName}`;
      days.set(day, (days.get(day) ?? 0) + 1);
      values.set(term, (values.get(term) ?? 0) + 1);
    }
  });
  return { postings: postings.sort(byKey), days, values };
}

/** (term, created, id) order. */
function byKey(a: [string, number, string], b: [string, number, string]): number {
  return a[0] !== b[0]
    ? a[0] < b[0]
      ? -1
      : 1
    : a[1] !== b[1]
      ? a[1] - b[1]
      : a[2] < b[2]
        ? -1
        : 1;
}

/** Whether postings come grouped by term, each term's in (created, id) order. */
function groupedInKeyOrder(postings: [string, number, string][]): boolean {
  const done = new Set<string>();
  for (let i = 1; i < postings.length; i++) {
    const [prev, next] = [postings[i - 1]!, postings[i]!];
    if (prev[0] === next[0]) {
      if (byKey(prev, next) >= 0) return false;
    } else {
      done.add(prev[0]);
      if (done.has(next[0])) return false;
    }
  }
  return true;
}

function plain(batch: BatchTerms) {
  const postings: [string, number, string][] = [];
  for (let i = 0; i < batch.postings.length; i += 2) {
    const event = events[batch.postings[i]!]!;
    postings.push([batch.terms[batch.postings[i + 1]!]!, event.created, event.id]);
  }
  const days = new Map<string, number>();
  // (term, day, event, n): the event stands for its type; each counter once.
  for (let i = 0; i < batch.dayCounts.length; i += 4) {
    const type = events[batch.dayCounts[i + 2]!]!.eventTypeName;
    const key = `${batch.terms[batch.dayCounts[i]!]} ${batch.dayCounts[i + 1]} ${type}`;
    assert.ok(!days.has(key), `counter ${key} given twice`);
    days.set(key, batch.dayCounts[i + 3]!);
  }
  const values = new Map<string, number>();
  for (let i = 0; i < batch.values.length; i += 2) {
    values.set(batch.terms[batch.values[i]!]!, batch.values[i + 1]!);
  }
  return { postings, days, values };
}

/** `plain` with the postings in (term, created, id) order, to compare with the reference. */
function sorted(batch: BatchTerms) {
  const p = plain(batch);
  return { ...p, postings: [...p.postings].sort(byKey) };
}

describe('batchTerms', () => {
  test('postings grouped by term in key order (created, id), exact per-(day, type) and per-term counts', () => {
    const batch = batchTerms(events);
    assert.ok(batch.postings.length > 5000);
    assert.ok(groupedInKeyOrder(plain(batch).postings));
    assert.deepEqual(
      sorted(batch),
      reference(() => true),
    );
  });

  test("events' field values, when given, make the same terms as their documents", () => {
    assert.ok(generated.every((event) => event.fieldValues !== undefined));
    assert.deepEqual(batchTerms(generated), batchTerms(events));
  });

  test("each event's key (its id's two halves) by its place in the list, as the postings number it", () => {
    const { keys } = batchTerms(events);
    assert.equal(keys.length, events.length * 2);
    events.forEach((event, e) =>
      assert.deepEqual([keys[e * 2], keys[e * 2 + 1]], eventKey(event.id)),
    );
  });

  test('an id that is no ObjectId is refused', () => {
    assert.throws(
      () => batchTerms([{ ...events[0]!, id: 'ZZ0a1b2c3d4e5f6a7b8c9d0e' }]),
      /not an ObjectId/,
    );
  });

  test('keptTerms keeps exactly the postings and counts of the kept events', () => {
    const keep = (e: number) => e % 3 !== 0;
    const kept = keptTerms(events, batchTerms(events), keep);
    assert.ok(groupedInKeyOrder(plain(kept).postings));
    assert.deepEqual(sorted(kept), reference(keep));
  });

  test('an empty batch has no postings', () => {
    const batch = batchTerms([]);
    assert.equal(batch.postings.length + batch.dayCounts.length + batch.values.length, 0);
  });
});

describe('termWords and prefixEnd', () => {
  test("a term's words are its value's, lowercased, each once", () => {
    assert.deepEqual(termWords('hostname:Shard-00-01.Shard-00-01.example.net'), [
      'shard',
      '00',
      '01',
      'example',
      'net',
    ]);
    assert.deepEqual(termWords('username:'), []);
  });

  test('[prefix, prefixEnd(prefix)) holds exactly the words starting with prefix', () => {
    const all = ['clu', 'clua', 'clu\u{10fff0}', 'clv', 'clt', 'cluster0', 'cl', 'é', 'éa', 'ê'];
    for (const prefix of ['clu', 'cl', 'é', 'c']) {
      const end = prefixEnd(prefix);
      // Code point order (UTF-8 byte order), as the engines compare words.
      const bytes = (s: string) => Buffer.from(s, 'utf8');
      const inRange = all.filter(
        (w) =>
          Buffer.compare(bytes(w), bytes(prefix)) >= 0 && Buffer.compare(bytes(w), bytes(end)) < 0,
      );
      assert.deepEqual(
        inRange,
        all.filter((w) => w.startsWith(prefix)),
        prefix,
      );
    }
  });
});
