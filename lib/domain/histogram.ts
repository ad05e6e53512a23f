import {
  DAY_MS,
  FIRST_INSTANT,
  HOUR_MS,
  offsetAt,
  UTC_ZONE,
  wallClockAt,
  wallTimeInstant,
} from './dates';
import type { HistogramInterval } from './filters';
import { HISTOGRAM_INTERVALS } from './filters';

/**
 * Histogram buckets aligned to UTC boundaries: minutes, hours, days, weeks
 * starting Monday 00:00 UTC (ISO weeks), calendar months, years, decades
 * (1970-1979) and centuries (1900-1999). Given a time zone, each bucket
 * starts where its clock does: days and the longer intervals at its
 * midnights (a day of 23 or 25 hours where the clocks change), hours and
 * minutes where its clock reads :00 (Kolkata's, UTC+05:30, at UTC's :30),
 * and a change of its clocks starts one too.
 * Browser-safe: the store buckets with these and the dashboard may draw
 * with them.
 */

const MINUTE_MS = 60_000;
const WEEK_MS = 7 * DAY_MS;
/** The width of the intervals of fixed length. */
const FIXED_WIDTH: Partial<Record<HistogramInterval, number>> = {
  minute: MINUTE_MS,
  hour: HOUR_MS,
  day: DAY_MS,
  week: WEEK_MS,
};

/** Years per bucket of the intervals counted in years. */
const YEARS: Partial<Record<HistogramInterval, number>> = { year: 1, decade: 10, century: 100 };

/** 1970-01-01 was a Thursday: Mondays are 4 days after an epoch multiple of 7 days. */
const MONDAY_OFFSET = 4 * DAY_MS;

function floorBy(millis: number, width: number, offset = 0): number {
  return Math.floor((millis - offset) / width) * width + offset;
}

/**
 * 00:00 UTC on the first of a month (`month` may run past 11 into the next
 * year). Not Date.UTC, which reads years 0-99 as 1900-1999: a histogram of
 * the first century had no buckets and a null total.
 */
function monthStart(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 1);
  return date.getTime();
}

/** The start of the UTC bucket holding `millis`. */
function utcBucketStart(millis: number, interval: HistogramInterval): number {
  switch (interval) {
    case 'minute':
      return floorBy(millis, MINUTE_MS);
    case 'hour':
      return floorBy(millis, HOUR_MS);
    case 'day':
      return floorBy(millis, DAY_MS);
    case 'week':
      return floorBy(millis, WEEK_MS, MONDAY_OFFSET);
    case 'month': {
      const date = new Date(millis);
      return monthStart(date.getUTCFullYear(), date.getUTCMonth());
    }
    case 'year':
    case 'decade':
    case 'century': {
      const step = YEARS[interval]!;
      return monthStart(Math.floor(new Date(millis).getUTCFullYear() / step) * step, 0);
    }
  }
}

/** The start of the UTC bucket after the one starting at `start`. */
function utcNextBucketStart(start: number, interval: HistogramInterval): number {
  switch (interval) {
    case 'minute':
      return start + MINUTE_MS;
    case 'hour':
      return start + HOUR_MS;
    case 'day':
      return start + DAY_MS;
    case 'week':
      return start + WEEK_MS;
    case 'month': {
      const date = new Date(start);
      return monthStart(date.getUTCFullYear(), date.getUTCMonth() + 1);
    }
    case 'year':
    case 'decade':
    case 'century':
      return monthStart(new Date(start).getUTCFullYear() + YEARS[interval]!, 0);
  }
}

/** Whether buckets of `interval` in `zone` follow its calendar: days and longer, outside UTC. */
function onCalendar(interval: HistogramInterval, zone: string): boolean {
  return zone !== UTC_ZONE && !isClockInterval(interval);
}

/** Whether buckets of `interval` in `zone` are its clock's hours or minutes (outside UTC). */
function onClock(interval: HistogramInterval, zone: string): interval is 'minute' | 'hour' {
  return zone !== UTC_ZONE && isClockInterval(interval);
}

function isClockInterval(interval: HistogramInterval): interval is 'minute' | 'hour' {
  return interval === 'minute' || interval === 'hour';
}

/**
 * The first instant after `from`, up to `to`, where `zone`'s offset is no
 * longer the one at `from` (its clocks change), by halving: the offset at
 * `to` differs.
 */
function offsetChange(from: number, to: number, zone: string): number {
  const offset = offsetAt(from, zone);
  let [lo, hi] = [from, to];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(mid, zone) === offset) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The start of `zone`'s clock hour or minute holding `millis`: where the
 * clock read its :00, or its clocks changed since. Floored on the clock
 * itself, not UTC's hours, whose :00 is Kolkata's :30 (in 1900, at
 * UTC+05:21:10, its minutes began at UTC's :50 s); where a change moves
 * the clock by less than the interval (Lord Howe's half hour) a bucket
 * starts at the change, so none holds two offsets and each ends where the
 * clock reads :00 again.
 */
function clockBucketStart(millis: number, width: number, zone: string): number {
  const offset = offsetAt(millis, zone);
  const start = floorBy(millis + offset, width) - offset;
  return offsetAt(start, zone) === offset ? start : offsetChange(start, millis, zone);
}

/** The start of the clock bucket after the one starting at `start` (clockBucketStart). */
function nextClockBucketStart(start: number, width: number, zone: string): number {
  const offset = offsetAt(start, zone);
  const next = floorBy(start + offset, width) - offset + width;
  return offsetAt(next - 1, zone) === offset ? next : offsetChange(start, next - 1, zone);
}

/**
 * The start of the bucket holding `millis`; in `zone`, the instant its wall
 * clock starts that bucket (a midnight the clocks skip starts the day when
 * they jump, as wallTimeInstant reads it).
 */
export function bucketStart(
  millis: number,
  interval: HistogramInterval,
  zone: string = UTC_ZONE,
): number {
  if (onClock(interval, zone)) return clockBucketStart(millis, FIXED_WIDTH[interval]!, zone);
  if (!onCalendar(interval, zone)) return utcBucketStart(millis, interval);
  return wallTimeInstant(utcBucketStart(wallClockAt(millis, zone), interval), zone);
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucketStart(
  start: number,
  interval: HistogramInterval,
  zone: string = UTC_ZONE,
): number {
  if (onClock(interval, zone)) return nextClockBucketStart(start, FIXED_WIDTH[interval]!, zone);
  if (!onCalendar(interval, zone)) return utcNextBucketStart(start, interval);
  const wall = utcBucketStart(wallClockAt(start, zone), interval);
  return wallTimeInstant(utcNextBucketStart(wall, interval), zone);
}

/**
 * How many UTC buckets of `interval` cover [min, max]. A zone's are counted
 * by fitsIn and bucketStartsWithin, from zonedEstimate (which counts a wall
 * clock's dates with this) and, near the limit, a walk of bucketStarts.
 */
function bucketCount(min: number, max: number, interval: HistogramInterval): number {
  const [a, b] = [new Date(min), new Date(max)];
  const step = YEARS[interval];
  if (step !== undefined) {
    return Math.floor(b.getUTCFullYear() / step) - Math.floor(a.getUTCFullYear() / step) + 1;
  }
  if (interval === 'month') {
    return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth()) + 1;
  }
  const width = FIXED_WIDTH[interval]!;
  return (utcBucketStart(max, interval) - utcBucketStart(min, interval)) / width + 1;
}

/**
 * The finest interval covering [min, max] in at most `maxBuckets` buckets
 * (century when none does: at most 100 over the years 0000-9999, within
 * MAX_HISTOGRAM_BUCKETS). An organization whose events span decades (an
 * epoch-zero `created`) or millennia (Go's zero time, 0001-01-01) still gets
 * its histogram; in months, 1970 to 2026 took 676 buckets and was refused.
 */
export function chooseInterval(
  min: number,
  max: number,
  maxBuckets: number,
  zone: string = UTC_ZONE,
): HistogramInterval {
  return (
    HISTOGRAM_INTERVALS.find((interval) => fitsIn(min, max, interval, zone, maxBuckets)) ??
    'century'
  );
}

/**
 * Whether [min, max] takes at most `limit` buckets of `interval`. In a zone
 * the estimate (the elapsed hours or minutes, the wall clock's dates) is
 * off where the clocks change: by one or two in a range of a few hundred
 * buckets at most (two changes a year; a skipped day is rarer still). So
 * only a count within a few of the limit is checked by walking the buckets,
 * and that walk stops past the limit: walking every bucket up to twice the
 * maximum, as bucketCount once did, took 720 hours for a month's histogram,
 * ~5 ms of each zoned histogram request that picked its own interval.
 */
function fitsIn(
  min: number,
  max: number,
  interval: HistogramInterval,
  zone: string,
  limit: number,
): boolean {
  if (!onCalendar(interval, zone) && !onClock(interval, zone)) {
    return bucketCount(min, max, interval) <= limit;
  }
  const estimate = zonedEstimate(min, max, interval, zone);
  if (Math.abs(estimate - limit) > CLOCK_CHANGE_MARGIN) return estimate <= limit;
  return bucketStarts(min, max, interval, zone, limit + 1).length <= limit;
}

/**
 * A zone's count of buckets before the walk that makes it exact: a clock's
 * hours and minutes as they pass, its dates on the wall clock. The wall
 * clock's minutes were off by 60 where the clocks repeat an hour (New
 * York's 01:00-01:59 twice is 120 minutes) and by 1,440 over a day they
 * skip (Apia's 2011-12-30: 90 minutes from 23:00 on the 29th to 00:29 on
 * the 31st, 1,530 on the wall), where the time elapsed is off by one at
 * most per change of a whole number of minutes.
 */
function zonedEstimate(
  min: number,
  max: number,
  interval: HistogramInterval,
  zone: string,
): number {
  return onClock(interval, zone)
    ? bucketCount(min, max, interval)
    : bucketCount(wallClockAt(min, zone), wallClockAt(max, zone), interval);
}

/** How far a zone's changes of its clocks may move a count of at most ~500 buckets from zonedEstimate's. */
const CLOCK_CHANGE_MARGIN = 3;

/**
 * The bucket starts covering [min, max], oldest first, or the first `most`
 * of them. The first starts no earlier than 0000-01-01: a week of early
 * January 0000 began in year -1, which the API's dates cannot write (nor a
 * client read back).
 */
export function bucketStarts(
  min: number,
  max: number,
  interval: HistogramInterval,
  zone: string = UTC_ZONE,
  most = Infinity,
): number[] {
  const starts: number[] = [];
  for (
    let s = bucketStart(min, interval, zone);
    s <= max && starts.length < most;
    s = nextBucketStart(s, interval, zone)
  ) {
    starts.push(Math.max(s, FIRST_INSTANT));
  }
  return starts;
}

/**
 * The bucket starts covering [min, max] when they are at most `limit`, or
 * else how many they are, and whether that is exact. In UTC they are
 * counted. In a zone a change of its clocks adds or removes buckets (an hour
 * passed twice, one skipped, a day skipped: Apia's 2011-12-30), which
 * zonedEstimate misses, so up to twice the limit they are walked (a change
 * moves the count by one or two, never from over twice the limit to within
 * it), and past that the estimate stands:
 * 501 dates of Apia over its skipped day are 500 buckets, served.
 */
export function bucketStartsWithin(
  min: number,
  max: number,
  interval: HistogramInterval,
  zone: string,
  limit: number,
): { starts: number[] } | { needed: number; exact: boolean } {
  const zoned = onCalendar(interval, zone) || onClock(interval, zone);
  const counted = zoned ? zonedEstimate(min, max, interval, zone) : bucketCount(min, max, interval);
  if (counted > (zoned ? 2 * limit : limit)) return { needed: counted, exact: !zoned };
  const starts = bucketStarts(min, max, interval, zone);
  return starts.length > limit ? { needed: starts.length, exact: true } : { starts };
}
