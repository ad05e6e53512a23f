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

/**
 * The URL's from/to for bars `first`..`last` (either order): from the first
 * bar's start to the last bar's last millisecond (the dashboard's inclusive
 * "to", which the URL writes as the bar's final minute).
 */
export function selectionRange(
  starts: readonly number[],
  interval: HistogramInterval,
  first: number,
  last: number,
  zone?: string,
): { from: number; to: number } | null {
  const low = Math.max(0, Math.min(first, last));
  const high = Math.min(starts.length - 1, Math.max(first, last));
  if (low > high || starts[low] === undefined || starts[high] === undefined) return null;
  return { from: starts[low], to: bucketEnd(starts[high], interval, zone) - 1 };
}
