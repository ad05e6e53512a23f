'use client';

import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  type KeyboardEvent as ReactKeyboardEvent,
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { eventTypeLabel } from '@/lib/domain/catalog';
import {
  countsOrgEvents,
  eventTypesQueryOptions,
  eventsListQueryOptions,
  facetsQueryOptions,
  histogramQueryOptions,
  sameFilters,
} from '@/lib/client/api-client';
import { type Pivot, type PivotColumn, columnPivots, eventPivots } from '@/lib/client/pivots';
import {
  type ChipKey,
  type CompletionSource,
  type InvestigationFilters,
  closeValues,
  facetFieldOf,
  facetedFilters,
  toggleChip,
  withoutKey,
} from '@/lib/client/query-syntax';
import { FACET_FIELDS, type FacetField, MAX_FACET_LIMIT } from '@/lib/domain/filters';
import type { SavedViewJson, SavedViewState } from '@/lib/client/saved-views';
import {
  DEFAULT_TABLE_PREFS,
  type TablePrefs,
  loadTablePrefs,
  normalizeTablePrefs,
  saveTablePrefs,
  subscribeTablePrefs,
  tablePrefsKey,
} from '@/lib/client/table-prefs';
import {
  type EventTab,
  type EventsView,
  aroundEvent,
  eventPageHref,
  eventsViewHref,
  listParams,
  notAppliedInUrl,
  pageCount,
  pageForNewSize,
  parseEventsView,
  pivotedView,
  serializeEventsView,
  withoutUnknownTypes,
} from '@/lib/client/url-state';
import { useMediaQuery } from '@/components/use-media-query';
import { useNow } from '@/components/use-now';
import { ColumnMenu } from './column-menu';
import { ExportControl } from './export-control';
import { CompareDialog } from './compare-dialog';
import { DateRangeFilter } from './date-range-filter';
import { describeFiltersPhrase } from './describe-view';
import { type DetailFilters, EventDetail } from './event-detail';
import { EventPanel } from './event-panel';
import { EventTypePicker } from './event-type-picker';
import { FacetSidebar } from './facet-sidebar';
import { FilterMenu, type FilterMenuRequest } from './filter-menu';
import { QueryBar } from './query-bar';
import { VolumeHistogram } from './volume-histogram';
import {
  EventsTable,
  type EventsTableHandle,
  type EventsTableMeta,
  EventsTableSkeleton,
} from './events-table';
import { Pagination } from './pagination';
import { EmptyResults, LoadErrorNotice } from './result-states';
import { useDelayedFlag, whenIdle } from './timing';
import { TimeZoneSwitch } from './time-zone-switch';
import { useEventsView, useLocalZone } from './use-events-view';
import { useNewerCount, usePageVisible } from './use-live-events';
import { usePageShortcuts } from './use-page-shortcuts';
import { SavedViewsMenu } from './saved-views-menu';
import './investigate.css';

type Props = {
  orgId: string;
  orgName: string;
  /** The signed-in key: column choices are kept per key and org. */
  publicKey: string;
  /** The browser zone the server rendered with (from the zone cookie). */
  serverZone: string;
  /** The query string of the view the server rendered (with a leading '?', or empty). */
  serverSearch: string;
};

const NUMBER = new Intl.NumberFormat('en-US');
/** Under the filters, on one line: cut where the panel beside the list leaves less room (its title has it whole). */
const KEYS_HINT =
  '↑/↓ or j/k to move · Enter to open · f to filter · Space to pick for compare · Esc to close';
const SLOW_LOAD_MS = 200;
/** The results area: the skip link's target, and where focus goes when the empty state's buttons go away. */
const RESULTS_ID = 'events-results';
const focusResults = () => document.getElementById(RESULTS_ID)?.focus();

/** Up to 760 px the facet sidebar opens as a sheet over the page (investigate.css has the same query). */
const NARROW_QUERY = '(max-width: 760px)';

/**
 * The events page: filters, the server-paginated table, pagination and the
 * detail panel, all driven by the URL. The first page arrives rendered from
 * the server; later pages come from the same public API routes.
 */
export function EventsExplorer({ orgId, orgName, publicKey, serverZone, serverSearch }: Props) {
  const localZone = useLocalZone(serverZone);
  const { view: urlView, search, zone, navigate } = useEventsView(orgId, localZone, serverSearch);
  const queryClient = useQueryClient();
  // Event types the org's catalogue lacks are left out of every request (the
  // API refuses them) and named in the not-applied notice, as are the values
  // of the URL that could not be read; the next change writes a URL without them.
  const typesQuery = useQuery(eventTypesQueryOptions(orgId));
  const catalogue = useMemo(
    () => typesQuery.data?.results.map((entry) => entry.eventTypeName) ?? null,
    [typesQuery.data],
  );
  const { view, unknown: unknownTypes } = useMemo(
    () => withoutUnknownTypes(urlView, catalogue),
    [urlView, catalogue],
  );
  const notApplied = useMemo(
    () => [
      ...notAppliedInUrl(new URLSearchParams(search), localZone),
      ...unknownTypes.map((type) => `no event type ${type} in this organization's catalogue`),
    ],
    [search, localZone, unknownTypes],
  );
  // With types in the URL, requests wait for the catalogue (unless it fails:
  // then the API's answer says what is wrong).
  const typesSettled =
    !typesQuery.isPending || (urlView.types.length === 0 && urlView.excludeTypes.length === 0);
  const titleId = useId();
  const tableRef = useRef<EventsTableHandle>(null);

  const params = useMemo(() => listParams(orgId, view), [orgId, view]);
  const now = useNow();

  // Columns and density: this browser's choice for this key and org, read
  // after hydration (the server renders the defaults).
  const prefsKey = tablePrefsKey(publicKey, orgId);
  const prefs = useSyncExternalStore(
    subscribeTablePrefs,
    () => loadTablePrefs(prefsKey),
    () => DEFAULT_TABLE_PREFS,
  );
  const setPrefs = useCallback((next: TablePrefs) => saveTablePrefs(prefsKey, next), [prefsKey]);
  const columnOrder = useMemo(() => ['select', 'time', ...prefs.order], [prefs.order]);

  // Two events picked for comparison (a third replaces the older pick).
  const [picked, setPicked] = useState<string[]>([]);
  // The comparison is of the list it was opened over (the query string then):
  // Back or Forward under it (the only way the view changes while it is open)
  // closes it, as they close the facet sheet. It stayed open, modal, over the
  // event Forward opened, which could not take focus. The picks stay.
  const [comparing, setComparing] = useState<string | null>(null);
  if (comparing !== null && comparing !== search) setComparing(null);
  const pickedSet = useMemo(() => new Set(picked), [picked]);
  const togglePick = useCallback(
    (eventId: string) =>
      setPicked((current) =>
        current.includes(eventId)
          ? current.filter((id) => id !== eventId)
          : [...current, eventId].slice(-2),
      ),
    [],
  );
  // The page, its facets and its histogram: three requests in parallel, keyed
  // by the same filters, each keeping its previous answer on screen until the
  // next one arrives.
  const query = useQuery({ ...eventsListQueryOptions(params), enabled: typesSettled });
  // Facets are counted only for what is on screen: the sidebar's open
  // sections while it shows, every field once the query box wants suggestions.
  const narrow = useMediaQuery(NARROW_QUERY);
  const [facetSheet, setFacetSheet] = useState(false);
  // An event opened with the facet sheet open (by Forward) closes the sheet:
  // the event panel is a sheet too, and modal, and two modals at once each
  // took focus back from the other.
  if (facetSheet && urlView.event) setFacetSheet(false);
  const [suggestionsWanted, setSuggestionsWanted] = useState(false);
  const sidebarShown = narrow ? facetSheet : prefs.facetsOpen;
  const facetFields = useMemo(
    () =>
      FACET_FIELDS.filter((field) => suggestionsWanted || !prefs.collapsedFacets.includes(field)),
    [suggestionsWanted, prefs.collapsedFacets],
  );
  const facetsQuery = useQuery({
    ...facetsQueryOptions(params, facetFields),
    enabled: typesSettled && facetFields.length > 0 && (sidebarShown || suggestionsWanted),
  });
  const wantSuggestions = useCallback(() => setSuggestionsWanted(true), []);
  const histogramQuery = useQuery({
    ...histogramQueryOptions(params, zone),
    enabled: typesSettled,
  });
  const knownTypes = useMemo(() => catalogue ?? [], [catalogue]);
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

  // j/k past the first or last row go on to the neighbouring page: the row
  // to select there (and whether the panel follows) once its rows are in.
  const arrival = useRef<{
    page: number;
    row: 'first' | 'last';
    panel: boolean;
    focusRow: boolean;
  } | null>(null);

  // Filters and paging start from page 1 / close the panel (a new page size
  // keeps it open: changePageSize).
  const update = useCallback(
    (patch: Partial<EventsView>) => {
      arrival.current = null;
      navigate({ ...view, event: null, page: 1, ...patch });
    },
    [navigate, view],
  );
  const goToPage = useCallback(
    (page: number) => {
      arrival.current = null;
      navigate({ ...view, event: null, page });
    },
    [navigate, view],
  );
  // The investigation tools (bar, facets, histogram, menus) get callbacks
  // that stay the same while the view changes, reading the view when called,
  // so paging does not re-render them; they re-render when their data does.
  const viewRef = useRef(view);
  useLayoutEffect(() => {
    viewRef.current = view;
  }, [view]);
  const filtersSignature = JSON.stringify([
    view.types,
    view.excludeTypes,
    view.fields,
    view.actor,
    view.q,
  ]);
  const filters = useMemo((): InvestigationFilters => {
    const [types, excludeTypes, fields, actor, q] = JSON.parse(filtersSignature) as [
      string[],
      string[],
      InvestigationFilters['fields'],
      string[],
      string,
    ];
    return { types, excludeTypes, fields, actor, q };
  }, [filtersSignature]);
  // Only the filters are taken from what the bar, facets and menus hand back
  // (they may pass the whole view): a new filter starts from page 1.
  const setFilters = useCallback(
    ({ types, excludeTypes, fields, actor, q }: InvestigationFilters) =>
      navigate({ ...viewRef.current, event: null, page: 1, types, excludeTypes, fields, actor, q }),
    [navigate],
  );
  const pickPivot = useCallback(
    (pivot: Pivot, exclude: boolean) => navigate(pivotedView(viewRef.current, pivot, exclude)),
    [navigate],
  );
  const toggleFacet = useCallback(
    (key: ChipKey, value: string) => setFilters(toggleChip(viewRef.current, key, value)),
    [setFilters],
  );
  const toggleExcludeType = useCallback(
    (type: string) => setFilters(toggleChip(viewRef.current, 'eventType', type, true)),
    [setFilters],
  );
  const selectRange = useCallback(
    ({ from, to }: { from: number; to: number }) =>
      navigate({ ...viewRef.current, event: null, page: 1, range: null, from, to }),
    [navigate],
  );
  const closeFacetSheet = useCallback(() => setFacetSheet(false), []);
  const completionSource = useCallback<CompletionSource>(
    (key) => {
      const field = facetFieldOf(key);
      const facetValues = field ? (facetsQuery.data?.facets[field] ?? []) : [];
      if (key !== 'eventType') return facetValues;
      const counted = new Set(facetValues.map((item) => item.value));
      return [
        ...facetValues,
        ...knownTypes.filter((type) => !counted.has(type)).map((value) => ({ value })),
      ];
    },
    [facetsQuery.data, knownTypes],
  );

  // Filters that matched nothing: for each filtered field, its facet without
  // that field's filter (the others kept), as completion reads facets but
  // with more values (the sidebar shows 10), for the existing values like
  // each one typed (`user:ada` finds ada@example.com).
  const matchedNothing = query.isSuccess && !query.isPlaceholderData && totalCount === 0;
  const faceted = useMemo(
    () => (matchedNothing ? facetedFilters(filters) : []),
    [matchedNothing, filters],
  );
  const closeQueries = useQueries({
    queries: faceted.map(({ key, facet }) => ({
      ...facetsQueryOptions(
        listParams(orgId, { ...view, ...withoutKey(filters, key) }),
        [facet],
        MAX_FACET_LIMIT,
      ),
      enabled: typesSettled,
    })),
  });
  const suggestions = faceted.flatMap(({ key, facet, values }, index) => {
    const answer = closeQueries[index];
    return answer?.data && !answer.isPlaceholderData
      ? closeValues(key, values, answer.data.facets[facet] ?? [])
      : [];
  });

  // Click-to-filter: the menu of one cell (or of a whole row, with "f").
  const [filterMenu, setFilterMenu] = useState<FilterMenuRequest | null>(null);
  const openCellMenu = useCallback(
    (index: number, column: PivotColumn, anchor: HTMLElement) => {
      const event = events[index];
      if (event) setFilterMenu({ pivots: columnPivots(event, column), anchor });
    },
    [events],
  );

  // The facet sidebar: shown or hidden (remembered) on wide screens, a sheet on narrow ones.
  const setCollapsedFacet = useCallback(
    (field: FacetField, collapsed: boolean) =>
      setPrefs({
        ...prefs,
        collapsedFacets: collapsed
          ? [...prefs.collapsedFacets, field]
          : prefs.collapsedFacets.filter((f) => f !== field),
      }),
    [prefs, setPrefs],
  );
  const toggleFacets = useCallback(() => {
    if (narrow) setFacetSheet((open) => !open);
    else setPrefs({ ...prefs, facetsOpen: !prefs.facetsOpen });
  }, [narrow, prefs, setPrefs]);

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

  // The panel's filters narrow the table beside it, in place; "What happened
  // around this event" is everything in the minutes either side of it.
  const panelFilters = useMemo(
    (): DetailFilters => ({
      pivot: (pivot, exclude) => ({ onClick: () => pickPivot(pivot, exclude) }),
      around: (eventId, created) => {
        const around = aroundEvent(view, eventId, created);
        return around ? { onClick: () => navigate(around) } : null;
      },
    }),
    [pickPivot, navigate, view],
  );

  const closePanel = useCallback(() => navigate({ ...view, event: null }), [navigate, view]);

  // A panel closed however it closes (Esc, its ✕, the browser's Back) gives
  // focus back to the row it was about, if focus went down with it: closed
  // by Back, focus was left on <body>.
  const closedEvent = useRef(view.event);
  const eventsRef = useRef(events);
  useLayoutEffect(() => {
    eventsRef.current = events;
  }, [events]);
  useEffect(() => {
    const closing = closedEvent.current;
    closedEvent.current = view.event;
    if (!closing || view.event) return;
    // In the next frame, once the panel is gone and the rows are laid out.
    const frame = requestAnimationFrame(() => {
      const index = eventsRef.current.findIndex((event) => event.id === closing);
      const focusLost = !document.activeElement || document.activeElement === document.body;
      if (index >= 0 && focusLost) tableRef.current?.focusRow(index);
    });
    return () => cancelAnimationFrame(frame);
  }, [view.event]);

  // A list shown with an event open (Back from the event's own page, a
  // permalink, a reload) scrolls its row into view, once its rows are in:
  // the table scrolls inside itself, which the browser does not restore.
  const arrivalShown = useRef(false);
  useEffect(() => {
    if (arrivalShown.current || !query.data || query.isPlaceholderData) return;
    arrivalShown.current = true;
    if (openIndex >= 0) tableRef.current?.revealRow(openIndex);
  }, [query.data, query.isPlaceholderData, openIndex]);

  const moveBy = useCallback(
    (delta: number, focusRow: boolean) => {
      if (events.length === 0 || query.isPlaceholderData) return;
      const current = activeIndex ?? (delta > 0 ? -1 : events.length);
      const beyond = current + delta >= events.length ? 1 : current + delta < 0 ? -1 : 0;
      const page = view.page + beyond;
      if (Math.abs(delta) === 1 && beyond !== 0 && page >= 1 && page <= lastPage) {
        arrival.current = {
          page,
          row: beyond > 0 ? 'first' : 'last',
          panel: view.event !== null,
          focusRow,
        };
        // Moving the selection is no history entry, onto another page
        // neither: Back undoes opening the panel or leaves the list, as after
        // j/k in a mail or issue list, rather than stepping back page by page.
        navigate({ ...view, page }, 'replace');
        return;
      }
      const next = Math.min(Math.max(current + delta, 0), events.length - 1);
      const event = events[next]!;
      setActiveId(event.id);
      // With the panel open it follows the selection (one history entry, not one per key).
      if (view.event) navigate({ ...view, event: event.id }, 'replace');
      if (focusRow) tableRef.current?.focusRow(next);
      else tableRef.current?.revealRow(next);
    },
    [activeIndex, events, navigate, view, lastPage, query.isPlaceholderData],
  );
  useEffect(() => {
    const pending = arrival.current;
    if (!pending || pending.page !== view.page || !query.data || query.isPlaceholderData) return;
    // In the next frame, once the new rows are in the table to be focused.
    const frame = requestAnimationFrame(() => {
      arrival.current = null;
      const index = pending.row === 'first' ? 0 : events.length - 1;
      const event = events[index];
      if (!event) return;
      setActiveId(event.id);
      if (pending.panel) navigate({ ...view, event: event.id }, 'replace');
      if (pending.focusRow) tableRef.current?.focusRow(index);
      else tableRef.current?.revealRow(index);
    });
    return () => cancelAnimationFrame(frame);
  }, [events, navigate, query.data, query.isPlaceholderData, view]);

  // j/k in the table and the panel, Esc to close the panel.
  usePageShortcuts({ moveBy, closePanel, panelOpen: view.event !== null });

  // The results region itself (focused by Skip to results, and after Clear
  // all filters) holds no row: ↑/↓ and j/k there did nothing (↓ scrolled),
  // under a hint that names them. They enter the rows where Tab does.
  const onResultsKeyDown = useCallback(
    (event: ReactKeyboardEvent<HTMLDivElement>) => {
      if (event.target !== event.currentTarget || events.length === 0) return;
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (!['ArrowDown', 'ArrowUp', 'j', 'k'].includes(event.key)) return;
      event.preventDefault();
      tableRef.current?.focusRow(activeIndex ?? 0);
    },
    [activeIndex, events.length],
  );

  // ↑/↓ and Enter on the rows themselves.
  const onRowKeyDown = useCallback(
    (event: ReactKeyboardEvent<HTMLTableSectionElement>) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (
        (event.key === 'f' || event.key === 'ContextMenu') &&
        !(event.target as HTMLElement).closest('input')
      ) {
        const row = (event.target as HTMLElement).closest<HTMLElement>('tr[data-index]');
        const picked = row ? events[Number(row.getAttribute('data-index'))] : undefined;
        if (row && picked) {
          event.preventDefault();
          setFilterMenu({ pivots: eventPivots(picked), anchor: row });
        }
        return;
      }
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        moveBy(event.key === 'ArrowDown' ? 1 : -1, true);
      } else if (event.key === 'Home' || event.key === 'End') {
        event.preventDefault();
        moveBy(event.key === 'Home' ? -events.length : events.length, true);
      } else if (event.key === 'Enter' || event.key === ' ') {
        const row = (event.target as HTMLElement).closest('tr[data-index]');
        if (!row || (event.target as HTMLElement).closest('input')) return;
        event.preventDefault();
        const index = Number(row.getAttribute('data-index'));
        if (event.key === ' ') {
          const picking = events[index];
          if (picking) togglePick(picking.id);
        } else openEvent(index);
      }
    },
    [events, moveBy, openEvent, togglePick],
  );

  const fullPageHref = useCallback(
    (eventId: string, tab?: EventTab) => eventPageHref(orgId, eventId, { tz: view.tz, tab }),
    [orgId, view.tz],
  );
  const tableMeta = useMemo<EventsTableMeta>(
    () => ({
      zone,
      localZone,
      eventHref: fullPageHref,
      now,
      picked: pickedSet,
      onPick: togglePick,
    }),
    [zone, localZone, fullPageHref, now, pickedSet, togglePick],
  );

  // Live: newer events matching the filters, counted while page 1 is read.
  const visible = usePageVisible();
  const [live, setLive] = useState(false);
  const liveEnabled = view.page === 1 && query.isSuccess && !query.isPlaceholderData;
  const newCount = useNewerCount(params, events, liveEnabled);
  /** The arrivals in words: on the pill, and said to a screen reader. */
  const newEvents = `${NUMBER.format(newCount)} new ${newCount === 1 ? 'event' : 'events'}`;
  const bringIn = useCallback(() => {
    // Every cached page has shifted and every count grew (the histogram's
    // total is the table's); what is on screen refetches now.
    void queryClient.invalidateQueries({
      predicate: (cached) => countsOrgEvents(orgId, cached.queryKey),
    });
  }, [queryClient, orgId]);
  // With Live on, new events scroll in by themselves when the reader is at the top.
  useEffect(() => {
    if (live && newCount > 0 && visible && !view.event && tableRef.current?.isAtTop()) bringIn();
  }, [live, newCount, visible, view.event, bringIn]);
  // While the tab is hidden, its title says how many arrived.
  useEffect(() => {
    if (visible || newCount === 0) return;
    const base = document.title.replace(/^\(\d[\d,]*\) /, '');
    document.title = `(${NUMBER.format(newCount)}) ${base}`;
    return () => {
      document.title = base;
    };
  }, [visible, newCount]);

  const savedState = useCallback(
    (): SavedViewState => ({
      query: serializeEventsView({ ...view, page: 1, event: null }, localZone),
      columns: { order: prefs.order, hidden: prefs.hidden },
      density: prefs.density,
    }),
    [view, localZone, prefs],
  );
  const openSavedView = useCallback(
    (saved: SavedViewJson) => {
      const next = parseEventsView(new URLSearchParams(saved.state.query), localZone);
      navigate({ ...next, page: 1, event: null });
      if (saved.state.columns || saved.state.density) {
        setPrefs(
          normalizeTablePrefs({
            ...saved.state.columns,
            density: saved.state.density,
            facetsOpen: prefs.facetsOpen,
            collapsedFacets: prefs.collapsedFacets,
          }),
        );
      }
    },
    [navigate, localZone, setPrefs, prefs],
  );

  // A new page size keeps the open event open, on the page holding its row
  // (else the first row's), scrolled to once the rows are in, as after a
  // reload. The row is counted from the rows on screen: while the next ones
  // load those are still `shown`'s page, of the same list after a page or size
  // change (another list's rows place no row of this one).
  const changePageSize = (size: number) => {
    arrivalShown.current = false;
    const openOnScreen = openIndex >= 0 && sameFilters(listParams(orgId, shown), params);
    const page = openOnScreen
      ? pageForNewSize(shown.page, shown.size, size, totalCount, openIndex)
      : pageForNewSize(view.page, view.size, size, totalCount);
    update({ size, page, event: view.event });
  };

  const shownFilters = describeFiltersPhrase(shown, zone);
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
        // Its buttons go away with it: focus goes to the results (it fell to <body>).
        onUpdate={(patch) => {
          update(patch);
          focusResults();
        }}
        onGoToPage={(page) => {
          goToPage(page);
          focusResults();
        }}
        closeValues={suggestions}
        onFilters={(next) => {
          setFilters(next);
          focusResults();
        }}
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
        caption={`Events of ${orgName}, newest first, page ${shown.page} of ${pageCount(totalCount, shown.size)}`}
        columnOrder={columnOrder}
        hiddenColumns={prefs.hidden}
        density={prefs.density}
        onActivate={(index) => setActiveId(events[index]?.id ?? null)}
        onOpen={openEvent}
        onFilterMenu={openCellMenu}
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
            params={params}
            selected={view.types}
            excluded={view.excludeTypes}
            onApply={({ types, excludeTypes }) => update({ types, excludeTypes })}
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
        <div className="group">
          <span className="label">View</span>
          <div className="tool-row">
            <SavedViewsMenu orgId={orgId} current={savedState} onOpen={openSavedView} />
            <ColumnMenu prefs={prefs} onChange={setPrefs} />
            <ExportControl params={params} />
            <button
              type="button"
              className="button facets-button"
              aria-expanded={narrow ? facetSheet : undefined}
              aria-pressed={narrow ? undefined : prefs.facetsOpen}
              onClick={toggleFacets}
            >
              Facets
            </button>
            <button
              type="button"
              className="button"
              aria-pressed={live}
              title="Bring new events in by themselves while you are at the top of page 1"
              onClick={() => setLive((on) => !on)}
            >
              <span className="live-dot" aria-hidden="true" /> Live
            </button>
          </div>
        </div>
      </div>
      <QueryBar
        filters={filters}
        onChange={setFilters}
        onFocus={wantSuggestions}
        knownTypes={knownTypes}
        source={completionSource}
        typeLabel={eventTypeLabel}
      />
      {notApplied.length ? (
        <p className="query-problems" role="status" data-testid="not-applied">
          Not applied from the link: {notApplied.join('; ')}
        </p>
      ) : null}
      <div
        className="investigate"
        data-facets={prefs.facetsOpen || undefined}
        data-sheet={facetSheet || undefined}
        // The event panel is open: the list makes room for it (investigate.css).
        data-panel={view.event ? true : undefined}
      >
        {facetSheet ? (
          <div
            className="facets-backdrop"
            aria-hidden="true"
            onClick={() => setFacetSheet(false)}
          />
        ) : null}
        {/* Past the facets' hundred buttons to the table, for the keyboard. */}
        <a
          className="skip-link skip-results"
          href={`#${RESULTS_ID}`}
          onClick={(event) => {
            event.preventDefault();
            focusResults();
          }}
        >
          Skip to results
        </a>
        <FacetSidebar
          facets={facetsQuery.data}
          filters={filters}
          busy={facetsQuery.isFetching && facetsQuery.isPlaceholderData}
          failed={facetsQuery.isError}
          collapsed={prefs.collapsedFacets}
          onCollapse={setCollapsedFacet}
          onToggle={toggleFacet}
          onToggleExclude={toggleExcludeType}
          typeLabel={eventTypeLabel}
          onClose={facetSheet ? closeFacetSheet : undefined}
        />
        <div className="events-column">
          <VolumeHistogram
            histogram={histogramQuery.data}
            zone={zone}
            busy={histogramQuery.isFetching && histogramQuery.isPlaceholderData}
            failed={histogramQuery.isError}
            onSelect={selectRange}
          />
          <div className="results-bar" aria-live="polite">
            <span>
              {query.data ? (
                <>
                  <strong data-testid="results-count">{NUMBER.format(totalCount)}</strong>{' '}
                  {totalCount === 1 ? 'event' : 'events'}
                  {shownFilters ? ` ${shownFilters}` : ''}
                </>
              ) : query.isPending ? (
                'Loading events…'
              ) : null}
            </span>
            {picked.length ? (
              <span className="compare-bar" data-testid="compare-bar">
                {picked.length === 1 ? '1 event picked; pick one more' : '2 events picked'}
                <button
                  type="button"
                  className="button small primary"
                  disabled={picked.length < 2}
                  onClick={() => setComparing(search)}
                >
                  Compare
                </button>
                <button type="button" className="button small ghost" onClick={() => setPicked([])}>
                  Clear picks
                </button>
              </span>
            ) : null}
            <span className="hint" title={KEYS_HINT}>
              {KEYS_HINT}
            </span>
          </div>
          <div className="progress" data-active={slow} aria-hidden="true" />
          <div className="table-area" id={RESULTS_ID} tabIndex={-1} onKeyDown={onResultsKeyDown}>
            {content}
            {/* The pill below appears silently: a screen reader hears the arrival here. */}
            <span className="visually-hidden" role="status" data-testid="new-events-status">
              {newCount > 0 ? newEvents : ''}
            </span>
            {newCount > 0 ? (
              <button
                type="button"
                className="new-events-pill"
                data-testid="new-events"
                onClick={() => {
                  if (view.page !== 1 || view.event) navigate({ ...view, page: 1, event: null });
                  bringIn();
                  tableRef.current?.revealRow(0);
                }}
              >
                ↑ {newEvents}
              </button>
            ) : null}
          </div>
          {comparing !== null && picked.length === 2 ? (
            <CompareDialog
              orgId={orgId}
              ids={[picked[0]!, picked[1]!]}
              zone={zone}
              onClose={() => setComparing(null)}
            />
          ) : null}
          {query.data && totalCount > 0 ? (
            <Pagination
              // The rows on screen: from page 2, a new filter's page 1 is not
              // shown until its rows arrive (the old ones stay, dimmed).
              page={shown.page}
              pageSize={shown.size}
              totalCount={totalCount}
              onPage={goToPage}
              onPageSize={changePageSize}
              onPrefetch={prefetchPage}
            />
          ) : null}
        </div>
      </div>
      {filterMenu ? (
        <FilterMenu
          {...filterMenu}
          onPick={(pivot, exclude) => {
            setFilterMenu(null);
            pickPivot(pivot, exclude);
          }}
          onClose={() => setFilterMenu(null)}
        />
      ) : null}
      {view.event ? (
        <EventPanel
          titleId={titleId}
          onClose={closePanel}
          onPrevious={
            openIndex > 0 || (openIndex === 0 && view.page > 1) ? () => moveBy(-1, false) : null
          }
          onNext={
            openIndex >= 0 && (openIndex < events.length - 1 || view.page < lastPage)
              ? () => moveBy(1, false)
              : null
          }
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
            fullPageHref={(tab) => fullPageHref(view.event!, tab)}
            filters={panelFilters}
          />
        </EventPanel>
      ) : null}
    </main>
  );
}
