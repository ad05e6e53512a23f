import { getConfig } from '@/lib/config';
import { isCatalogedEventType } from '@/lib/domain/catalog';
import { isObjectId } from '@/lib/domain/object-id';
import {
  type ReadContext,
  requireReadableOrg,
  type RouteContext,
  type RouteResult,
} from './context';
import {
  eventNotFound,
  invalidEventType,
  invalidQueryParameter,
  malformedPath,
} from '@/lib/domain/errors';
import { FILTER_FIELDS, MAX_HISTOGRAM_BUCKETS } from '@/lib/domain/filters';
import { toApiDateTime } from '@/lib/domain/dates';
import { TooManyBucketsError } from '@/lib/store/types';
import { pageLinks } from './links';
import {
  type FilterParams,
  parseFacetsParams,
  parseGetEventParams,
  parseHistogramParams,
  parseListEventsParams,
} from './params';
import { eventJson, HOSTED_ONLY_FIELDS, listJson } from './serialize';
import { API_PREFIX } from './types';

/**
 * Every requested type must be one this variant knows, or one present in the
 * org's data (imports may carry newer types than our catalogue). The
 * per-type counts are only read when some type is not catalogued.
 */
export async function checkEventTypes(ctx: ReadContext, orgId: string, types: readonly string[]) {
  const variant = ctx.config.EVENTS_VARIANT;
  const unknown = types.filter((type) => !isCatalogedEventType(type, variant));
  if (unknown.length === 0) return;
  const present = new Set((await ctx.store.eventTypeCounts(orgId)).map((c) => c.eventTypeName));
  const missing = unknown.find((type) => !present.has(type));
  if (missing !== undefined) throw invalidEventType(missing);
}

// GET /orgs/{orgId}/events – the org's events, newest first, paginated.
export async function listEvents(ctx: RouteContext, orgId: string): Promise<RouteResult> {
  await requireReadableOrg(ctx, orgId);
  return listReadableOrgEvents(ctx, orgId);
}

/** The list's answer for an org already authorized (the admin CLI reads any org). */
export async function listReadableOrgEvents(
  ctx: ReadContext,
  orgId: string,
): Promise<RouteResult & { json: string }> {
  const query = parseListEventsParams(ctx.params);
  await checkEventTypes(ctx, orgId, query.eventTypes);

  const page = await ctx.store.listEvents({
    ...storeFilter(orgId, query),
    offset: (query.pageNum - 1) * query.itemsPerPage,
    limit: query.itemsPerPage,
    includeCount: query.includeCount,
    includeRaw: query.includeRaw,
  });
  const options = { includeRaw: query.includeRaw, variant: ctx.config.EVENTS_VARIANT };
  const items = page.events.map((event) => eventJson(event, ctx.base, options));
  const links = pageLinks(`${ctx.base}${API_PREFIX}/orgs/${orgId}/events`, ctx.params, {
    pageNum: query.pageNum,
    itemsPerPage: query.itemsPerPage,
    hasNext: page.hasMore,
  });
  // includeCount=false: the real service still sends totalCount, as 0.
  return { json: listJson(links, items, page.totalCount ?? 0), shape: 'list' };
}

/**
 * The store's filter from parsed parameters: only the filter's own keys.
 * On the self-hosted variant `q` does not match the fields it never shows
 * (the handler drops their filters, variantParams): a match would reveal
 * their values.
 */
export function storeFilter(orgId: string, query: FilterParams) {
  const { eventTypes, minCreated, maxCreated, fields, actor, q, excludeEventTypes } = query;
  const unsearchedFields =
    q !== undefined && getConfig().EVENTS_VARIANT === 'self-hosted' ? HIDDEN_FILTERS : undefined;
  return {
    orgId,
    eventTypes,
    minCreated,
    maxCreated,
    fields,
    actor,
    q,
    excludeEventTypes,
    unsearchedFields,
  };
}

/** The filterable fields the self-hosted variant never shows (HOSTED_ONLY_FIELDS). */
const HIDDEN_FILTERS = FILTER_FIELDS.filter((field) => HOSTED_ONLY_FIELDS.has(field));

// GET /orgs/{orgId}/events/facets – top values per field under the other filters (extension).
export async function eventFacets(ctx: RouteContext, orgId: string): Promise<RouteResult> {
  await requireReadableOrg(ctx, orgId);
  const query = parseFacetsParams(ctx.params);
  await checkEventTypes(ctx, orgId, query.eventTypes);
  const result = await ctx.store.facets(storeFilter(orgId, query), query.facetFields, query.limit);
  return { json: JSON.stringify(result), shape: 'object' };
}

// GET /orgs/{orgId}/events/histogram – counts per bucket aligned to UTC or timeZone (extension).
export async function eventHistogram(ctx: RouteContext, orgId: string): Promise<RouteResult> {
  await requireReadableOrg(ctx, orgId);
  const query = parseHistogramParams(ctx.params);
  await checkEventTypes(ctx, orgId, query.eventTypes);
  try {
    const result = await ctx.store.histogram({
      ...storeFilter(orgId, query),
      buckets: query.buckets,
      interval: query.interval,
      timeZone: query.timeZone,
    });
    return {
      json: JSON.stringify({
        interval: result.interval,
        totalCount: result.totalCount,
        buckets: result.buckets.map((b) => ({ start: toApiDateTime(b.start), count: b.count })),
      }),
      shape: 'object',
    };
  } catch (error) {
    if (error instanceof TooManyBucketsError) {
      throw invalidQueryParameter(
        'interval',
        query.interval ?? '',
        `must give at most ${MAX_HISTOGRAM_BUCKETS} buckets over the date range (${error.exact ? '' : 'about '}${error.needed} needed); narrow minDate/maxDate or choose a longer interval`,
      );
    }
    throw error;
  }
}

// GET /orgs/{orgId}/events/{eventId} – one event of the org.
export async function getEvent(
  ctx: RouteContext,
  orgId: string,
  eventId: string,
): Promise<RouteResult> {
  await requireReadableOrg(ctx, orgId);
  return getReadableOrgEvent(ctx, orgId, eventId);
}

/** One event of an org already authorized (the admin CLI reads any org). */
export async function getReadableOrgEvent(
  ctx: ReadContext,
  orgId: string,
  eventId: string,
): Promise<RouteResult & { json: string }> {
  if (!isObjectId(eventId)) throw malformedPath(ctx.path);
  const { includeRaw } = parseGetEventParams(ctx.params);
  // Always scoped by orgId: another org's event id is simply not found.
  const event = await ctx.store.getEvent(orgId, eventId, includeRaw);
  if (!event) throw eventNotFound(eventId);
  return {
    json: eventJson(event, ctx.base, { includeRaw, variant: ctx.config.EVENTS_VARIANT }),
    shape: 'object',
  };
}
