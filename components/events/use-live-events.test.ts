import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApiEvent } from '@/lib/client/present';
import { newerThanShown, seenOnScreen } from './use-live-events';

const event = (id: string, created: string): ApiEvent =>
  ({ id, created, eventTypeName: 'JOINED_ORG' }) as ApiEvent;

describe('components/events/use-live-events', () => {
  it('counts the events of the newest instant on screen when the page shows them all', () => {
    const spans = [event('c', '2026-01-02T10:00:05Z'), event('b', '2026-01-02T10:00:05Z')];
    // A row of an older instant on screen: every event of the newest one is above it.
    assert.equal(seenOnScreen([...spans, event('a', '2026-01-02T10:00:04Z')], 3), 2);
    // The list ends on this page.
    assert.equal(seenOnScreen(spans, 25), 2);
    // A row served with a fraction in that second sorts below one served whole, and counts too.
    const fraction = [spans[0]!, event('f', '2026-01-02T10:00:05.500Z')];
    assert.equal(seenOnScreen([...fraction, event('a', '2026-01-02T10:00:04Z')], 3), 2);
  });

  it('does not know them when a full page is within one instant', () => {
    const page = [event('c', '2026-01-02T10:00:05Z'), event('b', '2026-01-02T10:00:05Z')];
    assert.equal(seenOnScreen(page, 2), null);
    assert.equal(seenOnScreen(page.slice(0, 1), 1), null);
    assert.equal(seenOnScreen([], 25), null);
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
});
