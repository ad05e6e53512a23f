import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketStarts } from '@/lib/domain/histogram';
import { barSpan, bucketEnd, selectionRange } from './histogram';

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

test("hour and minute bars in a zone whose offset is no whole hour are its wall clock's hours and minutes", () => {
  const starts = (min: string, max: string, interval: 'hour' | 'minute', zone: string) =>
    bucketStarts(Date.parse(min), Date.parse(max), interval, zone).map((start) =>
      new Date(start).toISOString(),
    );
  // Kolkata (UTC+05:30): 00:10 UTC is 05:40 there, in the bar from 05:00 (23:30 UTC).
  assert.deepEqual(starts('2026-01-01T00:10:00Z', '2026-01-01T01:40:00Z', 'hour', 'Asia/Kolkata'), [
    '2025-12-31T23:30:00.000Z',
    '2026-01-01T00:30:00.000Z',
    '2026-01-01T01:30:00.000Z',
  ]);
  assert.equal(
    bucketEnd(Date.parse('2026-01-01T00:30:00Z'), 'hour', 'Asia/Kolkata'),
    Date.parse('2026-01-01T01:30:00Z'),
  );
  // Kathmandu (UTC+05:45): 00:10 UTC is 05:55.
  assert.deepEqual(
    starts('2026-01-01T00:10:00Z', '2026-01-01T00:20:00Z', 'hour', 'Asia/Kathmandu'),
    ['2025-12-31T23:15:00.000Z', '2026-01-01T00:15:00.000Z'],
  );
  // Adelaide goes back from UTC+10:30 to +09:30 at 03:00 on 2026-04-05: 02:00 to 03:00 passes twice, two bars.
  assert.deepEqual(
    starts('2026-04-04T15:00:00Z', '2026-04-04T17:00:00Z', 'hour', 'Australia/Adelaide'),
    ['2026-04-04T14:30:00.000Z', '2026-04-04T15:30:00.000Z', '2026-04-04T16:30:00.000Z'],
  );
  // Lord Howe goes back half an hour, from UTC+11 to +10:30, at 02:00 on 2026-04-05: a
  // bar starts at the change (01:30 again) and lasts to 02:00, the hours around it start at :00.
  assert.deepEqual(
    starts('2026-04-04T14:10:00Z', '2026-04-04T16:10:00Z', 'hour', 'Australia/Lord_Howe'),
    ['2026-04-04T14:00:00.000Z', '2026-04-04T15:00:00.000Z', '2026-04-04T15:30:00.000Z'],
  );
  // A whole-hour zone's hours are UTC's, also through New York's repeated 01:00.
  assert.deepEqual(
    starts('2026-11-01T04:30:00Z', '2026-11-01T06:30:00Z', 'hour', 'America/New_York'),
    ['2026-11-01T04:00:00.000Z', '2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z'],
  );
  // In 1900 Kolkata kept UTC+05:21:10: its minutes began at UTC's :50 seconds.
  assert.deepEqual(
    starts('1900-01-01T00:00:30Z', '1900-01-01T00:01:00Z', 'minute', 'Asia/Kolkata'),
    ['1899-12-31T23:59:50.000Z', '1900-01-01T00:00:50.000Z'],
  );
});

test("the first and last bars are cut to the histogram's bounds: said and picked from minDate to maxDate, not the whole hours", () => {
  const kolkata = 'Asia/Kolkata';
  // 09:40 to 15:55 in Kolkata (the "to" its last millisecond): hour bars from 09:00 to 15:00 there.
  const bounds = {
    min: Date.parse('2026-03-02T04:10:00Z'),
    max: Date.parse('2026-03-02T10:26:00Z') - 1,
  };
  const starts = bucketStarts(bounds.min, bounds.max, 'hour', kolkata);
  assert.equal(starts.length, 7);
  assert.deepEqual(barSpan(starts, 0, 'hour', kolkata, bounds), {
    start: bounds.min,
    end: Date.parse('2026-03-02T04:30:00Z'),
  });
  assert.deepEqual(barSpan(starts, 6, 'hour', kolkata, bounds), {
    start: Date.parse('2026-03-02T09:30:00Z'),
    end: bounds.max + 1,
  });
  // A bar between them is its whole hour; without bounds the first is too.
  assert.deepEqual(barSpan(starts, 1, 'hour', kolkata, bounds), {
    start: Date.parse('2026-03-02T04:30:00Z'),
    end: Date.parse('2026-03-02T05:30:00Z'),
  });
  assert.equal(barSpan(starts, 0, 'hour', kolkata).start, Date.parse('2026-03-02T03:30:00Z'));
  assert.deepEqual(selectionRange(starts, 'hour', 0, 0, kolkata, bounds), {
    from: bounds.min,
    to: Date.parse('2026-03-02T04:30:00Z') - 1,
  });
  assert.deepEqual(selectionRange(starts, 'hour', 6, 0, kolkata, bounds), {
    from: bounds.min,
    to: bounds.max,
  });
});
