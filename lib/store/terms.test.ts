import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DAY_MS } from '@/lib/domain/dates';
import { generateEventBatches } from '@/lib/ingest/seed';
import { batchTerms, documentTerms, keptTerms, type BatchTerms } from './terms';

const events = [
  ...generateEventBatches({ orgId: '6a0a1b2c3d4e5f6a7b8c9d0e', count: 3000, seed: 'terms' }, 3000),
][0]!.map(({ terms: _, ...event }) => event);

/** The postings and counters written out plainly, from each event's document. */
function reference(keep: (e: number) => boolean) {
  const postings: [string, number, string][] = [];
  const days = new Map<string, number>();
  const values = new Map<string, number>();
  events.forEach((event, e) => {
    if (!keep(e)) return;
    for (const term of documentTerms(event.doc)) {
      postings.push([term, event.created, event.id]);
      const day = `${term} ${Math.floor(event.created / DAY_MS)}`;
      days.set(day, (days.get(day) ?? 0) + 1);
      values.set(term, (values.get(term) ?? 0) + 1);
    }
  });
  postings.sort((a, b) =>
    a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] !== b[1] ? a[1] - b[1] : a[2] < b[2] ? -1 : 1,
  );
  return { postings, days, values };
}

function plain(batch: BatchTerms) {
  const postings: [string, number, string][] = [];
  for (let i = 0; i < batch.postings.length; i += 2) {
    const event = events[batch.postings[i]!]!;
    postings.push([batch.terms[batch.postings[i + 1]!]!, event.created, event.id]);
  }
  const days = new Map<string, number>();
  for (let i = 0; i < batch.dayCounts.length; i += 3) {
    days.set(
      `${batch.terms[batch.dayCounts[i]!]} ${batch.dayCounts[i + 1]}`,
      batch.dayCounts[i + 2]!,
    );
  }
  const values = new Map<string, number>();
  for (let i = 0; i < batch.values.length; i += 2) {
    values.set(batch.terms[batch.values[i]!]!, batch.values[i + 1]!);
  }
  return { postings, days, values };
}

describe('batchTerms', () => {
  test('postings in key order (term, created, id) and exact per-day and per-term counts', () => {
    const batch = batchTerms(events);
    assert.ok(batch.postings.length > 5000);
    assert.deepEqual(
      plain(batch),
      reference(() => true),
    );
  });

  test('keptTerms keeps exactly the postings and counts of the kept events', () => {
    const keep = (e: number) => e % 3 !== 0;
    assert.deepEqual(plain(keptTerms(events, batchTerms(events), keep)), reference(keep));
  });

  test('an empty batch has no postings', () => {
    const batch = batchTerms([]);
    assert.equal(batch.postings.length + batch.dayCounts.length + batch.values.length, 0);
  });
});
