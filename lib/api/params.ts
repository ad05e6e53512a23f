import type * as z from 'zod';
import { type ApiError, invalidQueryParameter } from '@/lib/domain/errors';
import {
  FILTER_FIELDS,
  type FacetField,
  type FieldFilters,
  type FilterField,
  type HistogramInterval,
} from '@/lib/domain/filters';
import {
  REPEATABLE_QUERY_PARAMETERS,
  facetsParameters,
  filterParameters,
  formatParameters,
  type ExportFormat,
  exportEventsParameters,
  getEventParameters,
  histogramParameters,
  listEventsParameters,
  pagingParameters,
} from '@/lib/domain/query';
import type { Variant } from '@/lib/config';
import { HOSTED_ONLY_FIELDS } from './serialize';
import type { ResponseFormat } from './types';

/**
 * Query parameters, strictly validated by the schemas of lib/domain/query.ts
 * (which the OpenAPI document is generated from). The raw pairs are kept in
 * the order received: the list's `self` link repeats them that way, like the
 * real service. Names are case-sensitive; unknown names are ignored (real
 * clients send extras); for a repeated single-valued name the first value wins.
 */
export type QueryParam = { name: string; value: string };

function decodeComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced; // malformed %-escape: keep it raw, the validators reject it if it matters
  }
}

export function parseQuery(search: string): QueryParam[] {
  const query = search.startsWith('?') ? search.slice(1) : search;
  if (query === '') return [];
  const params: QueryParam[] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
    params.push({ name, value });
  }
  return params;
}

/**
 * Whether the variant takes a query parameter. The self-hosted variant never
 * returns invoiceId or paymentId (spec rule 3), so it takes no filter on them:
 * a filter on a field no answer shows would reveal its values by the counts.
 * One rule for the handler, which drops such parameters from requests, and
 * for that variant's OpenAPI document, which leaves them out.
 */
export function variantTakesParameter(variant: Variant, name: string): boolean {
  return variant !== 'self-hosted' || !HOSTED_ONLY_FIELDS.has(name);
}

// ---- parsing with the schemas of lib/domain/query.ts ------------------------------

type RawInput = Record<string, string | string[]>;

/**
 * The schema's input from the ordered pairs: only the names the schema
 * knows, every value of a repeatable name, the first value of any other.
 */
function rawInput(
  params: readonly QueryParam[],
  shape: Readonly<Record<string, unknown>>,
): RawInput {
  const input: RawInput = {};
  for (const { name, value } of params) {
    if (!Object.hasOwn(shape, name)) continue;
    const seen = input[name];
    if (REPEATABLE_QUERY_PARAMETERS.has(name)) {
      if (Array.isArray(seen)) seen.push(value);
      else input[name] = [value];
    } else if (seen === undefined) {
      input[name] = value;
    }
  }
  return input;
}

/**
 * A schema's first issue as the API's 400: the parameter it names, the value
 * as received (for a list item, the item) and the schema's rule text.
 */
function toInvalidQueryParameter(issue: z.core.$ZodIssue, input: RawInput): ApiError {
  const name = String(issue.path[0]);
  const raw = input[name];
  const value =
    typeof issue.path[1] === 'number' || typeof raw !== 'string' ? String(issue.input) : raw;
  return invalidQueryParameter(name, value, issue.message);
}

function parseWith<Schema extends z.ZodObject>(
  schema: Schema,
  params: readonly QueryParam[],
): z.output<Schema> {
  const input = rawInput(params, schema.shape);
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw toInvalidQueryParameter(result.error.issues[0]!, input);
  return result.data;
}

// ---- the parameter sets of the endpoints ------------------------------------

export function parseFormat(params: readonly QueryParam[]): ResponseFormat {
  return parseWith(formatParameters, params);
}

export type Paging = { pageNum: number; itemsPerPage: number; includeCount: boolean };

/** pageNum ≥ 1, itemsPerPage 1..MAX_ITEMS_PER_PAGE, includeCount; a page beyond any possible offset is a 400. */
export function parsePaging(params: readonly QueryParam[]): Paging {
  const { pageNum, itemsPerPage, includeCount } = parseWith(pagingParameters, params);
  return { pageNum, itemsPerPage, includeCount };
}

/** The filtered set every events endpoint describes: type, date and field filters. */
export type FilterParams = FieldFilters & {
  /** Distinct, in the order given; empty means every type. */
  eventTypes: string[];
  minCreated?: number;
  maxCreated?: number;
};

export type ListEventsParams = Paging & FilterParams & { includeRaw: boolean };

type ParsedFilters = z.output<typeof filterParameters>;

/** The schema's decoded filters as the store's filter (absent parameters stay absent). */
function toFilter(parsed: ParsedFilters): FilterParams {
  const fields: Partial<Record<FilterField, readonly string[]>> = {};
  for (const field of FILTER_FIELDS) {
    const values = parsed[field];
    if (values !== undefined) fields[field] = values;
  }
  return {
    eventTypes: parsed.eventType,
    minCreated: parsed.minDate,
    maxCreated: parsed.maxDate,
    ...(Object.keys(fields).length > 0 ? { fields } : {}),
    ...(parsed.actor ? { actor: parsed.actor } : {}),
    ...(parsed.q ? { q: parsed.q } : {}),
    ...(parsed.excludeEventType.length > 0 ? { excludeEventTypes: parsed.excludeEventType } : {}),
  };
}

/** The filters alone (GET /orgs/{orgId}/eventTypes). */
export function parseFilterParams(params: readonly QueryParam[]): FilterParams {
  return toFilter(parseWith(filterParameters, params));
}

/** GET /orgs/{orgId}/events/facets. */
export function parseFacetsParams(
  params: readonly QueryParam[],
): FilterParams & { facetFields: FacetField[]; limit: number } {
  const parsed = parseWith(facetsParameters, params);
  return { ...toFilter(parsed), facetFields: parsed.field, limit: parsed.limit };
}

/** GET /orgs/{orgId}/events/histogram. */
export function parseHistogramParams(
  params: readonly QueryParam[],
): FilterParams & { buckets: number; interval?: HistogramInterval; timeZone?: string } {
  const parsed = parseWith(histogramParameters, params);
  return {
    ...toFilter(parsed),
    buckets: parsed.buckets,
    interval: parsed.interval,
    timeZone: parsed.timeZone,
  };
}

/**
 * The list's parameters, checked for syntax. Whether each event type exists
 * (catalogue or data) is the events handler's check: it needs the store.
 */
export function parseListEventsParams(params: readonly QueryParam[]): ListEventsParams {
  const parsed = parseWith(listEventsParameters, params);
  return {
    ...toFilter(parsed),
    pageNum: parsed.pageNum,
    itemsPerPage: parsed.itemsPerPage,
    includeCount: parsed.includeCount,
    includeRaw: parsed.includeRaw,
  };
}

export function parseGetEventParams(params: readonly QueryParam[]): { includeRaw: boolean } {
  return parseWith(getEventParameters, params);
}

/** GET /orgs/{orgId}/events/export: the list's filters, the format and includeRaw. */
export function parseExportParams(
  params: readonly QueryParam[],
): FilterParams & { format: ExportFormat; includeRaw: boolean } {
  const parsed = parseWith(exportEventsParameters, params);
  return { ...toFilter(parsed), format: parsed.format, includeRaw: parsed.includeRaw };
}
