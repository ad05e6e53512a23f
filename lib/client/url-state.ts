import {
  DAY_MS,
  HOUR_MS,
  type TimeZoneMode,
  parseDateTime,
  parseApiDateTime,
  parseEndBound,
  toApiDateTimeExact,
  toUrlDateTime,
  toUrlEndBound,
  UTC_ZONE,
  zoneFor,
} from '@/lib/domain/dates';
import {
  API_PREFIX,
  DEFAULT_ITEMS_PER_PAGE,
  EVENT_TYPE_PATTERN,
  MAX_ITEMS_PER_PAGE,
  OBJECT_ID_PATTERN,
} from '@/lib/domain/limits';
import type { ExportFormat, QueryParameterName } from '@/lib/domain/query';
import {
  FILTER_FIELDS,
  type FacetField,
  type FilterField,
  MAX_FILTER_VALUES,
  MAX_Q_LENGTH,
  exclusionsIn,
  isExclusion,
  isMalformedCidr,
  words,
} from '@/lib/domain/filters';
import { type InvestigationFilters, NO_FILTERS, applyChip } from './query-syntax';
import type { Pivot } from './pivots';
import { escapeValue, joinValueList, splitValueList } from '@/lib/domain/value-list';

/**
 * The events page's state lives in its URL, so a view can be bookmarked,
 * shared and walked with back/forward. This module is the one place that
 * reads it (leniently: a bad value falls back to its default, never an
 * error page), writes it (defaults left out), and maps it to the API's query.
 *
 *   types=A,B         event types (comma list)
 *   range=24h         a preset window ending now: 1h, 24h, 7d, 30d
 *   from=…&to=…       custom bounds, ISO 8601 in the chosen zone with its offset; a "to"
 *                     includes all it names (to=…T11:30 the minute, to=…T11:30:00 the second)
 *   page=3&size=25    1-based page and page size (≤ the API's MAX_ITEMS_PER_PAGE)
 *   tz=local          times in the browser's zone (default: UTC)
 *   event=<id>        the event open in the side panel
 *   excludeTypes=A,B  event types left out
 *   <field>=a,b       a filter field by its API name (clusterName=Cluster0, …), any of the values
 *   actor=a,b         the actor, any of the values
 *   q=words           free text
 *
 * Value lists follow the API's rule (value-list.ts): `\,` is a comma inside a
 * value and `\\` a backslash, so `collection=orders\,2024` is one value.
 */

export const RANGE_PRESETS = ['1h', '24h', '7d', '30d'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

export const RANGE_PRESET_MS: Record<RangePreset, number> = {
  '1h': HOUR_MS,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

export const RANGE_PRESET_LABELS: Record<RangePreset, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

export const PAGE_SIZE_OPTIONS = [25, 50, DEFAULT_ITEMS_PER_PAGE, 200, MAX_ITEMS_PER_PAGE] as const;
/** Smaller than the API's default: a screenful, quick to render. */
export const DEFAULT_PAGE_SIZE = 50;
/** The API refuses larger pages, so the URL never asks for one. */
export const MAX_PAGE_SIZE = MAX_ITEMS_PER_PAGE;
/** Far beyond any real page count; keeps a typo'd page number a plain number. */
export const MAX_PAGE = 10_000_000;
/** Room for "every type but one category" (the catalogue has about 300). */
const MAX_TYPES = 400;

export type EventsView = InvestigationFilters & {
  /** A preset window ending now; null when custom bounds (or none) apply. */
  range: RangePreset | null;
  /**
   * Custom inclusive bounds in epoch milliseconds; used only when range is
   * null. `to` is the last millisecond included (parseEndBound): the end of
   * the day, minute or second the bound names, so it writes back as named.
   */
  from: number | null;
  to: number | null;
  page: number;
  size: number;
  tz: TimeZoneMode;
  /** The event open in the side panel. */
  event: string | null;
};

export const DEFAULT_VIEW: EventsView = {
  ...NO_FILTERS,
  range: null,
  from: null,
  to: null,
  page: 1,
  size: DEFAULT_PAGE_SIZE,
  tz: 'utc',
  event: null,
};

/** What Next hands a page as `searchParams`, or the browser's URLSearchParams. */
export type SearchParamsInput =
  | URLSearchParams
  | Readonly<Record<string, string | readonly string[] | undefined>>;

function first(input: SearchParamsInput, name: string): string | undefined {
  if (input instanceof URLSearchParams) return input.get(name) ?? undefined;
  const value = input[name];
  return typeof value === 'string' ? value : value?.[0];
}

/**
 * A list parameter given once or repeated (`types=A&types=B`, as the API
 * takes `eventType`), as one comma list: each occurrence keeps its own
 * escapes. Only the first was read, and the rest dropped without a notice.
 */
function listParam(input: SearchParamsInput, name: string): string | undefined {
  const values =
    input instanceof URLSearchParams
      ? input.getAll(name)
      : typeof input[name] === 'string'
        ? [input[name]]
        : [...(input[name] ?? [])];
  const given = values.filter((value) => value.trim() !== '');
  return given.length === 0 ? (values[0] ?? undefined) : given.join(',');
}

function parseIntInRange(value: string | undefined, min: number, max: number): number | null {
  if (value === undefined || !/^\d{1,9}$/.test(value.trim())) return null;
  const number = Number(value.trim());
  return number >= min && number <= max ? number : null;
}

export function parseTypes(value: string | undefined): string[] {
  return parseValues(value, (type) => EVENT_TYPE_PATTERN.test(type), MAX_TYPES);
}

/** The items of a comma list (the API's escapes read), trimmed, empty ones apart. */
function listItems(value: string | undefined): string[] {
  return splitValueList(value ?? '').filter(Boolean);
}

/** A comma list of filter values: trimmed, non-empty, unique, sorted, at most `max` (the API's). */
export function parseValues(
  value: string | undefined,
  isValid?: (item: string) => boolean,
  max: number = MAX_FILTER_VALUES,
): string[] {
  const items = listItems(value).filter((item) => isValid?.(item) ?? true);
  return [...new Set(items)].sort().slice(0, max);
}

/** A link's `q` without its dash-led parts (isExclusion), which the API refuses; named by notAppliedInUrl. */
function withoutExclusions(q: string): string {
  if (exclusionsIn(q).length === 0) return q;
  return q
    .split(/\s+/)
    .filter((part) => !isExclusion(part))
    .join(' ');
}

/** The investigation filters in a URL (see the module comment for their names). */
export function parseFilters(input: SearchParamsInput): InvestigationFilters {
  const fields: Partial<Record<FilterField, string[]>> = {};
  for (const field of FILTER_FIELDS) {
    const values = parseValues(
      listParam(input, field),
      field === 'remoteAddress' ? (item) => !isMalformedCidr(item) : undefined,
    );
    if (values.length) fields[field] = values;
  }
  const q = withoutExclusions((first(input, 'q') ?? '').trim().slice(0, MAX_Q_LENGTH));
  const types = parseTypes(listParam(input, 'types'));
  return {
    types,
    // A type both included and excluded stays included (notAppliedInUrl says so).
    excludeTypes: parseTypes(listParam(input, 'excludeTypes')).filter(
      (type) => !types.includes(type),
    ),
    fields,
    actor: parseValues(listParam(input, 'actor')),
    q: words(q).length ? q : '',
  };
}

/** Reads a view from a URL. Never throws: each bad value becomes its default. */
export function parseEventsView(input: SearchParamsInput, localZone: string): EventsView {
  const tz: TimeZoneMode = first(input, 'tz') === 'local' ? 'local' : 'utc';
  const zone = zoneFor(tz, localZone);
  const rangeValue = first(input, 'range');
  let range = RANGE_PRESETS.find((preset) => preset === rangeValue) ?? null;
  const fromValue = first(input, 'from');
  const toValue = first(input, 'to');
  let from = fromValue ? parseDateTime(fromValue, zone) : null;
  // A "to" covers all it names (a bare date that whole day), as in the custom range form.
  let to = toValue ? parseEndBound(toValue, zone) : null;
  if (from !== null && to !== null && from > to) {
    // Given the wrong way round: each value read as the other bound, so
    // from=2026-11-10&to=2026-11-09 is both days (swapping the instants
    // made it the second between them).
    from = parseDateTime(toValue!, zone);
    to = parseEndBound(fromValue!, zone);
  }
  // Explicit bounds are the more specific request, so they win over a preset.
  if (from !== null || to !== null) range = null;
  const size = parseIntInRange(first(input, 'size'), 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const page = parseIntInRange(first(input, 'page'), 1, MAX_PAGE) ?? 1;
  const event = first(input, 'event')?.trim().toLowerCase();
  return {
    ...parseFilters(input),
    range,
    from,
    to,
    page,
    size,
    tz,
    event: event && OBJECT_ID_PATTERN.test(event) ? event : null,
  };
}

/**
 * What a URL asks for that parseEventsView leaves out, one phrase per value
 * (the view falls back to its default there), so the page can say so: a
 * shared link must not silently show more events than it meant.
 */
export function notAppliedInUrl(input: SearchParamsInput, localZone: string): string[] {
  const problems: string[] = [];
  const tzValue = first(input, 'tz');
  if (tzValue !== undefined && tzValue !== 'local' && tzValue !== 'utc') {
    problems.push(`tz=${tzValue} is not utc or local`);
  }
  const zone = zoneFor(tzValue === 'local' ? 'local' : 'utc', localZone);
  // A list's items, and whether an empty one was among them (`actor=`,
  // `clusterName=%20`, `types=A,`): no filter, the view goes without it,
  // where the API refuses it (400).
  const listOf = (name: string) => {
    const given = listParam(input, name);
    const all = given === undefined ? [] : splitValueList(given);
    if (all.includes('')) problems.push(`${name}: an empty value`);
    return all.filter(Boolean);
  };
  for (const name of ['types', 'excludeTypes'] as const) {
    const items = listOf(name);
    for (const type of items.filter((item) => !EVENT_TYPE_PATTERN.test(item))) {
      problems.push(`${name}: ${type} is not an event type name`);
    }
    if (new Set(items).size > MAX_TYPES) problems.push(`${name}: more than ${MAX_TYPES} types`);
  }
  const included = new Set(listItems(listParam(input, 'types')));
  for (const type of new Set(listItems(listParam(input, 'excludeTypes')))) {
    if (included.has(type)) problems.push(`excludeTypes: ${type} is also in types, which wins`);
  }
  for (const field of [...FILTER_FIELDS, 'actor'] as const) {
    const items = listOf(field);
    if (field === 'remoteAddress') {
      for (const item of items.filter(isMalformedCidr)) {
        problems.push(`remoteAddress: ${item} is not a CIDR block such as 10.0.0.0/8`);
      }
    }
    if (new Set(items).size > MAX_FILTER_VALUES) {
      problems.push(`${field}: more than ${MAX_FILTER_VALUES} values`);
    }
  }
  const q = first(input, 'q')?.trim() ?? '';
  if (q.length > MAX_Q_LENGTH) problems.push(`q: cut to ${MAX_Q_LENGTH} characters`);
  if (q !== '' && words(q.slice(0, MAX_Q_LENGTH)).length === 0) {
    problems.push(`q=${q.slice(0, 40)} has no words to search for`);
  }
  for (const token of new Set(exclusionsIn(q.slice(0, MAX_Q_LENGTH)))) {
    problems.push(`q: ${token}: free text cannot be left out, only event types can (excludeTypes)`);
  }
  const range = first(input, 'range');
  const preset = RANGE_PRESETS.some((known) => known === range);
  if (range && !preset) {
    problems.push(`range=${range} is not one of ${RANGE_PRESETS.join(', ')}`);
  }
  const from = first(input, 'from');
  const fromRead = from ? parseDateTime(from, zone) : null;
  if (from && fromRead === null) problems.push(`from=${from} is not a date`);
  const to = first(input, 'to');
  const toRead = to ? parseEndBound(to, zone) : null;
  if (to && toRead === null) problems.push(`to=${to} is not a date`);
  // parseEventsView: explicit bounds win over a preset.
  if (preset && (fromRead !== null || toRead !== null)) {
    problems.push(`range=${range}: from and to give the range instead`);
  }
  const size = first(input, 'size');
  if (size !== undefined && parseIntInRange(size, 1, MAX_PAGE_SIZE) === null) {
    problems.push(`size=${size} is not a page size from 1 to ${MAX_PAGE_SIZE}`);
  }
  const page = first(input, 'page');
  if (page !== undefined && parseIntInRange(page, 1, MAX_PAGE) === null) {
    problems.push(`page=${page} is not a page number`);
  }
  const event = first(input, 'event');
  if (event && !OBJECT_ID_PATTERN.test(event.trim().toLowerCase())) {
    problems.push(`event=${event} is not an event id`);
  }
  return problems;
}

/**
 * A view without the event types missing from the org's catalogue (the
 * /eventTypes answer, or null while it loads): the API refuses a type it does
 * not know, and type names change over time, so an old link or saved view
 * may hold one. The same view when nothing is left out.
 */
export function withoutUnknownTypes(
  view: EventsView,
  catalogue: readonly string[] | null,
): { view: EventsView; unknown: string[] } {
  if (catalogue === null) return { view, unknown: [] };
  const known = new Set(catalogue);
  const unknown = [...view.types, ...view.excludeTypes].filter((type) => !known.has(type));
  if (unknown.length === 0) return { view, unknown };
  return {
    view: {
      ...view,
      types: view.types.filter((type) => known.has(type)),
      excludeTypes: view.excludeTypes.filter((type) => known.has(type)),
    },
    unknown,
  };
}

// Query values stay readable in the address bar: ':' and ',' are legal there.
function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%2C/gi, ',');
}

/** Writes a view as a query string (no leading '?'); defaults are left out. */
export function serializeEventsView(view: EventsView, localZone: string): string {
  const zone = zoneFor(view.tz, localZone);
  const pairs: [string, string][] = [];
  if (view.types.length) pairs.push(['types', [...view.types].sort().join(',')]);
  if (view.excludeTypes.length)
    pairs.push(['excludeTypes', [...view.excludeTypes].sort().join(',')]);
  for (const field of FILTER_FIELDS) {
    const values = view.fields[field];
    if (values?.length) pairs.push([field, joinValueList([...values].sort())]);
  }
  if (view.actor.length) pairs.push(['actor', joinValueList([...view.actor].sort())]);
  if (view.q) pairs.push(['q', view.q]);
  if (view.range) pairs.push(['range', view.range]);
  else {
    if (view.from !== null) pairs.push(['from', toUrlDateTime(view.from, zone)]);
    if (view.to !== null) pairs.push(['to', toUrlEndBound(view.to, zone)]);
  }
  if (view.page !== DEFAULT_VIEW.page) pairs.push(['page', String(view.page)]);
  if (view.size !== DEFAULT_VIEW.size) pairs.push(['size', String(view.size)]);
  if (view.tz !== DEFAULT_VIEW.tz) pairs.push(['tz', view.tz]);
  if (view.event) pairs.push(['event', view.event]);
  return pairs.map(([name, value]) => `${name}=${encodeValue(value)}`).join('&');
}

export function eventsPath(orgId: string): string {
  return `/orgs/${encodeURIComponent(orgId)}/events`;
}

export function eventPath(orgId: string, eventId: string): string {
  return `${eventsPath(orgId)}/${encodeURIComponent(eventId)}`;
}

/** The tabs of an event's detail: its fields, or its raw document as recorded. */
export type EventTab = 'details' | 'raw';

/** The tab a page URL's `tab` asks for (anything but `raw` is the default, details). */
export function parseEventTab(value: string | string[] | null | undefined): EventTab {
  return value === 'raw' ? 'raw' : 'details';
}

/**
 * An event's own page: `?tz=local` when times show in the viewer's zone,
 * `tab=raw` when it opens on the raw document (the panel's "Open full page"
 * and the page's permalink keep the tab being read).
 */
export function eventPageHref(
  orgId: string,
  eventId: string,
  { tz, tab = 'details' }: { tz: TimeZoneMode; tab?: EventTab },
): string {
  const query = new URLSearchParams();
  if (tz === 'local') query.set('tz', 'local');
  if (tab === 'raw') query.set('tab', 'raw');
  const search = query.toString();
  return `${eventPath(orgId, eventId)}${search ? `?${search}` : ''}`;
}

/** Minutes either side of an event that its "±5 minutes" shows. */
export const AROUND_MINUTES = 5;
const MINUTE_MS = 60_000;

/**
 * What happened around an event: every filter cleared, from the whole minute
 * AROUND_MINUTES before it to the end of the minute AROUND_MINUTES after it
 * (so at least that long either side, in bounds the URL writes as whole
 * minutes and reads back as they are), the event still open; the zone and
 * page size kept. Null when the event's `created` cannot be read as a time.
 */
export function aroundEvent(view: EventsView, eventId: string, created: string): EventsView | null {
  const at = parseApiDateTime(created);
  if (at === null) return null;
  const span = AROUND_MINUTES * MINUTE_MS;
  const minute = (millis: number) => Math.floor(millis / MINUTE_MS) * MINUTE_MS;
  return {
    ...view,
    ...NO_FILTERS,
    range: null,
    from: minute(at - span),
    to: minute(at + span) + MINUTE_MS - 1,
    page: 1,
    event: eventId,
  };
}

/**
 * A view narrowed by one click-to-filter (a cell's menu, a detail's field):
 * the value added to its key's filter (an event type left out instead when
 * `exclude`), from page 1, no event open.
 */
export function pivotedView(
  view: EventsView,
  { key, value }: Pick<Pivot, 'key' | 'value'>,
  exclude: boolean,
): EventsView {
  return { ...view, ...applyChip(view, key, [value], exclude, []).filters, page: 1, event: null };
}

/** The page URL of a view: `/orgs/<id>/events?…`. */
export function eventsViewHref(orgId: string, view: EventsView, localZone: string): string {
  const query = serializeEventsView(view, localZone);
  return query ? `${eventsPath(orgId)}?${query}` : eventsPath(orgId);
}

/** True when any server-side filter narrows the list. */
export function hasFilters(view: EventsView): boolean {
  return hasFieldFilters(view) || view.range !== null || view.from !== null || view.to !== null;
}

/** True when any filter other than the date narrows the list. */
export function hasFieldFilters(filters: InvestigationFilters): boolean {
  return (
    filters.types.length > 0 ||
    filters.excludeTypes.length > 0 ||
    Object.values(filters.fields).some((values) => values.length > 0) ||
    filters.actor.length > 0 ||
    filters.q !== ''
  );
}

/** The part of a view that decides which rows the API returns: the query key. */
export type EventsListParams = { orgId: string } & Pick<
  EventsView,
  'types' | 'excludeTypes' | 'fields' | 'actor' | 'q' | 'range' | 'from' | 'to' | 'page' | 'size'
>;

/** The filters and dates of a list: what its facets and histogram describe too. */
export type EventsFilterParams = Omit<EventsListParams, 'page' | 'size'>;

export function listParams(orgId: string, view: EventsView): EventsListParams {
  const fields: Partial<Record<FilterField, readonly string[]>> = {};
  for (const field of FILTER_FIELDS) {
    const values = view.fields[field];
    if (values?.length) fields[field] = [...values].sort();
  }
  return {
    orgId,
    types: [...view.types].sort(),
    excludeTypes: [...view.excludeTypes].sort(),
    fields,
    actor: [...view.actor].sort(),
    q: view.q,
    range: view.range,
    from: view.range ? null : view.from,
    to: view.range ? null : view.to,
    page: view.page,
    size: view.size,
  };
}

/**
 * The instant a preset window starts. `now` is cut to the minute so every
 * request for the same view within that minute (the page, the prefetched next
 * page, the server's first render) asks for the same window.
 */
export function presetStart(range: RangePreset, now: number): number {
  return Math.floor(now / 60_000) * 60_000 - RANGE_PRESET_MS[range];
}

/**
 * The effective inclusive bounds of a list request, in epoch milliseconds
 * (a "to" is already its last millisecond).
 */
export function listBounds(
  params: Pick<EventsListParams, 'range' | 'from' | 'to'>,
  now: number,
): { min: number | null; max: number | null } {
  if (params.range) return { min: presetStart(params.range, now), max: null };
  return { min: params.from, max: params.to };
}

/** An API query string; the names are checked against the API's own (lib/domain/query.ts). */
function apiQuery(pairs: readonly (readonly [QueryParameterName, string])[]): string {
  return pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
}

export function apiOrgPath(orgId: string): string {
  return `${API_PREFIX}/orgs/${encodeURIComponent(orgId)}`;
}

/** The filter parameters of a list, its facets and its histogram (dates apart). */
function filterPairs(params: EventsFilterParams): [QueryParameterName, string][] {
  const pairs: [QueryParameterName, string][] = params.types.map((type) => ['eventType', type]);
  for (const type of params.excludeTypes) pairs.push(['excludeEventType', type]);
  for (const field of FILTER_FIELDS) {
    for (const value of params.fields[field] ?? []) pairs.push([field, escapeValue(value)]);
  }
  for (const value of params.actor) pairs.push(['actor', escapeValue(value)]);
  if (params.q) pairs.push(['q', params.q]);
  return pairs;
}

/** Filters and dates as API pairs. */
function filterAndDatePairs(
  params: EventsFilterParams,
  now: number,
): [QueryParameterName, string][] {
  const pairs = filterPairs(params);
  const { min, max } = listBounds(params, now);
  if (min !== null) pairs.push(['minDate', toApiDateTimeExact(min)]);
  if (max !== null) pairs.push(['maxDate', toApiDateTimeExact(max)]);
  return pairs;
}

/** The API path and query for one list page: the only URL → API mapping. */
export function apiListPath(
  params: EventsListParams,
  now: number = Date.now(),
  { includeCount = true }: { includeCount?: boolean } = {},
): string {
  const pairs = filterAndDatePairs(params, now);
  pairs.push(['pageNum', String(params.page)]);
  pairs.push(['itemsPerPage', String(params.size)]);
  pairs.push(['includeCount', String(includeCount)]);
  return `${apiOrgPath(params.orgId)}/events?${apiQuery(pairs)}`;
}

/**
 * The live check: how many events matching the list's filters are at or
 * after `since` (the reference row shown), with the count and the first
 * `rows` of them (one unless the check is still finding the reference).
 */
export function apiNewerPath(
  params: EventsListParams,
  since: number,
  rows = 1,
  now: number = Date.now(),
): string {
  const pairs = filterPairs(params);
  const { min, max } = listBounds(params, now);
  pairs.push(['minDate', toApiDateTimeExact(Math.max(since, min ?? since))]);
  if (max !== null) pairs.push(['maxDate', toApiDateTimeExact(max)]);
  pairs.push(['pageNum', '1']);
  pairs.push(['itemsPerPage', String(rows)]);
  pairs.push(['includeCount', 'true']);
  return `${apiOrgPath(params.orgId)}/events?${apiQuery(pairs)}`;
}

/** Facet counts of some facet fields for the filters of a list. */
export function apiFacetsPath(
  params: EventsFilterParams,
  fields: readonly FacetField[],
  limit: number,
  now: number = Date.now(),
) {
  const pairs = filterAndDatePairs(params, now);
  pairs.push(['field', fields.join(',')]);
  pairs.push(['limit', String(limit)]);
  return `${apiOrgPath(params.orgId)}/events/facets?${apiQuery(pairs)}`;
}

/**
 * The export of exactly the list's filters (the same pairs as its pages,
 * without their paging), at /events/export.
 */
export function apiExportPath(
  params: EventsFilterParams,
  options: { format: ExportFormat; includeRaw: boolean },
  now: number = Date.now(),
  end: number = now,
): string {
  const pairs = filterAndDatePairs(params, now);
  // An open range ends pinned: the count the dialog shows (a HEAD) and the
  // file downloaded after it are the same set, under the same name. `end`
  // must leave out nothing the table shows, events dated in the future
  // included (exportEnd).
  if (!pairs.some(([name]) => name === 'maxDate')) pairs.push(['maxDate', toApiDateTimeExact(end)]);
  pairs.push(['format', options.format]);
  if (options.includeRaw) pairs.push(['includeRaw', 'true']);
  return `${apiOrgPath(params.orgId)}/events/export?${apiQuery(pairs)}`;
}

/**
 * Where an open-ended export is pinned: the later of the server's present
 * and the newest matching event (one dated in the future by a source with
 * a wrong clock is in the table, so in the file too), to the end of its
 * second (served instants may be whole seconds over stored milliseconds).
 */
export function exportEnd(present: number, newest: number | null): number {
  return Math.floor(Math.max(present, newest ?? present) / 1000) * 1000 + 999;
}

/**
 * The volume histogram of a list's filters, in at most `buckets` bars that
 * start on the clock of `zone`, the one the page shows (days at its midnights).
 */
export function apiHistogramPath(
  params: EventsFilterParams,
  buckets: number,
  zone: string = UTC_ZONE,
  now: number = Date.now(),
) {
  const pairs = filterAndDatePairs(params, now);
  pairs.push(['buckets', String(buckets)]);
  if (zone !== UTC_ZONE) pairs.push(['timeZone', zone]);
  return `${apiOrgPath(params.orgId)}/events/histogram?${apiQuery(pairs)}`;
}

export function apiEventPath(orgId: string, eventId: string, includeRaw: boolean): string {
  const base = `${apiOrgPath(orgId)}/events/${encodeURIComponent(eventId)}`;
  return includeRaw ? `${base}?${apiQuery([['includeRaw', 'true']])}` : base;
}

/**
 * The type catalogue with per-type counts; with `params`, counted under their
 * dates and filters but not their types (the picker's own choice, which the
 * API ignores there), as the type facet is.
 */
export function apiEventTypesPath(
  orgId: string,
  params?: EventsFilterParams,
  now: number = Date.now(),
): string {
  const base = `${apiOrgPath(orgId)}/eventTypes`;
  if (!params) return base;
  const pairs = filterAndDatePairs({ ...params, types: [], excludeTypes: [] }, now);
  return pairs.length ? `${base}?${apiQuery(pairs)}` : base;
}

/** Every organization the key can read, in one page (the API's maximum). */
export const API_ORGS_PATH = `${API_PREFIX}/orgs?${apiQuery([['itemsPerPage', String(MAX_ITEMS_PER_PAGE)]])}`;

/** The last page number for a total, at least 1. */
export function pageCount(totalCount: number, size: number): number {
  return Math.max(1, Math.ceil(totalCount / size));
}

/**
 * The page a new page size goes to: the one that, at `size` rows a page,
 * holds the row the reader is on, row `index` of `page` at `previousSize`
 * (the open event's, else the first row shown, 0), so it stays in view
 * (rows 101-125, page 5 at 25, are on page 2 at 100), as data tables do,
 * where going back to page 1 lost the reader's place. From past the last
 * page (an old link, a set that shrank) that row is none: the last page at
 * the new size, with rows, where page 8 of 1,000 rows at 500 would still be
 * past the end.
 */
export function pageForNewSize(
  page: number,
  previousSize: number,
  size: number,
  totalCount: number,
  index = 0,
): number {
  const holdingRow = Math.floor(((page - 1) * previousSize + index) / size) + 1;
  return Math.min(holdingRow, pageCount(totalCount, size));
}
