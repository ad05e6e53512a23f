import {
  type CsvColumns,
  csvColumns,
  csvDocumentRecord,
  csvLine,
  EVENT_CSV_FIELDS,
} from '@/lib/domain/csv';
import { type Config, DEFAULT_POOL_SIZE } from '@/lib/config';
import { tooManyExports } from '@/lib/domain/errors';
import type { ExportFormat } from '@/lib/domain/query';
import type { EventCursor, Org, StoredEvent } from '@/lib/store/types';
import {
  type ReadContext,
  requireReadableOrg,
  type RouteContext,
  type RouteResult,
} from './context';
import { checkEventTypes, storeFilter } from './events';
import { parseExportParams } from './params';
import { eventJson, HOSTED_ONLY_FIELDS } from './serialize';
import { ClientStalledError, type StreamingBody } from './types';

/** The header X-Total-Count: how many events the body holds, counted in its snapshot. */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

/** 2026-01-02T03:04:05.678Z -> 20260102T030405Z: a file name's range end. */
function compactInstant(millis: number): string {
  return new Date(millis)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** Lower-case letters, digits and dashes of an org's name, at most 40. */
function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/**
 * `events-<org name>-<orgId>-<from>--<to>.<ext>`: an open start is
 * `beginning`, an open end the moment of the export. ASCII only, so the
 * plain `filename=` form is enough for every browser.
 */
function exportFileName(
  org: { id: string; name: string },
  range: { minCreated?: number; maxCreated?: number },
  format: ExportFormat,
  now: number,
): string {
  const name = slug(org.name);
  const from = range.minCreated === undefined ? 'beginning' : compactInstant(range.minCreated);
  const to = compactInstant(range.maxCreated ?? now);
  return `events-${name ? `${name}-` : ''}${org.id}-${from}--${to}.${format}`;
}

/** The CSV's columns: every field of the variant, then `raw` when asked for. */
function exportCsvColumns(ctx: ReadContext, includeRaw: boolean): CsvColumns {
  const hidden: ReadonlySet<string> =
    ctx.config.EVENTS_VARIANT === 'self-hosted' ? HOSTED_ONLY_FIELDS : new Set();
  const fields = EVENT_CSV_FIELDS.filter((field) => !hidden.has(field));
  return csvColumns(includeRaw ? [...fields, 'raw'] : fields);
}

/** An export under way: its body, and how far it got. */
export type EventExport = {
  /** Events in the body, counted in its snapshot. */
  totalCount: number;
  fileName: string;
  contentType: string;
  body: StreamingBody;
  /** Events written into the body so far. */
  eventsRead(): number;
};

/** The cursor's batches as body chunks: one chunk per batch, `head` before the first. */
function cursorBody(
  cursor: EventCursor,
  head: string,
  encode: (event: StoredEvent) => string,
): { body: StreamingBody; eventsRead: () => number } {
  let pending = head;
  let read = 0;
  const body: StreamingBody = {
    async read() {
      const events = await cursor.read();
      read += events.length;
      let chunk = pending;
      pending = '';
      for (const event of events) chunk += encode(event);
      return chunk === '' ? null : chunk;
    },
    cancel: () => cursor.close(),
  };
  return { body, eventsRead: () => read };
}

/**
 * Opens the export of an org already authorized (the admin CLI exports any
 * org): parameters checked, snapshot open and counted, body not yet read.
 */
export async function openOrgExport(ctx: ReadContext, org: Org): Promise<EventExport> {
  const query = parseExportParams(ctx.params);
  await checkEventTypes(ctx, org.id, query.eventTypes);
  const now = Date.now();
  const cursor = await ctx.store.openEventCursor(storeFilter(org.id, query), {
    includeRaw: query.includeRaw,
  });
  let encoded: ReturnType<typeof cursorBody>;
  if (query.format === 'ndjson') {
    const options = { includeRaw: query.includeRaw, variant: ctx.config.EVENTS_VARIANT };
    encoded = cursorBody(cursor, '', (event) => `${eventJson(event, ctx.base, options)}\n`);
  } else {
    const columns = exportCsvColumns(ctx, query.includeRaw);
    encoded = cursorBody(cursor, csvLine(columns.names), (event) =>
      csvDocumentRecord(event.doc, event.raw, columns),
    );
  }
  return {
    totalCount: cursor.totalCount,
    fileName: exportFileName(org, query, query.format, now),
    contentType: CONTENT_TYPES[query.format],
    ...encoded,
  };
}

/**
 * How many API exports this process streams at once: EXPORT_MAX_CONCURRENT,
 * else 4, leaving at least two of the PostgreSQL pool's connections to
 * every other request (a pool of 2, the least, still allows one export).
 */
export function exportLimit(
  config: Pick<Config, 'EXPORT_MAX_CONCURRENT' | 'DATABASE_POOL_SIZE'>,
): number {
  const pool = config.DATABASE_POOL_SIZE ?? DEFAULT_POOL_SIZE;
  return config.EXPORT_MAX_CONCURRENT ?? Math.max(1, Math.min(4, pool - 2));
}

/** The API's exports this process is streaming (exportLimit). */
let exportsUnderWay = 0;

/**
 * The body of an API export, counted among the exports under way until it
 * ends however it ends (read out, failed, cancelled), and
 * ends itself when its client has read nothing for `idleMs`: without, ten
 * clients that stopped reading held ten snapshots, on PostgreSQL every
 * connection of the pool, and every other request of the instance failed
 * with 503 until they went away. The client then sees a cut connection
 * (`stalled`: the adapter cuts it at once, not when the client reads again).
 */
function heldExport(body: StreamingBody, idleMs: number): StreamingBody {
  let ended = false;
  let stalled = false;
  let markStalled: (reason: ClientStalledError) => void = () => undefined;
  const whenStalled = new Promise<ClientStalledError>((resolve) => (markStalled = resolve));
  const end = async () => {
    clearTimeout(idle);
    if (ended) return;
    ended = true;
    exportsUnderWay--;
    await body.cancel();
  };
  const armed = () =>
    setTimeout(() => {
      stalled = true;
      markStalled(new ClientStalledError(idleMs / 1000));
      // Unawaited: a failure to end must not become an unhandled rejection.
      end().catch(() => undefined);
    }, idleMs).unref();
  let idle = armed();
  return {
    async read() {
      clearTimeout(idle);
      if (stalled) throw new ClientStalledError(idleMs / 1000);
      try {
        const chunk = await body.read();
        if (chunk === null) await end();
        else idle = armed();
        return chunk;
      } catch (error) {
        await end();
        throw error;
      }
    },
    cancel: end,
    stalled: whenStalled,
  };
}

/**
 * The body with its first chunk already read: read before the status line
 * goes out, a failure there (the database gone, its session ended) is still
 * answered as every error is (503 with Retry-After), where once the headers
 * are sent the client only sees a cut connection (before, with no status
 * line at all). The chunk is then served first.
 */
async function withFirstChunkRead(body: StreamingBody): Promise<StreamingBody> {
  let first: string | null;
  try {
    first = await body.read();
  } catch (error) {
    await body.cancel().catch(() => undefined);
    throw error;
  }
  let served = false;
  return {
    read() {
      if (served) return body.read();
      served = true;
      return Promise.resolve(first);
    },
    cancel: () => body.cancel(),
  };
}

// GET /orgs/{orgId}/events/export – the whole filtered set, streamed (extension).
export async function exportEvents(ctx: RouteContext, orgId: string): Promise<RouteResult> {
  const org = await requireReadableOrg(ctx, orgId);
  const limit = exportLimit(ctx.config);
  if (exportsUnderWay >= limit) throw tooManyExports(limit, 5);
  // Counted from here: its snapshot (a connection) is taken before the body is read.
  exportsUnderWay++;
  let opened: EventExport;
  let body: StreamingBody;
  try {
    opened = await openOrgExport(ctx, org);
    body = await withFirstChunkRead(opened.body);
  } catch (error) {
    exportsUnderWay--;
    throw error;
  }
  return {
    stream: heldExport(body, ctx.config.EXPORT_IDLE_SECONDS * 1000),
    headers: [
      ['Content-Type', opened.contentType],
      ['Content-Disposition', `attachment; filename="${opened.fileName}"`],
      [TOTAL_COUNT_HEADER, String(opened.totalCount)],
      ['Cache-Control', 'no-store'],
    ],
  };
}
