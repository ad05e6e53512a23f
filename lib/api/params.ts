import { DATE_TIME_FORMS, parseDateTime } from '@/lib/domain/dates';
import { EVENT_TYPE_PATTERN } from '@/lib/domain/catalog';
import { invalidQueryParameter } from '@/lib/domain/errors';
import type { ResponseFormat } from './types';

/**
 * Query parameters, strictly validated. The raw pairs are kept in the order
 * received: the list's `self` link repeats them that way, like the real
 * service. Names are case-sensitive; unknown names are ignored (real clients
 * send extras); for a repeated single-valued name the first value wins.
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

export function firstValue(params: readonly QueryParam[], name: string): string | undefined {
  for (const param of params) if (param.name === name) return param.value;
  return undefined;
}

export function allValues(params: readonly QueryParam[], name: string): string[] {
  return params.filter((p) => p.name === name).map((p) => p.value);
}

// ---- scalar parsers -----------------------------------------------------------

/** `true`/`false` in any letter case, like the real (Java) service; anything else is a 400. */
export function parseBooleanParam(
  params: readonly QueryParam[],
  name: string,
  fallback: boolean,
): boolean {
  const raw = firstValue(params, name);
  if (raw === undefined) return fallback;
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw invalidQueryParameter(name, raw, 'must be true or false');
}

export function parseIntegerParam(
  params: readonly QueryParam[],
  name: string,
  options: { fallback: number; min: number; max: number },
): number {
  const raw = firstValue(params, name);
  if (raw === undefined) return options.fallback;
  const range =
    options.max === Number.MAX_SAFE_INTEGER
      ? `an integer of at least ${options.min}`
      : `an integer from ${options.min} to ${options.max}`;
  if (!/^\d{1,16}$/.test(raw)) throw invalidQueryParameter(name, raw, `must be ${range}`);
  const value = Number(raw);
  if (value < options.min || value > options.max) {
    throw invalidQueryParameter(name, raw, `must be ${range}`);
  }
  return value;
}

export function parseDateParam(params: readonly QueryParam[], name: string): number | undefined {
  const raw = firstValue(params, name);
  if (raw === undefined) return undefined;
  const value = parseDateTime(raw);
  if (value === null) throw invalidQueryParameter(name, raw, `must be ${DATE_TIME_FORMS}`);
  return value;
}

// ---- the parameter sets of the endpoints ------------------------------------

export function parseFormat(params: readonly QueryParam[]): ResponseFormat {
  return {
    pretty: parseBooleanParam(params, 'pretty', false),
    envelope: parseBooleanParam(params, 'envelope', false),
  };
}

export const MAX_ITEMS_PER_PAGE = 500;
export const DEFAULT_ITEMS_PER_PAGE = 100;

export type Paging = { pageNum: number; itemsPerPage: number; includeCount: boolean };

/** pageNum ≥ 1, itemsPerPage 1..500, includeCount; a page beyond any possible offset is a 400. */
export function parsePaging(params: readonly QueryParam[]): Paging {
  const itemsPerPage = parseIntegerParam(params, 'itemsPerPage', {
    fallback: DEFAULT_ITEMS_PER_PAGE,
    min: 1,
    max: MAX_ITEMS_PER_PAGE,
  });
  const pageNum = parseIntegerParam(params, 'pageNum', {
    fallback: 1,
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
  });
  if ((pageNum - 1) * itemsPerPage > Number.MAX_SAFE_INTEGER) {
    throw invalidQueryParameter('pageNum', String(pageNum), 'page is beyond any possible result');
  }
  const includeCount = parseBooleanParam(params, 'includeCount', true);
  return { pageNum, itemsPerPage, includeCount };
}

export type ListEventsParams = Paging & {
  /** Distinct, in the order given; empty means every type. */
  eventTypes: string[];
  includeRaw: boolean;
  minCreated?: number;
  maxCreated?: number;
};

/**
 * The list's parameters, checked for syntax. Whether each event type exists
 * (catalogue or data) is the events handler's check: it needs the store.
 * eventType is repeatable and each value may also be a comma-separated list.
 */
export function parseListEventsParams(params: readonly QueryParam[]): ListEventsParams {
  const eventTypes = new Set<string>();
  for (const value of allValues(params, 'eventType')) {
    for (const item of value.split(',')) {
      const type = item.trim();
      if (type === '') continue;
      if (!EVENT_TYPE_PATTERN.test(type)) {
        throw invalidQueryParameter(
          'eventType',
          type,
          'must be an event type name in upper snake case, e.g. API_KEY_CREATED',
        );
      }
      eventTypes.add(type);
    }
  }
  return {
    ...parsePaging(params),
    eventTypes: [...eventTypes],
    includeRaw: parseBooleanParam(params, 'includeRaw', false),
    minCreated: parseDateParam(params, 'minDate'),
    maxCreated: parseDateParam(params, 'maxDate'),
  };
}
