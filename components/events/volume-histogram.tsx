'use client';

import { type KeyboardEvent, memo, type PointerEvent, useMemo, useRef, useState } from 'react';
import type { ChartHistogram, HistogramResponse } from '@/lib/client/api-client';
import { barSpan, selectionRange } from '@/lib/client/histogram';
import { formatSpan, formatTimestamp, parseApiDateTime } from '@/lib/domain/dates';

const NUMBER = new Intl.NumberFormat('en-US');

/** "1 event", "2,345 events". */
function events(count: number): string {
  return `${NUMBER.format(count)} ${count === 1 ? 'event' : 'events'}`;
}

/** The bucket size as said above the bars: each starts on the page zone's clock (the API's timeZone). */
function perBucket(interval: HistogramResponse['interval']): string {
  return `per ${interval}`;
}

type Props = {
  histogram: ChartHistogram | undefined;
  zone: string;
  /** New bars are loading for new filters (the old ones stay, dimmed). */
  busy: boolean;
  failed: boolean;
  /** A drag (or Enter after moving with the arrow keys) picked this range. */
  onSelect: (range: { from: number; to: number }) => void;
};

type Drag = { anchor: number; current: number };

/**
 * Events over time for the current filters, from the API's histogram (same
 * filters as the table, so its total is the table's). Dragging across bars,
 * or clicking one, narrows the date range to them; with the keyboard, the
 * arrow keys move along the bars, Shift widens, Enter applies.
 */
export const VolumeHistogram = memo(function VolumeHistogram({
  histogram,
  zone,
  busy,
  failed,
  onSelect,
}: Props) {
  const barsRef = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const [cursor, setCursor] = useState<Drag | null>(null);

  const starts = useMemo(
    () => (histogram?.buckets ?? []).map((bucket) => parseApiDateTime(bucket.start) ?? 0),
    [histogram],
  );
  const counts = useMemo(() => (histogram?.buckets ?? []).map((b) => b.count), [histogram]);
  const max = Math.max(1, ...counts);
  const interval = histogram?.interval ?? 'day';
  const bounds = histogram?.bounds;
  // Each bar's span, the first and last cut to the range asked for (barSpan).
  const span = (index: number) => barSpan(starts, index, interval, zone, bounds);

  const indexAt = (clientX: number): number => {
    const box = barsRef.current?.getBoundingClientRect();
    if (!box || starts.length === 0) return 0;
    const ratio = (clientX - box.left) / box.width;
    return Math.min(starts.length - 1, Math.max(0, Math.floor(ratio * starts.length)));
  };

  const commit = (range: Drag) => {
    const picked = selectionRange(starts, interval, range.anchor, range.current, zone, bounds);
    if (picked) onSelect(picked);
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0 || starts.length === 0) return;
    event.currentTarget.setPointerCapture(event.pointerId);
    const index = indexAt(event.clientX);
    setDrag({ anchor: index, current: index });
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (!drag) return;
    const index = indexAt(event.clientX);
    if (index !== drag.current) setDrag({ ...drag, current: index });
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    if (!drag) return;
    const done = { ...drag, current: indexAt(event.clientX) };
    setDrag(null);
    commit(done);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (starts.length === 0) return;
    const last = starts.length - 1;
    const move = (to: number) => {
      event.preventDefault();
      const index = Math.min(last, Math.max(0, to));
      setCursor((current) =>
        event.shiftKey && current
          ? { ...current, current: index }
          : { anchor: index, current: index },
      );
    };
    const at = cursor?.current ?? last;
    if (event.key === 'ArrowLeft') move(cursor ? at - 1 : last);
    else if (event.key === 'ArrowRight') move(cursor ? at + 1 : last);
    else if (event.key === 'Home') move(0);
    else if (event.key === 'End') move(last);
    else if (event.key === 'Enter' && cursor) {
      event.preventDefault();
      commit(cursor);
      setCursor(null);
    } else if (event.key === 'Escape' && cursor) {
      event.stopPropagation();
      setCursor(null);
    }
  };

  const shown = drag ?? cursor;
  const low = shown ? Math.min(shown.anchor, shown.current) : -1;
  const high = shown ? Math.max(shown.anchor, shown.current) : -1;
  /** Bars `first` to `last` in words: their span and how many events they hold. */
  const describe = (first: number, last = first) => {
    const count = counts.slice(first, last + 1).reduce((sum, n) => sum + n, 0);
    // Where the offset changes within the bars, both ends carry theirs: the
    // hour's bar as the clocks go forward read "01:00:00 – 03:00:00".
    const words = formatSpan(span(first).start, span(last).end, zone);
    return `${words.start} – ${words.end}${words.note ? ` (${words.note})` : ''}: ${events(count)}`;
  };
  // What is picked: shown, and read as the slider's value (which named the
  // bar under the cursor alone while Shift widened the pick).
  const selection = shown ? describe(low, high) : null;
  const firstStart = starts.length ? span(0).start : undefined;
  const lastEnd = starts.length ? span(starts.length - 1).end : undefined;

  return (
    <section className="histogram" aria-label="Events over time" data-stale={busy || undefined}>
      <div className="histogram-head">
        <span className="muted small">
          {histogram
            ? `${events(histogram.totalCount)} · ${perBucket(histogram.interval)}`
            : failed
              ? 'The volume chart could not be loaded.'
              : 'Counting…'}
        </span>
        <span className="muted small" aria-live="polite">
          {selection !== null
            ? `${selection}${cursor ? ' · Enter to apply' : ''}`
            : starts.length > 0
              ? 'Drag across the bars to zoom in'
              : null}
        </span>
      </div>
      <div
        ref={barsRef}
        className="histogram-bars"
        role="slider"
        tabIndex={starts.length ? 0 : -1}
        aria-label="Date range: arrow keys pick bars, Shift widens, Enter applies"
        aria-valuemin={0}
        aria-valuemax={Math.max(0, starts.length - 1)}
        aria-valuenow={shown ? shown.current : Math.max(0, starts.length - 1)}
        aria-valuetext={starts.length ? (selection ?? describe(starts.length - 1)) : 'No events'}
        data-testid="histogram"
        data-interval={interval}
        data-buckets={starts.length}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={() => setDrag(null)}
        onKeyDown={onKeyDown}
        onBlur={() => setCursor(null)}
      >
        {counts.map((count, index) => (
          <span
            key={index}
            className="histogram-bar"
            data-selected={(index >= low && index <= high) || undefined}
            data-count={count}
            title={describe(index)}
          >
            <span style={{ height: count === 0 ? 0 : `${Math.max(3, (count / max) * 100)}%` }} />
          </span>
        ))}
      </div>
      <div className="histogram-axis muted small" aria-hidden="true">
        <span>{firstStart === undefined ? '' : formatTimestamp(firstStart, zone)}</span>
        <span>{lastEnd === undefined ? '' : formatTimestamp(lastEnd, zone)}</span>
      </div>
    </section>
  );
});
