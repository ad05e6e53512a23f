import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListingOrder } from './listing-order';

const S = Date.UTC(2025, 5, 1, 12, 0, 0);

describe('ListingOrder', () => {
  it('newest first: each second counts down from .999 in listing order; fractions are kept', () => {
    const order = new ListingOrder();
    const keys = [S + 1000, S + 1000, S, S + 250, S, S].map((c) => order.sortKey(c));
    assert.deepEqual(keys, [S + 1999, S + 1998, S + 999, S + 250, S + 998, S + 997]);
  });

  it('oldest first: each second counts up from .001', () => {
    const order = new ListingOrder(false);
    assert.deepEqual(
      [S, S, S + 1000].map((c) => order.sortKey(c)),
      [S + 1, S + 2, S + 1001],
    );
  });

  it('never .000, in either order: a maxDate on the whole second leaves every one of its events out', () => {
    for (const newestFirst of [true, false]) {
      const order = new ListingOrder(newestFirst);
      const keys = Array.from({ length: 1500 }, () => order.sortKey(S));
      assert.ok(
        keys.every((key) => key > S && key <= S + 999),
        `${newestFirst}: ${Math.min(...keys) - S}..${Math.max(...keys) - S}`,
      );
    }
  });

  it('a restarted listing continues its top second from the events listed before it', () => {
    const order = new ListingOrder();
    order.restart(S, 500);
    assert.deepEqual(
      [S, S, S - 1000].map((c) => order.sortKey(c)),
      [S + 499, S + 498, S - 1],
    );
  });

  it('past 999 events in one second the rest share the last key', () => {
    const order = new ListingOrder();
    const keys = Array.from({ length: 1002 }, () => order.sortKey(S));
    assert.deepEqual(keys.slice(997), [S + 2, S + 1, S + 1, S + 1, S + 1]);
    const oldestFirst = new ListingOrder(false);
    const up = Array.from({ length: 1002 }, () => oldestFirst.sortKey(S));
    assert.deepEqual(up.slice(997), [S + 998, S + 999, S + 999, S + 999, S + 999]);
  });
});
