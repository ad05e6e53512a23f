'use client';

import { type FormEvent, useId, useState } from 'react';
import { PAGE_SIZE_OPTIONS, pageCount } from '@/lib/client/url-state';

type Props = {
  page: number;
  pageSize: number;
  totalCount: number;
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
  /** Warm the cache when the pointer or focus lands on a page button. */
  onPrefetch: (page: number) => void;
};

const NUMBER = new Intl.NumberFormat('en-US');

/** Page numbers around the current one, with the first and last always reachable. */
export function pageWindow(page: number, last: number, radius = 2): (number | 'gap')[] {
  const pages = new Set<number>([1, last]);
  for (let p = page - radius; p <= page + radius; p++) if (p >= 1 && p <= last) pages.add(p);
  const sorted = [...pages].sort((a, b) => a - b);
  const out: (number | 'gap')[] = [];
  sorted.forEach((p, index) => {
    const previous = sorted[index - 1];
    if (previous !== undefined && p - previous > 1) out.push('gap');
    out.push(p);
  });
  return out;
}

export function Pagination({ page, pageSize, totalCount, onPage, onPageSize, onPrefetch }: Props) {
  const last = pageCount(totalCount, pageSize);
  const jumpId = useId();
  const sizeId = useId();
  const [jump, setJump] = useState('');
  const first = totalCount === 0 ? 0 : (page - 1) * pageSize + 1;
  const lastRow = Math.min(page * pageSize, totalCount);

  const go = (target: number) => {
    // From past the end, "Previous" is the last page too.
    const clamped = Math.min(Math.max(1, page > last ? Math.min(target, last) : target), last);
    if (clamped !== page) onPage(clamped);
  };

  const onJump = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const target = Number(jump.replace(/[,\s]/g, ''));
    if (Number.isInteger(target) && target >= 1) {
      go(target);
      setJump('');
    }
  };

  const hover = (target: number) => () => {
    if (target >= 1 && target <= last && target !== page) onPrefetch(target);
  };

  return (
    <nav className="pagination" aria-label="Pagination">
      <span aria-live="polite" data-testid="page-summary">
        {totalCount === 0 ? (
          'No events'
        ) : page > last ? (
          <>
            No events on page <strong>{NUMBER.format(page)}</strong>; the last page is{' '}
            <strong>{NUMBER.format(last)}</strong> (
            <strong data-testid="total-count">{NUMBER.format(totalCount)}</strong> events)
          </>
        ) : (
          <>
            Showing <strong>{NUMBER.format(first)}</strong>–
            <strong>{NUMBER.format(lastRow)}</strong> of{' '}
            <strong data-testid="total-count">{NUMBER.format(totalCount)}</strong> events · page{' '}
            <strong>{NUMBER.format(page)}</strong> of <strong>{NUMBER.format(last)}</strong>
          </>
        )}
      </span>
      <div className="pages">
        <button
          type="button"
          className="button small"
          onClick={() => go(1)}
          disabled={page <= 1}
          aria-label="First page"
          onPointerEnter={hover(1)}
        >
          « First
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => go(page - 1)}
          disabled={page <= 1}
          aria-label="Previous page"
          onPointerEnter={hover(page - 1)}
        >
          {/* Its name must hold the word it shows (WCAG 2.5.3): "Prev" is no word of "Previous page". */}
          ‹ Previous
        </button>
        {pageWindow(Math.min(page, last), last).map((item, index) =>
          item === 'gap' ? (
            <span key={`gap-${index}`} className="ellipsis" aria-hidden="true">
              …
            </span>
          ) : (
            <button
              key={item}
              type="button"
              className="button small"
              aria-label={`Page ${NUMBER.format(item)}`}
              aria-current={item === page ? 'page' : undefined}
              onClick={() => go(item)}
              onPointerEnter={hover(item)}
              onFocus={hover(item)}
            >
              {NUMBER.format(item)}
            </button>
          ),
        )}
        <button
          type="button"
          className="button small"
          onClick={() => go(page + 1)}
          disabled={page >= last}
          aria-label="Next page"
          onPointerEnter={hover(page + 1)}
        >
          Next ›
        </button>
        <button
          type="button"
          className="button small"
          onClick={() => go(last)}
          disabled={page === last}
          aria-label="Last page"
          onPointerEnter={hover(last)}
        >
          Last »
        </button>
      </div>
      <form onSubmit={onJump}>
        <label htmlFor={jumpId}>Go to page</label>
        <input
          id={jumpId}
          className="input page-input"
          inputMode="numeric"
          pattern="[0-9,]*"
          placeholder={`1–${NUMBER.format(last)}`}
          value={jump}
          onChange={(event) => setJump(event.target.value)}
        />
        <button type="submit" className="button small">
          Go
        </button>
      </form>
      <span>
        <label htmlFor={sizeId}>Rows per page </label>
        <select
          id={sizeId}
          className="select"
          value={pageSize}
          onChange={(event) => onPageSize(Number(event.target.value))}
        >
          {[...new Set<number>([...PAGE_SIZE_OPTIONS, pageSize])]
            .sort((a, b) => a - b)
            .map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
        </select>
      </span>
    </nav>
  );
}
