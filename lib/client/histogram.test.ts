import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketEnd, selectionRange } from './histogram';

test('buckets end at the next UTC boundary of their interval, months by the calendar', () => {
  const day = Date.UTC(2026, 0, 30);
  assert.equal(bucketEnd(day, 'day'), Date.UTC(2026, 0, 31));
  assert.equal(bucketEnd(day, 'hour'), Date.UTC(2026, 0, 30, 1));
  assert.equal(bucketEnd(Date.UTC(2026, 1, 1), 'month'), Date.UTC(2026, 2, 1));
  assert.equal(bucketEnd(Date.UTC(2026, 11, 1), 'month'), Date.UTC(2027, 0, 1));
  assert.equal(bucketEnd(Date.UTC(1970, 0, 1), 'year'), Date.UTC(1971, 0, 1));
  // The first week of year 0000 began in year -1; served as starting 0000-01-01, it still ends on Monday the 3rd.
  assert.equal(
    bucketEnd(Date.parse('0000-01-01T00:00:00Z'), 'week'),
    Date.parse('0000-01-03T00:00:00Z'),
  );
  // Years 0-99, which Date.UTC reads as 1900-1999.
  const year50 = Date.parse('0050-12-01T00:00:00Z');
  assert.equal(bucketEnd(year50, 'month'), Date.parse('0051-01-01T00:00:00Z'));
  assert.equal(
    bucketEnd(Date.parse('0050-01-01T00:00:00Z'), 'year'),
    Date.parse('0051-01-01T00:00:00Z'),
  );
});

test("a day bar in a zone ends at that zone's next midnight: 23 hours as the clocks go forward", () => {
  const newYork = 'America/New_York';
  assert.equal(
    bucketEnd(Date.parse('2026-03-08T05:00:00Z'), 'day', newYork),
    Date.parse('2026-03-09T04:00:00Z'),
  );
  assert.deepEqual(selectionRange([Date.parse('2026-03-02T05:00:00Z')], 'day', 0, 0, newYork), {
    from: Date.parse('2026-03-02T05:00:00Z'),
    to: Date.parse('2026-03-03T05:00:00Z') - 1,
  });
});

test('a drag across bars covers them whole, whichever way it went', () => {
  const starts = [0, 1, 2, 3].map((i) => Date.UTC(2026, 0, 10 + i));
  const range = selectionRange(starts, 'day', 2, 1)!;
  assert.equal(range.from, Date.UTC(2026, 0, 11));
  assert.equal(range.to, Date.UTC(2026, 0, 13) - 1);
  assert.deepEqual(selectionRange(starts, 'day', 3, 3), {
    from: Date.UTC(2026, 0, 13),
    to: Date.UTC(2026, 0, 14) - 1,
  });
  assert.equal(selectionRange([], 'day', 0, 0), null);
});
