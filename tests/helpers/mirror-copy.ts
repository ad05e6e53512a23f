import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseDateTime } from '@/lib/domain/dates';
import { formatCreated, type StoredEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import {
  type MirrorCaughtUp,
  type MirrorOptions,
  type MirrorSummary,
  runMirror,
  type SourceOptions,
} from '@/lib/mirror/mirror';
import type { EventStore } from '@/lib/store/types';
import type { TestStore } from './test-stores';

/**
 * Mirrors a source organization (`baseUrl`, `sourceOrg`) into `orgId`, a new
 * organization of a fresh store, and lists the copy as the store serves it
 * (newest first, at most 100 events). The store is dropped afterwards.
 */
export async function mirrorIntoFreshStore(
  open: () => Promise<TestStore>,
  options: {
    baseUrl: string;
    sourceOrg: string;
    orgId: string;
    created: number;
    /** The source client's deadline, back-off and what it says of waits (its defaults otherwise). */
    source?: Pick<SourceOptions, 'timeoutMs' | 'backoffMs' | 'onWait'>;
    /** How many of the copy's events to list (100 unless told). */
    listed?: number;
  } & Pick<
    MirrorOptions,
    'itemsPerPage' | 'maxRecordBytes' | 'onRejected' | 'sleep' | 'shouldStop'
  >,
): Promise<{ summary: MirrorSummary; events: StoredEvent[] }> {
  const { store, drop } = await open();
  try {
    await store.createOrg({ id: options.orgId, name: 'Mirror copy', created: options.created });
    const summary = await runMirror({
      store,
      orgId: options.orgId,
      itemsPerPage: options.itemsPerPage,
      maxRecordBytes: options.maxRecordBytes,
      onRejected: options.onRejected,
      sleep: options.sleep,
      shouldStop: options.shouldStop,
      source: {
        baseUrl: options.baseUrl,
        orgId: options.sourceOrg,
        publicKey: 'p',
        privateKey: 'k',
        ...options.source,
      },
    });
    const page = await store.listEvents({
      orgId: options.orgId,
      offset: 0,
      limit: options.listed ?? 100,
      includeCount: true,
      includeRaw: false,
    });
    return { summary, events: page.events };
  } finally {
    await store.close();
    await drop();
  }
}

/**
 * A `--follow` mirror of `sourceOrg` at `baseUrl` into `orgId`, 5 events a
 * page, its waits between checks skipped, stopped once `checks` catch-ups
 * are done; `onCaughtUp` hears each one. Resolves to its summary and the
 * catch-ups' states.
 */
export async function followMirror(
  store: EventStore,
  options: {
    baseUrl: string;
    sourceOrg: string;
    orgId: string;
    checks: number;
    onCaughtUp?: (state: MirrorCaughtUp, checks: number) => void;
  } & Pick<MirrorOptions, 'onRejected'>,
): Promise<{ summary: MirrorSummary; checks: MirrorCaughtUp[] }> {
  const checks: MirrorCaughtUp[] = [];
  const summary = await runMirror({
    store,
    orgId: options.orgId,
    itemsPerPage: 5,
    follow: true,
    intervalSeconds: 1,
    pause: () => Promise.resolve(),
    onCaughtUp: (state) => {
      checks.push(state);
      options.onCaughtUp?.(state, checks.length);
    },
    shouldStop: () => checks.length >= options.checks,
    onRejected: options.onRejected,
    source: { baseUrl: options.baseUrl, orgId: options.sourceOrg, publicKey: 'p', privateKey: 'k' },
  });
  return { summary, checks };
}

/** A source's GROUP_CREATED event of `sourceOrg` at `at`, its id made of the time and `tag`. */
export function groupCreatedEvent(sourceOrg: string, at: number, tag: string): SourceEvent {
  const id = objectIdAt(at, tag.padEnd(16, '0'));
  return { id, at, doc: groupCreatedDocument({ at, id, orgId: sourceOrg, groupId: sourceOrg }) };
}

/** A GROUP_CREATED event of `orgId` as a source lists it, created at `at` (ms, in the served form). */
export function groupCreatedDocument(options: {
  at: number;
  id: string;
  orgId: string;
  groupId: string;
}): Record<string, unknown> {
  return {
    created: formatCreated(options.at),
    eventTypeName: 'GROUP_CREATED',
    groupId: options.groupId,
    id: options.id,
    isGlobalAdmin: false,
    links: [],
    orgId: options.orgId,
  };
}

/** The ids of the copy's events in `orgId`, newest first (at most 100). */
export async function copyIds(store: EventStore, orgId: string): Promise<string[]> {
  const page = await store.listEvents({
    orgId,
    offset: 0,
    limit: 100,
    includeCount: false,
    includeRaw: false,
  });
  return page.events.map((e) => e.id);
}

/** An event of a source: its document as served, and the time the source sorts and filters it by (ms). */
export type SourceEvent = { id: string; at: number; doc: Record<string, unknown> };

/**
 * `count` GROUP_CREATED events of `orgId`, a second apart up to `base` +
 * `count` s, newest first; each id is `idTag` and the event's index.
 */
export function eventsSecondApart(
  count: number,
  options: { base: number; orgId: string; idTag: string },
): SourceEvent[] {
  const { base, orgId, idTag } = options;
  return Array.from({ length: count }, (_, i) => {
    const at = base + (count - i) * 1000;
    const id = objectIdAt(at, `${idTag}${String(i).padStart(16 - idTag.length, '0')}`);
    return { id, at, doc: groupCreatedDocument({ at, id, orgId, groupId: orgId }) };
  });
}

/**
 * A source listing `events` (newest first by `at`) as the real service does:
 * minDate/maxDate against `at`, pageNum and itemsPerPage; no Digest asked.
 */
export async function listingSource(
  events: readonly SourceEvent[],
  faults: {
    /** Serves at most this many events a page, whatever was asked (as a service may clamp). */
    clamp?: number;
    /** Lists each page's events oldest first (the set the page holds is the right one). */
    reversePages?: boolean;
    /** Encodes the n-th answer's body (1-based), sent with its Content-Encoding, when it returns one. */
    encode?: (request: number, body: Buffer) => { encoding: string; body: Buffer } | undefined;
    /** Cuts the results of the n-th request (1-based) to their first `to`. */
    truncate?: { request: number; to: number };
    /** Awaited before answering the n-th request (1-based). */
    before?: (request: number) => Promise<void>;
    /** Answers the n-th request (1-based) itself, or not at all, when it returns true. */
    misbehave?: (request: number, res: http.ServerResponse) => boolean;
  } = {},
) {
  let requests = 0;
  const answer = (n: number, req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url!, 'http://source');
    const min = url.searchParams.get('minDate');
    const max = url.searchParams.get('maxDate');
    // As the real service (and this one): a date it cannot read is a 400.
    const unreadable = [min, max].find((date) => date !== null && parseDateTime(date) === null);
    if (unreadable !== undefined) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          detail: `Invalid value "${unreadable}" for query parameter ${unreadable === min ? 'minDate' : 'maxDate'}.`,
          error: 400,
          errorCode: 'INVALID_QUERY_PARAMETER',
          parameters: [],
          reason: 'Bad Request',
        }),
      );
      return;
    }
    const pageNum = Number(url.searchParams.get('pageNum') ?? 1);
    const itemsPerPage = Math.min(
      Number(url.searchParams.get('itemsPerPage') ?? 100),
      faults.clamp ?? Infinity,
    );
    const within = events.filter(
      (e) =>
        (min === null || e.at >= parseDateTime(min)!) &&
        (max === null || e.at <= parseDateTime(max)!),
    );
    let results = within.slice((pageNum - 1) * itemsPerPage, pageNum * itemsPerPage);
    if (faults.truncate?.request === n) results = results.slice(0, faults.truncate.to);
    if (faults.reversePages) results = results.reverse();
    const body = Buffer.from(JSON.stringify({ links: [], results: results.map((e) => e.doc) }));
    const encoded = faults.encode?.(n, body);
    res
      .writeHead(200, {
        'content-type': 'application/json',
        ...(encoded ? { 'content-encoding': encoded.encoding } : {}),
      })
      .end(encoded?.body ?? body);
  };
  const server = http.createServer((req, res) => {
    requests++;
    const n = requests;
    if (faults.misbehave?.(n, res)) return;
    void (async () => {
      await faults.before?.(n);
      answer(n, req, res);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
    // Closes the connections a misbehaving answer left open, too.
    close: () => {
      server.closeAllConnections();
      server.close();
    },
    requests: () => requests,
  };
}
