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
import { eventTypeLabel } from '@/lib/domain/catalog';
import { eventsListQueryOptions } from '@/lib/client/api-client';
import {
  type EventsView,
  eventPath,
  eventsViewHref,
  listParams,
  pageCount,
} from '@/lib/client/url-state';
import { DateRangeFilter } from './date-range-filter';
import { describeFilters } from './describe-view';
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
import { ActiveFilters, EmptyResults, LoadErrorNotice } from './result-states';
import { useDelayedFlag, whenIdle } from './timing';
import { TimeZoneSwitch } from './time-zone-switch';
import { useEventsView, useLocalZone } from './use-events-view';
import { usePageShortcuts } from './use-page-shortcuts';

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
  usePageShortcuts({ moveBy, closePanel, panelOpen: view.event !== null });

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
    content = <LoadErrorNotice error={query.error} onRetry={() => void query.refetch()} />;
  } else if (events.length === 0) {
    content = (
      <EmptyResults
        view={view}
        zone={zone}
        totalCount={totalCount}
        lastPage={lastPage}
        onUpdate={update}
        onGoToPage={goToPage}
      />
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
      <ActiveFilters view={view} onUpdate={update} typeLabel={eventTypeLabel} />
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
