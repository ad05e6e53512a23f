import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiEvent } from '@/lib/client/present';
import { liveReference, newerThanShown, seenOnScreen } from './use-live-events';

const event = (id: string, created: string): ApiEvent =>
  ({ id, created, eventTypeName: 'JOINED_ORG' }) as ApiEvent;
const SECOND = Date.parse('2026-01-02T10:00:05Z');

describe('components/events/use-live-events', () => {
  it('counts the events of the newest instant on screen when the page shows them all', () => {
    const spans = [event('c', '2026-01-02T10:00:05Z'), event('b', '2026-01-02T10:00:05Z')];
    // A row of an older instant on screen: every event of the newest one is above it.
    assert.equal(seenOnScreen([...spans, event('a', '2026-01-02T10:00:04Z')], 3, SECOND), 2);
    // The list ends on this page.
    assert.equal(seenOnScreen(spans, 25, SECOND), 2);
    // A row served with a fraction in that second sorts below one served whole, and counts too.
    const fraction = [spans[0]!, event('f', '2026-01-02T10:00:05.500Z')];
    assert.equal(seenOnScreen([...fraction, event('a', '2026-01-02T10:00:04Z')], 3, SECOND), 2);
  });

  it('does not know them when a full page is within one instant', () => {
    const page = [event('c', '2026-01-02T10:00:05Z'), event('b', '2026-01-02T10:00:05Z')];
    assert.equal(seenOnScreen(page, 2, SECOND), null);
    assert.equal(seenOnScreen(page.slice(0, 1), 1, SECOND), null);
    assert.equal(liveReference([], SECOND, 25), null);
  });

  it('three events in one second, one on screen: none new, and then one', () => {
    // The reported case: size=1, the check counts all three of that second.
    const first = newerThanShown({ totalCount: 3, ids: ['c', 'b', 'a'] }, 'c', null);
    assert.deepEqual(first, { newer: 0, seen: 3 });
    // A fourth event of that second with a higher id sorts above the one shown.
    assert.deepEqual(newerThanShown({ totalCount: 4, ids: ['d'] }, 'c', first.seen), {
      newer: 1,
      seen: 3,
    });
  });

  it('counts from what is known not to be newer when the rows do not reach the one shown', () => {
    assert.deepEqual(newerThanShown({ totalCount: 9, ids: ['z'] }, 'c', 2), {
      newer: 7,
      seen: 2,
    });
    // Events gone since (retention) never make the count negative.
    assert.deepEqual(newerThanShown({ totalCount: 1, ids: ['c'] }, 'c', 2), {
      newer: 0,
      seen: 1,
    });
  });

  it('with neither, counts the rows, all newer than the one shown', () => {
    assert.deepEqual(newerThanShown({ totalCount: 60, ids: ['z', 'y', 'x'] }, 'c', null), {
      newer: 3,
      seen: null,
    });
  });

  it('a row dated in the future: counts from the newest row not after the present', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    const future = event('f', '2027-06-01T00:00:00Z');
    const page = [future, event('c', '2026-11-29T09:59:00Z'), event('b', '2026-11-29T09:58:00Z')];
    const reference = liveReference(page, now, 25)!;
    assert.deepEqual(reference, { index: 1, since: Date.parse('2026-11-29T09:59:00Z') });
    // The future row and the reference are counted, and are on screen.
    assert.equal(seenOnScreen(page, 25, reference.since), 2);
    // Two arrived now: the check counts 4 (the future row, two new, the reference).
    assert.deepEqual(newerThanShown({ totalCount: 4, ids: ['f'] }, 'c', 2, ['f']), {
      newer: 2,
      seen: 2,
    });
    // Learning from rows: those before the reference not on screen are new.
    assert.deepEqual(
      newerThanShown({ totalCount: 4, ids: ['f', 'n2', 'n1', 'c'] }, 'c', null, ['f']),
      {
        newer: 2,
        seen: 2,
      },
    );
  });

  it('every row in the future: the whole list when it is on screen, else the oldest row', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    const page = [event('g', '2027-06-02T00:00:00Z'), event('f', '2027-06-01T00:00:00Z')];
    assert.deepEqual(liveReference(page, now, 25), { index: -1, since: 0 });
    assert.equal(seenOnScreen(page, 25, 0), 2);
    assert.deepEqual(liveReference(page, now, 2), {
      index: 1,
      since: Date.parse('2027-06-01T00:00:00Z'),
    });
    assert.equal(liveReference([], now, 25), null);
    // Rows holding every counted event: those not shown are new, and exactly.
    assert.deepEqual(
      newerThanShown({ totalCount: 3, ids: ['g', 'f', 'n'] }, null, null, ['g', 'f']),
      {
        newer: 1,
        seen: 2,
      },
    );
  });
});
