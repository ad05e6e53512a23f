import type { HistogramInterval } from '@/lib/domain/filters';
import { bucketStart, nextBucketStart } from '@/lib/domain/histogram';

/**
 * Bar geometry of the volume histogram: where a bucket ends and which date
 * range a drag across some bars stands for. Buckets are aligned to the
 * boundaries of their interval in the page's zone (the API's histogram with
 * its timeZone), so days, months and weeks end where that calendar says,
 * not after a fixed width.
 */

/**
 * The first instant after a bucket that starts at `start` (the next bucket's
 * start), also for a first bucket served as starting at 0000-01-01 when its
 * week began before (lib/domain/histogram.ts bucketStarts).
 */
export function bucketEnd(start: number, interval: HistogramInterval, zone?: string): number {
  return nextBucketStart(bucketStart(start, interval, zone), interval, zone);
}

/** The inclusive bounds a histogram was asked for (listBounds), null where open. */
export type HistogramBounds = { min: number | null; max: number | null };

const UNBOUNDED: HistogramBounds = { min: null, max: null };

/**
 * What bar `index` stands for: its bucket cut to the histogram's bounds,
 * `end` exclusive. A range from 09:40 has its first hour bar from 09:40, not
 * 09:00: the API counts only the events within minDate..maxDate, so the bar
 * holds those 20 minutes' events, and said or picked as from 09:00 it named,
 * and narrowed the list to, an hour whose first 40 minutes it did not count.
 * The last bar ends at the bounds' end likewise.
 */
export function barSpan(
  starts: readonly number[],
  index: number,
  interval: HistogramInterval,
  zone?: string,
  bounds: HistogramBounds = UNBOUNDED,
): { start: number; end: number } {
  const start = starts[index]!;
  const end = bucketEnd(start, interval, zone);
  return {
    start: bounds.min === null ? start : Math.max(start, bounds.min),
    end: bounds.max === null ? end : Math.min(end, bounds.max + 1),
  };
}

/**
 * The URL's from/to for bars `first`..`last` (either order): from the first
 * bar's start to the last bar's last millisecond (the dashboard's inclusive
 * "to", which the URL writes as the bar's final minute), within `bounds`
 * (barSpan), so a picked bar holds the events it counted.
 */
export function selectionRange(
  starts: readonly number[],
  interval: HistogramInterval,
  first: number,
  last: number,
  zone?: string,
  bounds: HistogramBounds = UNBOUNDED,
): { from: number; to: number } | null {
  const low = Math.max(0, Math.min(first, last));
  const high = Math.min(starts.length - 1, Math.max(first, last));
  if (low > high || starts[low] === undefined || starts[high] === undefined) return null;
  return {
    from: barSpan(starts, low, interval, zone, bounds).start,
    to: barSpan(starts, high, interval, zone, bounds).end - 1,
  };
}
