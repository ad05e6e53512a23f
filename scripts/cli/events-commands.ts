import { getReadableOrgEvent, listReadableOrgEvents } from '@/lib/api/events';
import type { RouteResult } from '@/lib/api/context';
import type { QueryParam } from '@/lib/api/params';
import { prettyJson } from '@/lib/domain/json-text';
import { API_PREFIX, DEFAULT_ITEMS_PER_PAGE, MAX_ITEMS_PER_PAGE } from '@/lib/domain/limits';
import { EXIT, parseCommand, parseCount, parseObjectId, requireOption, UsageError } from './args';
import { type Command, type CommandContext, table } from './context';
import { exportEventsCommand } from './events-export';
import { prune } from './prune-command';
import {
  asCommand,
  FILTER_OPTIONS,
  filterParams,
  readContext,
  requireOrgOption,
} from './events-options';

/**
 * `events list|get|export|prune`: the org's events read straight from the store
 * through lib/api's own operations, so `--json` prints exactly what the API
 * returns. Subcommands by name: add one to EVENT_SUBCOMMANDS.
 */
const EVENT_SUBCOMMANDS: Record<string, Command> = {
  list: listEventsCommand,
  get: getEventCommand,
  export: exportEventsCommand,
  prune,
};

export const events: Command = async (args, context) => {
  const [sub, ...rest] = args;
  // Own names only: 'constructor', 'toString'... are on every object.
  const command =
    sub !== undefined && Object.hasOwn(EVENT_SUBCOMMANDS, sub) ? EVENT_SUBCOMMANDS[sub] : undefined;
  if (!command) {
    const names = Object.keys(EVENT_SUBCOMMANDS).join('|');
    throw new UsageError(sub ? `Unknown command 'events ${sub}'` : `Missing 'events ${names}'`);
  }
  return command(rest, context);
};

// ---- events list ---------------------------------------------------------------

async function listEventsCommand(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(
    args,
    {
      ...FILTER_OPTIONS,
      page: { type: 'string' },
      limit: { type: 'string' },
      'omit-count': { type: 'boolean' },
      'include-raw': { type: 'boolean' },
    },
    { min: 0, max: 0, names: '' },
  );
  const store = await context.store();
  const org = await requireOrgOption(store, values);
  const params = filterParams(values);
  const page = values.page === undefined ? 1 : parseCount(values.page, '--page', 1, 1e12);
  const limit =
    values.limit === undefined
      ? DEFAULT_ITEMS_PER_PAGE
      : parseCount(values.limit, '--limit', 1, MAX_ITEMS_PER_PAGE);
  params.push(
    { name: 'pageNum', value: String(page) },
    { name: 'itemsPerPage', value: String(limit) },
  );
  if (values['omit-count']) params.push({ name: 'includeCount', value: 'false' });
  if (values['include-raw']) params.push({ name: 'includeRaw', value: 'true' });
  const path = `${API_PREFIX}/orgs/${org.id}/events`;
  const result: RouteResult & { json: string } = await asCommand(() =>
    listReadableOrgEvents(readContext(store, path, params), org.id),
  );
  const body = JSON.parse(result.json) as {
    links: { rel: string }[];
    results: Record<string, unknown>[];
    totalCount: number;
  };
  context.emitText(result.json);
  const rows = body.results.map((event) => [
    String(event.created),
    String(event.eventTypeName),
    typeof event.username === 'string'
      ? event.username
      : typeof event.publicKey === 'string'
        ? event.publicKey
        : '',
    String(event.id),
  ]);
  const counted = values['omit-count'] ? '' : ` of ${body.totalCount.toLocaleString('en-US')}`;
  const first = (page - 1) * limit;
  const next = body.links.some((link) => link.rel === 'next') ? `; next: --page ${page + 1}` : '';
  context.say(
    rows.length === 0
      ? `No events on page ${page}${counted ? ` (${body.totalCount.toLocaleString('en-US')} in all)` : ''}.`
      : `${table(['CREATED', 'TYPE', 'ACTOR', 'ID'], rows)}\n\nEvents ${(first + 1).toLocaleString('en-US')}–${(first + rows.length).toLocaleString('en-US')}${counted}${next}`,
  );
  return EXIT.ok;
}

// ---- events get ----------------------------------------------------------------

async function getEventCommand(args: string[], context: CommandContext): Promise<number> {
  const { values } = parseCommand(
    args,
    { org: { type: 'string' }, id: { type: 'string' }, 'include-raw': { type: 'boolean' } },
    { min: 0, max: 0, names: '' },
  );
  const id = parseObjectId(requireOption(values.id, '--id'), '--id');
  const store = await context.store();
  const org = await requireOrgOption(store, values);
  const params: QueryParam[] = values['include-raw'] ? [{ name: 'includeRaw', value: 'true' }] : [];
  const path = `${API_PREFIX}/orgs/${org.id}/events/${id}`;
  const result = await asCommand(() =>
    getReadableOrgEvent(readContext(store, path, params), org.id, id),
  );
  context.emitText(result.json);
  context.say(prettyJson(result.json));
  return EXIT.ok;
}
