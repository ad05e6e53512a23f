'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type KeyboardEvent as ReactKeyboardEvent,
  useCallback,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from 'react';
import { eventTypeLabel } from '@/lib/events/catalog';
import { ApiRequestError, eventsListQueryOptions } from '@/lib/events/query-options';
import {
  type EventsView,
  RANGE_PRESETS,
  RANGE_PRESET_LABELS,
  type RangePreset,
  eventPath,
  eventsViewHref,
  hasFilters,
  listParams,
  pageCount,
} from '@/lib/events/search-params';
import { formatTimestamp, formatZoneOffset } from '@/lib/format/date';
import { DateRangeFilter } from './date-range-filter';
import { EventDetail } from './event-detail';
import { EventPanel } from './event-panel';
import { EventTypePicker } from './event-type-picker';
import {
  EventsTable,
  type EventsTableHandle,
  type EventsTableMeta,
  EventsTableSkeleton,
} from './events-table';
import { Pagination } from './pagination';
import { TimeZoneSwitch } from './time-zone-switch';
import { useEventsView, useLocalZone } from './use-events-view';

type Props = {
  orgId: string;
  orgName: string;
  /** The browser zone the server rendered with (from the zone cookie). */
  serverZone: string;
  /** The query string of the view the server rendered (with a leading '?', or empty). */
  serverSearch: string;
};

const NUMBER = new Intl.NumberFormat('en-US');
const SLOW_LOAD_MS = 200;

/** `value`, but turning true only once it has stayed true for `delayMs`. */
function useDelayedFlag(value: boolean, delayMs: number): boolean {
  const [delayed, setDelayed] = useState(false);
  useEffect(() => {
    if (!value) return;
    const timer = setTimeout(() => setDelayed(true), delayMs);
    return () => {
      clearTimeout(timer);
      setDelayed(false);
    };
  }, [value, delayMs]);
  return value && delayed;
}

function isTypingTarget(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || !element.tagName) return false;
  return (
    element.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName) ||
    element.closest('.popover') !== null
  );
}

/** Runs work when the browser is idle (or soon, where it has no idle callback). */
function whenIdle(work: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(work, { timeout: 500 });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = window.setTimeout(work, 50);
  return () => window.clearTimeout(handle);
}

/** Names the active filters in words, for the results line and the empty state. */
function describeFilters(view: EventsView, zone: string): string[] {
  const parts: string[] = [];
  if (view.types.length) {
    parts.push(`event type ${view.types.map((type) => eventTypeLabel(type)).join(', ')}`);
  }
  if (view.range) parts.push(RANGE_PRESET_LABELS[view.range].toLowerCase());
  const zoneLabel = (millis: number) =>
    `${formatTimestamp(millis, zone)} ${formatZoneOffset(millis, zone)}`;
  if (!view.range && view.from !== null && view.to !== null) {
    parts.push(`from ${zoneLabel(view.from)} to ${zoneLabel(view.to)}`);
  } else if (!view.range && view.from !== null) {
    parts.push(`from ${zoneLabel(view.from)}`);
  } else if (!view.range && view.to !== null) {
    parts.push(`until ${zoneLabel(view.to)}`);
  }
  return parts;
}

/** The next wider preset, for "widen the date range" in the empty state. */
function widerRange(range: RangePreset): RangePreset | null {
  const index = RANGE_PRESETS.indexOf(range);
  return RANGE_PRESETS[index + 1] ?? null;
}

/**
 * The events page: filters, the server-paginated table, pagination and the
 * detail panel, all driven by the URL. The first page arrives rendered from
 * the server; later pages come from the same public API routes.
 */
export function EventsExplorer({ orgId, orgName, serverZone, serverSearch }: Props) {
  const localZone = useLocalZone(serverZone);
  const { view, zone, navigate } = useEventsView(orgId, localZone, serverSearch);
  const queryClient = useQueryClient();
  const titleId = useId();
  const tableRef = useRef<EventsTableHandle>(null);

  const params = useMemo(() => listParams(orgId, view), [orgId, view]);
  const query = useQuery(eventsListQueryOptions(params));
  const events = useMemo(() => query.data?.results ?? [], [query.data]);
  const totalCount = query.data?.totalCount ?? 0;
  const lastPage = pageCount(totalCount, view.size);

  // The view the rows on screen belong to. While the next rows load, the
  // previous ones stay on screen with their own row numbers and description,
  // so they are not re-rendered at all (derived state, updated during render).
  const [shown, setShown] = useState(view);
  if (query.data && !query.isPlaceholderData && shown !== view) setShown(view);

  // The row keyboard focus is on; it follows the open event.
  const [activeId, setActiveId] = useState<string | null>(null);
  const openIndex = view.event ? events.findIndex((event) => event.id === view.event) : -1;
  const activeIndex = useMemo(() => {
    if (openIndex >= 0) return openIndex;
    const index = activeId ? events.findIndex((event) => event.id === activeId) : -1;
    return index >= 0 ? index : null;
  }, [openIndex, activeId, events]);

  // Filters, page size and paging start from page 1 / close the panel.
  const update = useCallback(
    (patch: Partial<EventsView>) => navigate({ ...view, event: null, page: 1, ...patch }),
    [navigate, view],
  );
  const goToPage = useCallback(
    (page: number) => navigate({ ...view, event: null, page }),
    [navigate, view],
  );
  const prefetchPage = useCallback(
    (page: number) => void queryClient.prefetchQuery(eventsListQueryOptions({ ...params, page })),
    [queryClient, params],
  );

  // Warm the next page while the user reads this one, so paging is instant.
  useEffect(() => {
    if (!query.isSuccess || query.isPlaceholderData || params.page >= lastPage) return;
    return whenIdle(() => prefetchPage(params.page + 1));
  }, [query.isSuccess, query.isPlaceholderData, params.page, lastPage, prefetchPage]);

  const openEvent = useCallback(
    (index: number) => {
      const event = events[index];
      if (!event) return;
      setActiveId(event.id);
      navigate({ ...view, event: event.id });
    },
    [events, navigate, view],
  );

  const closePanel = useCallback(() => {
    const closing = view.event;
    navigate({ ...view, event: null });
    // Focus goes back to the row the panel was about.
    requestAnimationFrame(() => {
      const index = events.findIndex((event) => event.id === closing);
      if (index >= 0) tableRef.current?.focusRow(index);
    });
  }, [events, navigate, view]);

  const moveBy = useCallback(
    (delta: number, focusRow: boolean) => {
      if (events.length === 0) return;
      const current = activeIndex ?? (delta > 0 ? -1 : events.length);
      const next = Math.min(Math.max(current + delta, 0), events.length - 1);
      const event = events[next]!;
      setActiveId(event.id);
      // With the panel open it follows the selection (one history entry, not one per key).
      if (view.event) navigate({ ...view, event: event.id }, 'replace');
      if (focusRow) tableRef.current?.focusRow(next);
      else tableRef.current?.revealRow(next);
    },
    [activeIndex, events, navigate, view],
  );

  // j/k anywhere on the page, Esc to close the panel.
  const panelOpen = view.event !== null;
  const latest = useRef({ moveBy, closePanel, panelOpen });
  useEffect(() => {
    latest.current = { moveBy, closePanel, panelOpen };
  });
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === 'Escape' && latest.current.panelOpen) {
        if ((event.target as HTMLElement | null)?.closest?.('.popover')) return;
        event.preventDefault();
        latest.current.closePanel();
        return;
      }
      if (isTypingTarget(event.target)) return;
      const inPanel = (event.target as HTMLElement | null)?.closest?.('.panel') !== null;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        latest.current.moveBy(event.key === 'j' ? 1 : -1, !inPanel);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  // ↑/↓ and Enter on the rows themselves.
  const onRowKeyDown = useCallback(
    (event: ReactKeyboardEvent<HTMLTableSectionElement>) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        moveBy(event.key === 'ArrowDown' ? 1 : -1, true);
      } else if (event.key === 'Home' || event.key === 'End') {
        event.preventDefault();
        moveBy(event.key === 'Home' ? -events.length : events.length, true);
      } else if (event.key === 'Enter') {
        const row = (event.target as HTMLElement).closest('tr[data-index]');
        if (!row) return;
        event.preventDefault();
        openEvent(Number(row.getAttribute('data-index')));
      }
    },
    [events.length, moveBy, openEvent],
  );

  const fullPageHref = useCallback(
    (eventId: string) => `${eventPath(orgId, eventId)}${view.tz === 'local' ? '?tz=local' : ''}`,
    [orgId, view.tz],
  );
  const tableMeta = useMemo<EventsTableMeta>(
    () => ({ zone, localZone, eventHref: fullPageHref }),
    [zone, localZone, fullPageHref],
  );

  const filters = describeFilters(view, zone);
  const shownFilters = describeFilters(shown, zone);
  const busy = query.isFetching && query.isPlaceholderData;
  // Loading indicators appear only for loads slow enough to notice: a fast
  // change goes straight from the old rows to the new ones, with no extra paint.
  const slow = useDelayedFlag(busy || (query.isFetching && !query.data), SLOW_LOAD_MS);
  const offset = (shown.page - 1) * shown.size;
  const openInList = openIndex >= 0 ? events[openIndex] : undefined;

  let content;
  if (query.isPending) {
    content = (
      <div className="table-loading" role="status" aria-label="Loading events">
        <EventsTableSkeleton rows={Math.min(view.size, 12)} />
      </div>
    );
  } else if (query.isError && !query.data) {
    const error = query.error;
    content = (
      <div className="notice error" role="alert">
        <h2>Events could not be loaded</h2>
        <p>
          {error instanceof ApiRequestError && error.status === 429
            ? `Too many requests. Try again in ${error.retryAfterSeconds ?? 'a few'} seconds.`
            : (error.message ?? 'Something went wrong.')}
        </p>
        <div className="actions">
          <button type="button" className="button primary" onClick={() => void query.refetch()}>
            Retry
          </button>
        </div>
      </div>
    );
  } else if (events.length === 0) {
    content =
      totalCount > 0 && view.page > lastPage ? (
        <div className="notice" data-testid="empty-state">
          <h2>This page is past the end</h2>
          <p>
            Page {NUMBER.format(view.page)} is beyond the last page ({NUMBER.format(lastPage)}) of{' '}
            {NUMBER.format(totalCount)} events.
          </p>
          <div className="actions">
            <button type="button" className="button primary" onClick={() => goToPage(lastPage)}>
              Go to the last page
            </button>
          </div>
        </div>
      ) : hasFilters(view) ? (
        <div className="notice" data-testid="empty-state">
          <h2>No events match these filters</h2>
          <p>No events with {filters.join(', ')}.</p>
          <div className="actions">
            {view.range && widerRange(view.range) ? (
              <button
                type="button"
                className="button"
                onClick={() => update({ range: widerRange(view.range!) })}
              >
                Widen to {RANGE_PRESET_LABELS[widerRange(view.range)!].toLowerCase()}
              </button>
            ) : null}
            {view.range || view.from !== null || view.to !== null ? (
              <button
                type="button"
                className="button"
                onClick={() => update({ range: null, from: null, to: null })}
              >
                Any time
              </button>
            ) : null}
            {view.types.length ? (
              <button type="button" className="button" onClick={() => update({ types: [] })}>
                All event types
              </button>
            ) : null}
            <button
              type="button"
              className="button primary"
              onClick={() => update({ types: [], range: null, from: null, to: null })}
            >
              Clear all filters
            </button>
          </div>
        </div>
      ) : (
        <div className="notice" data-testid="empty-state">
          <h2>No events yet</h2>
          <p>This organization has no recorded events.</p>
        </div>
      );
  } else {
    content = (
      <EventsTable
        ref={tableRef}
        events={events}
        totalCount={totalCount}
        offset={offset}
        page={shown.page}
        pageSize={shown.size}
        meta={tableMeta}
        activeIndex={activeIndex}
        busy={busy}
        stale={slow && busy}
        caption={`Events of ${orgName}, newest first, page ${view.page} of ${lastPage}`}
        onActivate={(index) => setActiveId(events[index]?.id ?? null)}
        onOpen={openEvent}
        onRowKeyDown={onRowKeyDown}
      />
    );
  }

  return (
    <main id="main" className="page events-page">
      <h1>Events</h1>
      <div className="toolbar" role="search" aria-label="Filter events">
        <div className="group">
          <span className="label">Event types</span>
          <EventTypePicker
            orgId={orgId}
            selected={view.types}
            onApply={(types) => update({ types })}
          />
        </div>
        <DateRangeFilter
          range={view.range}
          from={view.from}
          to={view.to}
          zone={zone}
          onChange={(range) => update(range)}
        />
        <TimeZoneSwitch
          mode={view.tz}
          localZone={localZone}
          onChange={(tz) => navigate({ ...view, tz })}
        />
      </div>
      <div className="chips" aria-label="Active filters">
        {view.types.map((type) => (
          <span key={type} className="chip">
            {eventTypeLabel(type)} <code className="muted">{type}</code>
            <button
              type="button"
              aria-label={`Remove event type ${eventTypeLabel(type)}`}
              onClick={() => update({ types: view.types.filter((t) => t !== type) })}
            >
              ✕
            </button>
          </span>
        ))}
        {filters.length && hasFilters(view) ? (
          <button
            type="button"
            className="button small ghost"
            onClick={() => update({ types: [], range: null, from: null, to: null })}
          >
            Clear all filters
          </button>
        ) : null}
      </div>
      <div className="results-bar" aria-live="polite">
        <span>
          {query.data ? (
            <>
              <strong data-testid="results-count">{NUMBER.format(totalCount)}</strong>{' '}
              {totalCount === 1 ? 'event' : 'events'}
              {shownFilters.length ? ` with ${shownFilters.join(', ')}` : ''}
            </>
          ) : query.isPending ? (
            'Loading events…'
          ) : null}
        </span>
        <span className="hint">↑/↓ or j/k to move · Enter to open · Esc to close</span>
      </div>
      <div className="progress" data-active={slow} aria-hidden="true" />
      {content}
      {query.data && totalCount > 0 ? (
        <Pagination
          page={view.page}
          pageSize={view.size}
          totalCount={totalCount}
          onPage={goToPage}
          onPageSize={(size) => update({ size })}
          onPrefetch={prefetchPage}
        />
      ) : null}
      {view.event ? (
        <EventPanel
          titleId={titleId}
          onClose={closePanel}
          onPrevious={openIndex > 0 ? () => moveBy(-1, false) : null}
          onNext={openIndex >= 0 && openIndex < events.length - 1 ? () => moveBy(1, false) : null}
        >
          <EventDetail
            orgId={orgId}
            eventId={view.event}
            zone={zone}
            localZone={localZone}
            headingLevel="h2"
            titleId={titleId}
            initialEvent={openInList}
            permalink={() => `${window.location.origin}${eventsViewHref(orgId, view, localZone)}`}
            fullPageHref={fullPageHref(view.event)}
          />
        </EventPanel>
      ) : null}
    </main>
  );
}
