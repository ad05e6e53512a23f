import type { ReadContext } from '@/lib/api/context';
import type { QueryParam } from '@/lib/api/params';
import { getConfig } from '@/lib/config';
import { ApiError } from '@/lib/domain/errors';
import { FILTER_FIELDS } from '@/lib/domain/filters';
import type { EventStore, Org } from '@/lib/store/types';
import { CommandError, parseDate, parseObjectId, requireOption, UsageError } from './args';
import { requireOrg } from './context';

/** The list's filters as options: the API's names for the fields, the vendor CLI's for the rest. */
export const FILTER_OPTIONS = {
  org: { type: 'string' },
  type: { type: 'string', multiple: true },
  'exclude-type': { type: 'string', multiple: true },
  'min-date': { type: 'string' },
  'max-date': { type: 'string' },
  actor: { type: 'string', multiple: true },
  q: { type: 'string', multiple: true },
  ...Object.fromEntries(
    FILTER_FIELDS.map((field) => [fieldOption(field), { type: 'string', multiple: true }]),
  ),
} as const;

/**
 * A field filter's option: the API's name for the field, but for `database`,
 * which every command's `--database URL` (the store) already is.
 */
function fieldOption(field: string): string {
  return field === 'database' ? 'database-name' : field;
}

type OptionValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

function strings(value: OptionValues[string]): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** The options' filters as the API's query parameters (checked by the API's own parser). */
export function filterParams(values: OptionValues): QueryParam[] {
  const params: QueryParam[] = [];
  const add = (name: string, list: string[]) => {
    for (const value of list) params.push({ name, value });
  };
  add('eventType', strings(values.type));
  add('excludeEventType', strings(values['exclude-type']));
  for (const [flag, name] of [
    ['min-date', 'minDate'],
    ['max-date', 'maxDate'],
  ] as const) {
    const value = values[flag];
    if (typeof value === 'string') {
      params.push({ name, value: new Date(parseDate(value, `--${flag}`)).toISOString() });
    }
  }
  add('actor', strings(values.actor));
  add('q', strings(values.q));
  for (const field of FILTER_FIELDS) add(field, strings(values[fieldOption(field)]));
  return params;
}

/** The org named by --org, or a clear error. */
export async function requireOrgOption(store: EventStore, values: OptionValues): Promise<Org> {
  const orgId = parseObjectId(requireOption(values.org as string | undefined, '--org'), '--org');
  return requireOrg(store, orgId, "List them with 'orgs list'.");
}

/** What lib/api's operations read, for an operator: links point at PUBLIC_BASE_URL (or localhost:3000). */
export function readContext(store: EventStore, path: string, params: QueryParam[]): ReadContext {
  const config = getConfig();
  return {
    path,
    params,
    store,
    config,
    base: config.PUBLIC_BASE_URL ?? 'http://localhost:3000',
  };
}

/** The API's refusals as the CLI's: a bad parameter is a bad command line. */
export async function asCommand<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ApiError) {
      if (error.status === 400) throw new UsageError(error.detail);
      throw new CommandError(error.detail);
    }
    throw error;
  }
}
