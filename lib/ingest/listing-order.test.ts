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

  it('oldest first: each second counts up from .000', () => {
    const order = new ListingOrder(false);
    assert.deepEqual(
      [S, S, S + 1000].map((c) => order.sortKey(c)),
      [S, S + 1, S + 1000],
    );
  });

  it('a restarted listing continues its top second from the events listed before it', () => {
    const order = new ListingOrder();
    order.restart(S, 500);
    assert.deepEqual(
      [S, S, S - 1000].map((c) => order.sortKey(c)),
      [S + 499, S + 498, S - 1],
    );
  });

  it('past 1,000 events in one second the rest share the last key', () => {
    const order = new ListingOrder();
    const keys = Array.from({ length: 1002 }, () => order.sortKey(S));
    assert.deepEqual(keys.slice(998), [S + 1, S, S, S]);
  });
});
