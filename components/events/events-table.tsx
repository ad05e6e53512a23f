'use client';

import { type Row, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import {
  type FocusEvent,
  type KeyboardEvent,
  type MouseEvent,
  type PointerEvent,
  type Ref,
  memo,
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useId,
  useState,
} from 'react';
import { flushSync } from 'react-dom';
import type { PivotColumn } from '@/lib/client/pivots';
import type { ApiEvent } from '@/lib/client/present';
import type { Density } from '@/lib/client/table-prefs';
import { COLUMNS, type EventsTableMeta } from './event-columns';
import { whenIdle } from './timing';

export type { EventsTableMeta } from './event-columns';

type RowProps = {
  row: Row<ApiEvent>;
  index: number;
  ariaRowIndex: number;
  isActive: boolean;
  isFocusTarget: boolean;
  zone: string;
  /** Changes when the columns shown or their order change. */
  columnsKey: string;
  isPicked: boolean;
  now: number | null;
};

/** Re-renders only when its own event, activity, pick, columns, the zone or the clock change. */
const EventRow = memo(function EventRow({
  row,
  index,
  ariaRowIndex,
  isActive,
  isFocusTarget,
  isPicked,
}: RowProps) {
  return (
    <tr
      data-index={index}
      data-event-id={row.original.id}
      aria-rowindex={ariaRowIndex}
      aria-selected={isActive}
      data-picked={isPicked || undefined}
      tabIndex={isFocusTarget ? 0 : -1}
    >
      {row.getVisibleCells().map((cell) => (
        // Keyed by column, not cell id (which embeds the event id), so a
        // row's cells survive a change of event.
        <td key={cell.column.id} className={`col-${cell.column.id}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
    </tr>
  );
});

/** What the page may ask of the table: bring a row into view, with or without focus. */
export type EventsTableHandle = {
  focusRow: (index: number) => void;
  revealRow: (index: number) => void;
  /** Whether the reader is at the top of the list (new rows may slide in). */
  isAtTop: () => boolean;
};

/**
 * Pages of up to this many rows render every row; longer ones (up to 500)
 * render only the rows in view plus a margin, so a page change costs the same
 * whatever the page size. Rows have one fixed height (CSS), which the window
 * arithmetic relies on.
 */
const WINDOW_THRESHOLD = 100;
const OVERSCAN = 10;
const INITIAL_WINDOW = 40;
const FALLBACK_ROW_HEIGHT = 49;

type Range = { start: number; end: number };

type Props = {
  events: ApiEvent[];
  totalCount: number;
  offset: number;
  page: number;
  pageSize: number;
  meta: EventsTableMeta;
  activeIndex: number | null;
  /** The next rows are loading (for assistive technology). */
  busy: boolean;
  /** They have been loading long enough to dim the rows on screen. */
  stale: boolean;
  caption: string;
  /** Column ids in display order, and the hidden ones. */
  columnOrder: string[];
  hiddenColumns: readonly string[];
  density: Density;
  onActivate: (index: number) => void;
  onOpen: (index: number) => void;
  /** A cell's filter button was pressed: open its click-to-filter menu. */
  onFilterMenu: (index: number, column: PivotColumn, anchor: HTMLElement) => void;
  onRowKeyDown: (event: KeyboardEvent<HTMLTableSectionElement>) => void;
  ref?: Ref<EventsTableHandle>;
};

export function EventsTable({
  events,
  totalCount,
  offset,
  page,
  pageSize,
  meta: tableMeta,
  activeIndex,
  busy,
  stale,
  caption,
  columnOrder,
  hiddenColumns,
  density,
  onActivate,
  onOpen,
  onFilterMenu,
  onRowKeyDown,
  ref,
}: Props) {
  const columnVisibility = Object.fromEntries(hiddenColumns.map((id) => [id, false]));
  const columnsKey = `${columnOrder.join(',')}|${hiddenColumns.join(',')}`;
  // Server-side pagination: the table shows one page and knows the total.
  // Rows are memoized by hand (EventRow), so the compiler skipping this is fine.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: events,
    columns: COLUMNS,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (event) => event.id,
    manualPagination: true,
    rowCount: totalCount,
    state: { pagination: { pageIndex: page - 1, pageSize }, columnOrder, columnVisibility },
    meta: tableMeta,
  });
  const rows = table.getRowModel().rows;
  const focusIndex = activeIndex !== null && activeIndex < rows.length ? activeIndex : 0;

  const wrapRef = useRef<HTMLDivElement>(null);
  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const rowHeight = useRef(FALLBACK_ROW_HEIGHT);
  const windowed = rows.length > WINDOW_THRESHOLD;
  const [range, setRange] = useState<Range>({ start: 0, end: INITIAL_WINDOW });

  /** The rows the scroll position shows, plus the overscan margin. */
  const visibleRange = useCallback(
    (scrollTop?: number): Range | null => {
      const wrap = wrapRef.current;
      const body = bodyRef.current;
      if (!wrap || !body) return null;
      const top = (scrollTop ?? wrap.scrollTop) - body.offsetTop;
      const height = rowHeight.current;
      return {
        start: Math.max(0, Math.floor(top / height) - OVERSCAN),
        end: Math.min(rows.length, Math.ceil((top + wrap.clientHeight) / height) + OVERSCAN),
      };
    },
    [rows.length],
  );

  // A new page starts at its top. The scroll position is tracked from scroll
  // events, so this costs nothing (no forced layout) when already there.
  const scrolled = useRef(false);
  useLayoutEffect(() => {
    if (scrolled.current && wrapRef.current) {
      wrapRef.current.scrollTop = 0;
      scrolled.current = false;
    }
    setRange((current) =>
      current.start === 0 && current.end === INITIAL_WINDOW
        ? current
        : { start: 0, end: INITIAL_WINDOW },
    );
  }, [events]);
  useEffect(() => {
    const wrap = wrapRef.current;
    if (!wrap) return;
    const onScroll = () => {
      scrolled.current = wrap.scrollTop > 0;
    };
    wrap.addEventListener('scroll', onScroll, { passive: true });
    return () => wrap.removeEventListener('scroll', onScroll);
  }, []);

  // Follow scrolling (one update per frame) when windowed.
  useEffect(() => {
    const wrap = wrapRef.current;
    if (!windowed || !wrap) return;
    const measured = bodyRef.current?.querySelector<HTMLElement>('tr[data-index]')?.offsetHeight;
    if (measured) rowHeight.current = measured;
    let frame = 0;
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const next = visibleRange();
        if (next) {
          setRange((current) =>
            current.start === next.start && current.end === next.end ? current : next,
          );
        }
      });
    };
    update();
    wrap.addEventListener('scroll', update, { passive: true });
    window.addEventListener('resize', update);
    return () => {
      cancelAnimationFrame(frame);
      wrap.removeEventListener('scroll', update);
      window.removeEventListener('resize', update);
    };
  }, [windowed, visibleRange]);

  const rowElement = (index: number) =>
    bodyRef.current?.querySelector<HTMLElement>(`tr[data-index="${index}"]`) ?? null;

  /** Scrolls the table so row `index` is in view, rendering it first if windowed. */
  const reveal = useCallback(
    (index: number): HTMLElement | null => {
      const wrap = wrapRef.current;
      const body = bodyRef.current;
      if (!wrap || !body) return null;
      const headHeight = body.offsetTop;
      const rowTop = body.offsetTop + index * rowHeight.current;
      let scrollTop = wrap.scrollTop;
      if (rowTop - headHeight < scrollTop) scrollTop = rowTop - headHeight;
      else if (rowTop + rowHeight.current > scrollTop + wrap.clientHeight) {
        scrollTop = rowTop + rowHeight.current - wrap.clientHeight;
      }
      if (windowed) {
        const next = visibleRange(scrollTop);
        if (next && (index < range.start || index >= range.end)) flushSync(() => setRange(next));
        wrap.scrollTop = scrollTop;
        return rowElement(index);
      }
      const element = rowElement(index);
      element?.scrollIntoView({ block: 'nearest' });
      return element;
    },
    [windowed, visibleRange, range],
  );

  useImperativeHandle(
    ref,
    () => ({
      focusRow: (index) => reveal(index)?.focus({ preventScroll: true }),
      revealRow: (index) => void reveal(index),
      isAtTop: () =>
        (wrapRef.current?.scrollTop ?? 0) < 4 && (document.scrollingElement?.scrollTop ?? 0) < 4,
    }),
    [reveal],
  );

  // The full text of the focused row's cut-off cells, in a tooltip under it.
  const [focusTip, setFocusTip] = useState<FocusTip | null>(null);
  const tipId = useId();
  useEffect(() => {
    if (!focusTip) return;
    const hide = () => setFocusTip(null);
    const wrap = wrapRef.current;
    wrap?.addEventListener('scroll', hide, { passive: true });
    window.addEventListener('resize', hide);
    return () => {
      wrap?.removeEventListener('scroll', hide);
      window.removeEventListener('resize', hide);
    };
  }, [focusTip]);

  const rowIndexOf = (target: EventTarget | null): number | null => {
    const element = (target as HTMLElement | null)?.closest?.('tr[data-index]');
    if (!element) return null;
    const index = Number(element.getAttribute('data-index'));
    return Number.isInteger(index) ? index : null;
  };

  const onClick = (event: MouseEvent<HTMLTableSectionElement>) => {
    const index = rowIndexOf(event.target);
    if (index === null) return;
    const filterButton = (event.target as HTMLElement).closest<HTMLElement>('button.cell-filter');
    if (filterButton) {
      event.preventDefault();
      onFilterMenu(index, filterButton.dataset.pivot as PivotColumn, filterButton);
      return;
    }
    // The compare checkbox toggles itself; it does not open the event.
    if ((event.target as HTMLElement).closest('input')) return;
    const link = (event.target as HTMLElement).closest('a');
    // Modified clicks on the link open the full page in a new tab as usual.
    if (link && (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0)) return;
    event.preventDefault();
    onOpen(index);
  };

  const onFocus = (event: FocusEvent<HTMLTableSectionElement>) => {
    const index = rowIndexOf(event.target);
    if (index !== null && index !== activeIndex) onActivate(index);
    const row = event.target as HTMLElement;
    // A row reached by keyboard shows its cut-off cells whole, as hover does with titles.
    if (row instanceof HTMLTableRowElement && row.matches(':focus-visible')) {
      setFocusTip(cutOffText(row));
    } else setFocusTip(null);
  };
  const onBlur = () => setFocusTip(null);

  // Cut-off text gets its full value as a tooltip, decided on hover: setting
  // titles on every cell of every page would cost more than the rows' text.
  const onPointerOver = (event: PointerEvent<HTMLTableSectionElement>) => {
    const element = (event.target as HTMLElement).closest?.<HTMLElement>('span.line, span.sub');
    if (!element) return;
    element.title = element.scrollWidth > element.clientWidth ? (element.textContent ?? '') : '';
  };

  // After the rows are painted, when the browser is idle, every cut-off cell
  // gets its full text as a title, so hover (and assistive technology reading
  // the cell) has it without waiting; one layout read for the whole page.
  useEffect(() => {
    const body = bodyRef.current;
    if (!body) return;
    return whenIdle(() => {
      const cells = body.querySelectorAll<HTMLElement>('td .line:not(time), td .sub');
      const cut: [HTMLElement, boolean][] = [];
      cells.forEach((element) => cut.push([element, element.scrollWidth > element.clientWidth]));
      for (const [element, isCut] of cut) {
        const title = isCut ? (element.textContent ?? '') : '';
        if (element.title !== title) element.title = title;
      }
    });
  }, [events, range, columnsKey, density]);

  const visibleCount = table.getVisibleLeafColumns().length;
  const start = windowed ? Math.min(range.start, rows.length) : 0;
  const end = windowed ? Math.min(Math.max(range.end, start), rows.length) : rows.length;
  // The roving tab stop must exist: keep it inside the rendered window.
  const tabStop = focusIndex >= start && focusIndex < end ? focusIndex : start;

  return (
    <div className="table-wrap" ref={wrapRef}>
      {focusTip ? (
        <div
          id={tipId}
          role="tooltip"
          className="row-tooltip"
          data-testid="row-tooltip"
          style={{ top: focusTip.top, left: focusTip.left }}
        >
          {focusTip.items.map((item, index) => (
            <div key={index}>
              <span className="muted">{item.column}: </span>
              {item.text}
            </div>
          ))}
        </div>
      ) : null}
      <table
        className="events"
        aria-rowcount={totalCount + 1}
        aria-busy={busy}
        data-stale={stale}
        data-density={density}
      >
        <caption className="visually-hidden">{caption}</caption>
        <colgroup>
          {table.getVisibleLeafColumns().map((col) => (
            <col key={col.id} className={`col-${col.id}`} />
          ))}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} aria-rowindex={1}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className={`col-${header.column.id}`}>
                  {flexRender(header.column.columnDef.header, header.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody
          ref={bodyRef}
          onClick={onClick}
          onKeyDown={onRowKeyDown}
          onFocus={onFocus}
          onBlur={onBlur}
          onPointerOver={onPointerOver}
          data-rows={rows.length}
        >
          {start > 0 ? (
            <tr className="spacer" aria-hidden="true" style={{ height: start * rowHeight.current }}>
              <td colSpan={visibleCount} />
            </tr>
          ) : null}
          {rows.slice(start, end).map((row, slot) => {
            const index = start + slot;
            return (
              // Keyed by position: a new page reuses the rows' DOM and only
              // rewrites their text, several times cheaper than new rows.
              <EventRow
                key={index}
                row={row}
                index={index}
                ariaRowIndex={offset + index + 2}
                isActive={index === activeIndex}
                isFocusTarget={index === tabStop}
                zone={tableMeta.zone}
                columnsKey={columnsKey}
                isPicked={tableMeta.picked.has(row.original.id)}
                now={tableMeta.now}
              />
            );
          })}
          {end < rows.length ? (
            <tr
              className="spacer"
              aria-hidden="true"
              style={{ height: (rows.length - end) * rowHeight.current }}
            >
              <td colSpan={visibleCount} />
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}

type FocusTip = { top: number; left: number; items: { column: string; text: string }[] };

/** The row's cut-off cell texts with their column names, placed under the row; null when none. */
function cutOffText(row: HTMLTableRowElement): FocusTip | null {
  const table = row.closest('table');
  const headers = [...(table?.querySelectorAll<HTMLElement>('thead th') ?? [])];
  const items: FocusTip['items'] = [];
  let left: number | null = null;
  [...row.cells].forEach((cell, index) => {
    for (const part of cell.querySelectorAll<HTMLElement>('.line, .sub')) {
      if (part.scrollWidth <= part.clientWidth || !part.textContent) continue;
      items.push({ column: headers[index]?.textContent ?? '', text: part.textContent });
      left ??= cell.getBoundingClientRect().left;
    }
  });
  if (items.length === 0 || left === null) return null;
  const box = row.getBoundingClientRect();
  return { top: box.bottom + 2, left: Math.min(left, window.innerWidth - 320), items };
}

/** Placeholder rows with the table's own shape while the first page loads. */
export function EventsTableSkeleton({ rows }: { rows: number }) {
  return (
    <div className="table-wrap" aria-hidden="true">
      <table className="events">
        <colgroup>
          {COLUMNS.map((col) => (
            <col key={col.id} className={`col-${col.id}`} />
          ))}
        </colgroup>
        <thead>
          <tr>
            {[
              '',
              'Time',
              'Event type',
              'Actor',
              'Target',
              'Project / cluster / host',
              'Remote address',
              'Summary',
            ].map((title) => (
              <th key={title || 'pick'} scope="col">
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: rows }, (_, index) => (
            <tr key={index}>
              {COLUMNS.map((col) => (
                <td key={col.id}>
                  <span
                    className="skeleton-line"
                    style={{ width: `${55 + ((index * 7 + col.id!.length * 13) % 40)}%` }}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
