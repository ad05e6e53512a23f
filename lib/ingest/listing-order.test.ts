import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ListingOrder } from './listing-order';

const S = Date.UTC(2025, 5, 1, 12, 0, 0);

describe('ListingOrder', () => {
  it('newest first: each second counts down from .999 in listing order; fractions are kept, and the events listed after one go on below it', () => {
    const order = new ListingOrder();
    const keys = [S + 1000, S + 1000, S, S + 250, S, S].map((c) => order.sortKey(c));
    assert.deepEqual(keys, [S + 1999, S + 1998, S + 999, S + 250, S + 249, S + 248]);
  });

  it('a listing mixing a fraction with whole seconds sorts back in the order listed, either way', () => {
    const newest = new ListingOrder();
    const down = [S + 500, S, S, S - 1000].map((c) => newest.sortKey(c));
    assert.deepEqual(down, [S + 500, S + 499, S + 498, S - 1]);
    const oldest = new ListingOrder(false);
    const up = [S - 1000, S, S + 500, S, S + 700, S].map((c) => oldest.sortKey(c));
    assert.deepEqual(up, [S - 999, S + 1, S + 500, S + 501, S + 700, S + 701]);
    // No room left below a fraction: ties, never above it or on the second.
    const crowded = new ListingOrder();
    assert.deepEqual(
      [S + 2, S, S, S].map((c) => crowded.sortKey(c)),
      [S + 2, S + 1, S + 1, S + 1],
    );
  });

  it("whole seconds listed after a fraction's events share their key while their ids sort them after", () => {
    const id = (n: number): [number, number] => [0x6a0000000000, n];
    const order = new ListingOrder();
    assert.deepEqual(
      [
        [S + 999, 9],
        [S, 8],
        [S, 7],
        [S + 999, 6],
        [S, 7],
        [S, 5],
      ].map(([created, n]) => order.sortKey(created!, id(n!))),
      [S + 999, S + 999, S + 999, S + 999, S + 998, S + 997],
    );
    const oldest = new ListingOrder(false);
    assert.deepEqual(
      [
        [S + 1, 1],
        [S, 2],
        [S, 1],
      ].map(([created, n]) => oldest.sortKey(created!, id(n!))),
      [S + 1, S + 1, S + 2],
    );
  });

  it("a restart that does not go on from this order's last event shares no fraction's key", () => {
    const id = (n: number): [number, number] => [0x6a0000000000, n];
    const order = new ListingOrder();
    assert.equal(order.sortKey(S + 999, id(9)), S + 999);
    // Another run listed two events of the second before this page: they hold .999 and .998.
    order.restart(S, 2);
    assert.equal(order.sortKey(S, id(1)), S + 997);
  });

  it('a second before 1970 (year 0000 included) is spread within itself', () => {
    const early = Date.parse('0000-01-01T00:00:10Z');
    const order = new ListingOrder();
    assert.deepEqual(
      [early + 300, early, early].map((c) => order.sortKey(c)),
      [early + 300, early + 299, early + 298],
    );
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

  it('a listing restarted where this order left it goes on from its last key, a fraction included', () => {
    const order = new ListingOrder();
    assert.deepEqual(
      [S, S + 500].map((c) => order.sortKey(c)),
      [S + 999, S + 500],
    );
    order.restart(S, 2);
    assert.deepEqual(
      [S, S].map((c) => order.sortKey(c)),
      [S + 499, S + 498],
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
