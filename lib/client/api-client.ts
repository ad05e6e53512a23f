import { type QueryKey, keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { ApiEvent, ApiLink, ApiList } from './present';
import { UTC_ZONE } from '@/lib/domain/dates';
import {
  API_ORGS_PATH,
  type EventsFilterParams,
  type EventsListParams,
  apiEventPath,
  apiEventTypesPath,
  apiFacetsPath,
  apiHistogramPath,
  apiListPath,
  listBounds,
} from './url-state';
import { activityHeaders } from './activity';
import type { HistogramBounds } from './histogram';
import type { FacetField, HistogramInterval } from '@/lib/domain/filters';
import { DASHBOARD_CLIENT_HEADER, DASHBOARD_CLIENT_VALUE } from '@/lib/domain/limits';
import { type JsonSource, parseJsonSource } from '@/lib/domain/json-text';

/**
 * Every react-query definition the dashboard uses. The browser talks to the
 * same public API routes as any client, authenticated by the session cookie;
 * the server renders first pages through the same paths in-process.
 */

/** The API's error body: `{ detail, error, errorCode, parameters, reason }`. */
export type ApiErrorBody = {
  detail?: string | null;
  error?: number;
  errorCode?: string;
  parameters?: unknown[];
  reason?: string | null;
};

export class ApiRequestError extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly detail: string | null;
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: ApiErrorBody | null, retryAfterSeconds: number | null = null) {
    const detail = body?.detail ?? null;
    super(detail ?? `Request failed with status ${status}`);
    this.name = 'ApiRequestError';
    this.status = status;
    this.errorCode = body?.errorCode ?? (status === 0 ? 'NETWORK_ERROR' : 'UNEXPECTED_ERROR');
    this.detail = detail;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Parses a `Retry-After` header (seconds form); null when absent or malformed. */
export function parseRetryAfter(value: string | null): number | null {
  if (!value || !/^\d{1,6}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** GET an API path from the browser and decode it, or throw ApiRequestError. */
export async function fetchApi<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await jsonBody(await fetchOk(path, signal))) as T;
}

/**
 * GET an API path from the browser and decode it, with the server's clock at
 * the answer: its `Date` header in epoch milliseconds (whole seconds), null
 * when absent or malformed.
 */
export async function fetchApiDated<T>(
  path: string,
  signal?: AbortSignal,
  options: { background?: boolean } = {},
): Promise<{ body: T; date: number | null }> {
  const response = await fetchOk(path, signal, options.background);
  const header = response.headers.get('Date');
  const date = header ? Date.parse(header) : NaN;
  return { body: (await jsonBody(response)) as T, date: Number.isFinite(date) ? date : null };
}

/**
 * GET an API path as its JSON source tree (json-text.ts parseJsonSource):
 * every number, key order and escape as the server wrote it, which a raw
 * document must be shown and compared by (JSON.parse turned
 * 9007199254740993 into ...992 and 1.0 into 1).
 */
export async function fetchApiSource(path: string, signal?: AbortSignal): Promise<JsonSource> {
  return parseJsonSource(await (await fetchOk(path, signal)).text());
}

/**
 * The response to a GET of an API path from the browser, or ApiRequestError.
 * `background`: the page asks by itself, whatever the user did (activity.ts).
 */
async function fetchOk(path: string, signal?: AbortSignal, background = false): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, {
      headers: {
        Accept: 'application/json',
        [DASHBOARD_CLIENT_HEADER]: DASHBOARD_CLIENT_VALUE,
        ...activityHeaders({ background }),
      },
      credentials: 'same-origin',
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiRequestError(0, { detail: 'The server could not be reached.' });
  }
  if (!response.ok) throw await refusalOf(response);
  return response;
}

/** The API's refusal in a response that is not ok: its status, error body and Retry-After. */
export async function refusalOf(response: Response): Promise<ApiRequestError> {
  const body = await jsonBody(response);
  return new ApiRequestError(
    response.status,
    body && typeof body === 'object' ? (body as ApiErrorBody) : null,
    parseRetryAfter(response.headers.get('Retry-After')),
  );
}

/** A response's JSON body; null when empty or not JSON (a proxy's HTML error page). */
async function jsonBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

export type EventList = ApiList<ApiEvent>;

export type EventTypeSummary = {
  eventTypeName: string;
  label: string;
  category: string;
  count: number;
};
export type EventTypesResponse = {
  links: ApiLink[];
  results: EventTypeSummary[];
  categories: { name: string; types: string[] }[];
  totalCount: number;
};

export type OrgSummary = { id: string; name: string; links?: ApiLink[] };
export type OrgList = ApiList<OrgSummary>;

export type FacetValue = { value: string; count: number };
export type FacetsResponse = {
  totalCount: number;
  facets: Partial<Record<FacetField, FacetValue[]>>;
};
export type HistogramResponse = {
  interval: HistogramInterval;
  totalCount: number;
  buckets: { start: string; count: number }[];
};

/**
 * A histogram as the chart draws it: the API's answer and the bounds it was
 * asked for (listBounds: null where open). Its buckets are whole hours, days…
 * of the zone's clock, so the first may start before `min` and the last end
 * after `max`, each counting only the events within (lib/client/histogram.ts barSpan).
 */
export type ChartHistogram = HistogramResponse & { bounds: HistogramBounds };

/**
 * The normalized filters and dates of a view: the list, its facets and its
 * histogram all carry this same object in their keys, so they always describe
 * the same set of events.
 */
export function filtersKey(params: EventsFilterParams) {
  const { types, excludeTypes, fields, actor, q, range, from, to } = params;
  const fieldPairs = Object.entries(fields)
    .filter(([, values]) => values.length > 0)
    .map(([field, values]) => `${field}=${[...values].sort().join(',')}`)
    .sort();
  return {
    types: [...types].sort().join(','),
    excludeTypes: [...excludeTypes].sort().join(','),
    fields: fieldPairs.join('&'),
    actor: [...actor].sort().join(','),
    q,
    range,
    from,
    to,
  };
}

/** Whether two lists hold the same events in the same order (pages and sizes apart). */
export function sameFilters(a: EventsFilterParams, b: EventsFilterParams): boolean {
  const left = filtersKey(a);
  const right = filtersKey(b);
  return (Object.keys(left) as (keyof typeof left)[]).every((key) => left[key] === right[key]);
}

/** The normalized key of one list page: same view, same key, wherever it is built. */
export function eventsListQueryKey(params: EventsListParams) {
  const { orgId, page, size } = params;
  return ['orgs', orgId, 'events', 'list', { ...filtersKey(params), page, size }] as const;
}

/** Values per facet the sidebar and the query box's completion show. */
export const FACET_LIMIT = 10;

export function facetsQueryKey(
  params: EventsFilterParams,
  fields: readonly FacetField[],
  limit = FACET_LIMIT,
) {
  return [
    'orgs',
    params.orgId,
    'events',
    'facets',
    filtersKey(params),
    fields.join(','),
    limit,
  ] as const;
}

/**
 * Counts for the fields asked (the sidebar's open sections): each field costs
 * the server a scan. `limit` values each, most frequent first.
 */
export function facetsQueryOptions(
  params: EventsFilterParams,
  fields: readonly FacetField[],
  limit = FACET_LIMIT,
) {
  return queryOptions({
    queryKey: facetsQueryKey(params, fields, limit),
    queryFn: ({ signal }) => fetchApi<FacetsResponse>(apiFacetsPath(params, fields, limit), signal),
    placeholderData: keepPreviousData,
  });
}

/**
 * At most this many bars: the API picks the smallest interval that covers the
 * range in as many (a day in hours, a week in hours, a month in days, a year
 * in weeks), fine enough to drag across one of them at 1440 px.
 */
export const HISTOGRAM_BUCKETS = 200;

/** A histogram's key: its bars start on `zone`'s clock (days at its midnights), so each zone has its own. */
export function histogramQueryKey(params: EventsFilterParams, zone: string = UTC_ZONE) {
  return ['orgs', params.orgId, 'events', 'histogram', filtersKey(params), zone] as const;
}

export function histogramQueryOptions(params: EventsFilterParams, zone: string) {
  return queryOptions({
    queryKey: histogramQueryKey(params, zone),
    queryFn: async ({ signal }): Promise<ChartHistogram> => {
      // One instant for the request and its bounds: a preset range's start is read from it.
      const now = Date.now();
      const path = apiHistogramPath(params, HISTOGRAM_BUCKETS, zone, now);
      return {
        ...(await fetchApi<HistogramResponse>(path, signal)),
        bounds: listBounds(params, now),
      };
    },
    placeholderData: keepPreviousData,
  });
}

export function eventsListQueryOptions(params: EventsListParams) {
  return queryOptions({
    queryKey: eventsListQueryKey(params),
    queryFn: ({ signal }) => fetchApi<EventList>(apiListPath(params), signal),
    // The previous page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
}

export function eventQueryKey(orgId: string, eventId: string, includeRaw: boolean) {
  return ['orgs', orgId, 'events', 'one', eventId, includeRaw ? 'raw' : 'plain'] as const;
}

export function eventQueryOptions(orgId: string, eventId: string, includeRaw: boolean) {
  return queryOptions({
    queryKey: eventQueryKey(orgId, eventId, includeRaw),
    queryFn: ({ signal }) => fetchApi<ApiEvent>(apiEventPath(orgId, eventId, includeRaw), signal),
    // An event never changes once recorded.
    staleTime: Infinity,
  });
}

/** An event with its raw document, as its source tree (fetchApiSource): what the Raw tab and Compare read. */
export function eventSourceQueryOptions(orgId: string, eventId: string) {
  return queryOptions({
    queryKey: ['orgs', orgId, 'events', 'one', eventId, 'source'] as const,
    queryFn: ({ signal }) => fetchApiSource(apiEventPath(orgId, eventId, true), signal),
    // An event never changes once recorded.
    staleTime: Infinity,
  });
}

/**
 * Whether a cached query counts the org's events, so that newer events change
 * its answer: its list pages, facets, histograms and event type counts. A
 * single event's entries are left alone (an event never changes once recorded).
 */
export function countsOrgEvents(orgId: string, queryKey: QueryKey): boolean {
  const [root, id, kind, part] = queryKey;
  if (root !== 'orgs' || id !== orgId) return false;
  if (kind === 'eventTypes') return true;
  return kind === 'events' && (part === 'list' || part === 'facets' || part === 'histogram');
}

/**
 * The org's type catalogue; with `params`, its counts are those of the
 * params' dates and filters (types apart), keyed by them, as the picker shows
 * beside the facets. Without, all-time counts: the catalogue's names.
 */
export function eventTypesQueryOptions(orgId: string, params?: EventsFilterParams) {
  const filters = params ? filtersKey({ ...params, types: [], excludeTypes: [] }) : 'all';
  return queryOptions({
    queryKey: ['orgs', orgId, 'eventTypes', filters] as const,
    queryFn: ({ signal }) => fetchApi<EventTypesResponse>(apiEventTypesPath(orgId, params), signal),
    // The catalogue alone changes rarely; counts under filters, as facets do.
    ...(params ? {} : { staleTime: 5 * 60_000 }),
    placeholderData: keepPreviousData,
  });
}

export function orgsQueryOptions() {
  return queryOptions({
    queryKey: ['orgs'] as const,
    queryFn: ({ signal }) => fetchApi<OrgList>(API_ORGS_PATH, signal),
  });
}
