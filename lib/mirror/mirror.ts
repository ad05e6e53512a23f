import { errorMessage } from '@/lib/domain/errors';
import { createHash } from 'node:crypto';
import { getConfig } from '@/lib/config';
import { FIRST_INSTANT, parseDateTime } from '@/lib/domain/dates';
import { formatCreated, type NewEvent } from '@/lib/domain/event';
import {
  mergedSkipped,
  type MirrorSegment,
  parseMirrorCheckpoint,
  rewoundMirrorCheckpoint,
} from '@/lib/domain/mirror-checkpoint';
import { MAX_ITEMS_PER_PAGE } from '@/lib/domain/limits';
import { NOT_UTF8 } from '@/lib/domain/utf8';
import { recordBytes, toNewEvent, tooLargeMessage } from '@/lib/ingest/import';
import { recordIngestRunEnd, settleIngestRuns, startIngestRun } from '@/lib/ingest/ingest-runs';
import { ListingOrder } from '@/lib/ingest/listing-order';
import { refreshStatisticsAfterLoad } from '@/lib/ingest/refresh-statistics';
import { LiveMirrorConflictError } from '@/lib/store/errors';
import { eventKey } from '@/lib/store/terms';
import type { EventStore, IngestRun } from '@/lib/store/types';
import {
  MirrorError,
  SourceClient,
  type SourceOptions,
  type SourcePageRecord,
  type SourceRecord,
  SourceStopped,
} from './source';

/**
 * Mirrors a live organization through its own public API into a local one.
 *
 * The walk never asks for a deep page (whose counts time out at the real
 * service): it reads time windows newest first with `includeCount=false`,
 * and after each page moves the window's upper bound (`maxDate`,
 * inclusive) down to the oldest `created` on that page, so the next request
 * is page 1 again (a page shorter than asked too: only an empty page ends a
 * window, as the source may clamp itemsPerPage). The events sharing that second are read twice (skipped as
 * already present: inserts are idempotent by event id), which is the overlap
 * that keeps events sharing a second from being missed. Only when a whole
 * page shares one second does the walk step to page 2, 3… of that second.
 *
 * Where it stands is saved in the store after every page (the checkpoint):
 * the window being walked, and `through`, the newest instant up to which the
 * copy is complete. A killed mirror resumes the window it was in, then
 * catches up from `through` (less `overlapMs`, for late arrivals) to now;
 * `follow` repeats the catch-up every interval until stopped.
 */

export type MirrorOptions = {
  store: EventStore;
  /** The local organization the events go into. */
  orgId: string;
  source: SourceOptions;
  /**
   * Copy only events created at or after this instant. On a later run,
   * an instant earlier than the copy's start copies what lies between
   * (`onBackfill` says so); a later one changes nothing.
   */
  since?: number;
  follow?: boolean;
  /** Seconds between catch-ups with `follow` (default 60). */
  intervalSeconds?: number;
  /** Events per page (default 500, the API's maximum). */
  itemsPerPage?: number;
  /**
   * Events stored per write (default 5,000): pages are gathered until this
   * many, the end of a window or a stop, then inserted in one transaction
   * (a store's cost per transaction dwarfs its cost per event at 500).
   */
  eventsPerWrite?: number;
  /**
   * The longest record copied, in UTF-8 bytes as served (default
   * IMPORT_MAX_RECORD_BYTES, 1 MB, as for `import`): a longer one is
   * rejected and reported. A page's answer may be as long as its records
   * at this limit, and no longer.
   */
  maxRecordBytes?: number;
  /** How far before `through` each catch-up starts again (default 60 s). */
  overlapMs?: number;
  /** Checked after every page: true ends the mirror cleanly (checkpoint saved). */
  shouldStop?: () => boolean;
  /** Waits up to `ms`, resolving early when a stop is requested. */
  pause?: (ms: number) => Promise<void>;
  onProgress?: (progress: MirrorProgress) => void;
  /** `since` lies before the copy's start: the events from there `until` (ISO) are copied first. */
  onBackfill?: (range: { since: string; until: string }) => void;
  /**
   * `since` lies after the copy's start (`from`, ISO; null: the source's
   * first event), so it changes nothing: the copy keeps what it holds and
   * catches up as usual.
   */
  onLaterSince?: (range: { since: string; from: string | null }) => void;
  /** With `follow`: after each catch-up, before waiting `nextCheckSeconds`. */
  onCaughtUp?: (state: MirrorCaughtUp) => void;
  /**
   * With `follow`: a walk ended by a source down or failing for now
   * (MirrorError.transient); the mirror tries again from its checkpoint
   * after `nextCheckSeconds`.
   */
  onSourceDown?: (state: MirrorProgress & { reason: string; nextCheckSeconds: number }) => void;
  /**
   * A record the source served that is not a valid event (counted as
   * rejected), reported once the pages around it are stored.
   */
  onRejected?: (record: unknown, message: string) => void;
  /**
   * The statistics refresh after copied events failed (why): the copy has
   * committed all the same (lib/ingest/refresh-statistics.ts).
   */
  onStatisticsNotRefreshed?: (reason: string, copied: number) => void;
  sleep?: (ms: number) => Promise<void>;
};

export type MirrorProgress = {
  copied: number;
  skipped: number;
  rejected: number;
  requests: number;
  retries: number;
  /** The window being read: ISO bounds (undefined: open). */
  window: { minDate?: string; maxDate?: string; pageNum: number };
  seconds: number;
  /**
   * The walk under way alone (the first, or a `--follow` catch-up): what it
   * copied and for how long, its rate without the waits between checks.
   */
  walk: { copied: number; seconds: number };
};

/** Where a following mirror stands after a catch-up (`through` as in the summary). */
export type MirrorCaughtUp = MirrorProgress & { through: string | null; nextCheckSeconds: number };

export type MirrorSummary = Omit<MirrorProgress, 'window' | 'walk'> & {
  runId: string;
  /** The copy is complete up to this instant (ISO), or null when the source had nothing. */
  through: string | null;
  /** Ended by a stop request (SIGINT/SIGTERM) rather than by finishing. */
  stopped: boolean;
  /**
   * Stopped within a walk, so the copy is not complete through now: the
   * run is recorded as interrupted. A `--follow` mirror stopped between
   * checks is not (its last catch-up was complete).
   */
  interrupted: boolean;
  /** Why the last statistics refresh failed, when it did (onStatisticsNotRefreshed). */
  statisticsNotRefreshed?: string;
  /** Why the run's end could not be recorded in the ledger, when it could not (its copy stands). */
  runNotRecorded?: string;
};

const DEFAULT_EVENTS_PER_WRITE = 5000;
/** Events a `--follow` mirror copies between refreshes of the planner's statistics. */
const REFRESH_STATISTICS_AFTER = 10_000;

/**
 * Why a record holding bytes that are no UTF-8 is rejected: stored, it would
 * differ from what the source sent (decodeMarkingInvalid).
 */
const NOT_UTF8_AS_SERVED =
  'Not valid UTF-8 as the source served it: bytes that are no UTF-8 character';

/**
 * The checkpoint's key: one per source base URL and source org. The URL as
 * parsed (scheme and host in lower case, no default port, no trailing
 * slash): the same source spelled another way resumes the same checkpoint
 * instead of walking the whole org again. A URL already in that form keeps
 * the key it always had.
 */
function checkpointKey(source: Pick<SourceOptions, 'baseUrl' | 'orgId'>): string {
  const url = new URL(source.baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}#${source.orgId}`;
}

export async function runMirror(options: MirrorOptions): Promise<MirrorSummary> {
  const { store, orgId } = options;
  const started = performance.now();
  const itemsPerPage = options.itemsPerPage ?? MAX_ITEMS_PER_PAGE;
  const eventsPerWrite = options.eventsPerWrite ?? DEFAULT_EVENTS_PER_WRITE;
  const overlapMs = options.overlapMs ?? 60_000;
  const shouldStop = options.shouldStop ?? (() => false);
  const pause =
    options.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const key = checkpointKey(options.source);

  /** The checkpoint as stored, as far as this mirror knows (it alone writes it while it runs). */
  let stored = await store.getMirrorCheckpoint(orgId, key);
  let checkpoint = parseMirrorCheckpoint(stored);
  /**
   * Saved only over what this mirror read or wrote last: an undo (of any run
   * of the org) drops the checkpoint while a `--follow` mirror runs, and
   * writing back the position held in memory would make every later run
   * skip what the undo removed. Then the walk starts over (CheckpointMoved).
   */
  const save = async () => {
    const text = JSON.stringify(checkpoint);
    if (!(await store.setMirrorCheckpoint(orgId, key, text, stored))) {
      throw new CheckpointMoved();
    }
    stored = text;
  };
  /**
   * The events this run has stored (or found present) within the overlap
   * of the newest: each `--follow` catch-up reads that last minute again,
   * and those events were counted "already present" at every check (30
   * copied against 113 present after 25 checks of a quiet org). Recognised,
   * they are dropped as the edge second's repeats are.
   */
  const recent = new RecentEvents(overlapMs);
  /**
   * The invalid records this run counted, and those the last run saved
   * within the overlap: read again (a catch-up's overlap, a walk resumed, a
   * run from cron), they are not counted twice.
   */
  const rejected = new SeenRecords(checkpoint.rejectedRecently);
  /** Takes the stored checkpoint for the walk's own when it changed under it; true if it had. */
  const reread = async () => {
    const now = await store.getMirrorCheckpoint(orgId, key);
    if (now === stored) return false;
    stored = now;
    checkpoint = parseMirrorCheckpoint(now);
    // Changed under this run (an undo): what it stored may be gone, so
    // nothing it read before is taken as present any more.
    recent.clear();
    return true;
  };

  /**
   * Of the runs whose events a flush found present, those already undone
   * (its events were found while being deleted, and the undo's last pass
   * over the checkpoints may have read this one before the flush saved
   * them in it). Wound back here as that pass would; the next save finds
   * the checkpoint moved and walks again. An undo still under way is left
   * to its last pass: acting on it here restarted the walk at every flush.
   */
  const windBackForUndone = async (held: Record<string, number>) => {
    for (const [id, oldest] of Object.entries(held)) {
      const holder = await store.getIngestRun(id);
      if (holder?.status === 'undone') {
        await store.rewriteMirrorCheckpoints(orgId, (state, source) =>
          source === key
            ? (rewoundMirrorCheckpoint(state, { id, oldest, mirroredHere: false }) ?? state)
            : state,
        );
      }
    }
  };

  // A mirror of the same source that was killed left its run `running`:
  // settled as interrupted here (this run resumes from its checkpoint). One
  // still alive would share the checkpoint with this one: refused. This check
  // names the holder; the database's one-live-mirror index (migration 0012)
  // is what refuses a mirror that passed it at the same moment.
  const liveMirror = async () => {
    const runs = await settleIngestRuns(store, await store.listIngestRuns(orgId));
    return runs.find((r) => r.kind === 'mirror' && r.status === 'running' && r.source === key);
  };
  const refuse = (live: IngestRun | undefined) =>
    new MirrorError(
      'ALREADY_RUNNING',
      live
        ? `Another mirror of ${key} into ${orgId} is running (run ${live.id}, process ${live.pid ?? '?'} on ${live.host ?? '?'}, started ${formatCreated(live.started)}): stop it first`
        : `Another mirror of ${key} into ${orgId} is running: stop it first`,
    );
  const live = await liveMirror();
  if (live) throw refuse(live);
  // An undo killed after marking its run undone, before its last pass over
  // the checkpoints, left this one holding that run's deleted events as
  // present: wound back now, or the copy would never fetch them again.
  if (checkpoint.skipped !== undefined) {
    await windBackForUndone(checkpoint.skipped);
    await reread();
  }
  const maxRecordBytes = options.maxRecordBytes ?? getConfig().IMPORT_MAX_RECORD_BYTES;
  // A page's records at the limit, and a megabyte for the list around them
  // (the client reads no more than a string holds, whatever this says).
  const pageBytes = itemsPerPage * maxRecordBytes + (1 << 20);
  const client = new SourceClient({ maxAnswerBytes: pageBytes, ...options.source }, options.sleep);
  const sourceOrg = options.source.orgId;
  /** Why a served record is not copied, found before its fields are validated (toNewEvent). */
  const refusal = (record: SourceRecord, text: string): string | undefined => {
    if (text.includes(NOT_UTF8)) return NOT_UTF8_AS_SERVED;
    const size = recordBytes(text, maxRecordBytes);
    if (size > maxRecordBytes) return tooLargeMessage(size, maxRecordBytes);
    // Stored, it would have become an event of the local org like the
    // source's own: a source listing another org's event is faulty.
    const recordOrg = fieldOf(record, 'orgId');
    if (recordOrg != null && recordOrg !== sourceOrg) {
      return `orgId ${JSON.stringify(recordOrg)} is not the source organization ${sourceOrg}`;
    }
    return undefined;
  };
  let run: IngestRun;
  try {
    run = await startIngestRun(store, { orgId, kind: 'mirror', source: key });
  } catch (error) {
    if (error instanceof LiveMirrorConflictError) throw refuse(await liveMirror());
    client.close();
    throw error;
  }
  const counts = { copied: 0, skipped: 0, rejected: 0 };
  /**
   * The planner's statistics, refreshed as an import's are once `atLeast`
   * events were copied since the last refresh: on PostgreSQL, statistics
   * that do not know the copy's org yet plan its queries for a handful of
   * rows. A failure here is no failure of the copy, which has committed:
   * it is said (onStatisticsNotRefreshed), and the next refresh tries again.
   */
  let copiedAtRefresh = 0;
  let statisticsNotRefreshed: string | undefined;
  const refreshStatistics = async (atLeast: number) => {
    if (counts.copied - copiedAtRefresh < atLeast) return;
    copiedAtRefresh = counts.copied;
    statisticsNotRefreshed = await refreshStatisticsAfterLoad(store);
    if (statisticsNotRefreshed !== undefined) {
      options.onStatisticsNotRefreshed?.(statisticsNotRefreshed, counts.copied);
    }
  };
  let window: MirrorProgress['window'] = { pageNum: 1 };
  /** Where the walk under way started: copied by then, and when. */
  let walkStart = { copied: 0, at: started };
  const progress = (): MirrorProgress => {
    const now = performance.now();
    return {
      ...counts,
      requests: client.requests,
      retries: client.retries,
      window,
      seconds: (now - started) / 1000,
      walk: { copied: counts.copied - walkStart.copied, seconds: (now - walkStart.at) / 1000 },
    };
  };
  const ledgerCounts = () => ({
    inserted: counts.copied,
    skipped: counts.skipped,
    rejected: counts.rejected,
  });
  const endRun = (status: 'finished' | 'failed' | 'interrupted', detail: string | null) =>
    recordIngestRunEnd(store, run.id, { status, ...ledgerCounts(), detail });

  const windowOf = (segment: MirrorSegment): MirrorProgress['window'] => ({
    // Never before 0000-01-01, the earliest a source reads: the catch-up's
    // overlap (or an undo's wind-back) below a copy of year 0000's first
    // minute asked for year -1, refused by the source at every later run.
    minDate:
      segment.lo === undefined ? undefined : formatCreated(Math.max(segment.lo, FIRST_INSTANT)),
    maxDate: segment.hi,
    pageNum: segment.pageNum,
  });
  const fetchPage = (at: MirrorProgress['window']) => {
    const fetching = client.page({ ...at, itemsPerPage });
    // Handled when awaited; a prefetch abandoned by a stop or a failed
    // insert must not surface as an unhandled rejection.
    fetching.catch(() => undefined);
    return fetching;
  };

  /** The most events the source served on one page: its page size, if it clamps itemsPerPage. */
  let servedMost = 0;
  /** The source's order within a second, kept in the copy's sort keys. */
  let listing = new ListingOrder();

  /**
   * Walks one segment to its end; false when stopped on the way. The next
   * window is known as soon as a page arrives (it depends only on that page),
   * so the next page is requested while this one is stored: the source's
   * latency and the store's writes overlap instead of adding up. Pages are
   * stored eventsPerWrite at a time; the checkpoint moves only once they are.
   */
  const walk = async (segment: MirrorSegment): Promise<boolean> => {
    if (segment.itemsPerPage !== undefined && segment.itemsPerPage !== itemsPerPage) {
      // Paged with another size before (MirrorSegment.itemsPerPage): this
      // second from its first page again; what is present is skipped.
      segment.pageNum = 1;
      delete segment.listed;
      delete segment.itemsPerPage;
    }
    let next = windowOf(segment);
    /** Where the page asked for starts in its window's top second's listing (MirrorSegment.listed). */
    let nextListed = segment.listed ?? (segment.pageNum - 1) * itemsPerPage;
    let pending = fetchPage(next);
    let batch: NewEvent[] = [];
    /**
     * The ids in `batch`: an id the source lists twice (in two seconds, a
     * page shifted under the walk) is stored once and read again the second
     * time. In one write, the store found it present and runsHolding, which
     * counts ids, not rows, left it counted as "already present".
     */
    let batchIds = new Set<string>();
    /**
     * The gathered pages' invalid records, counted and reported with the
     * pages' events: a walk that fails before storing them (a source outage
     * under --follow) reads those pages again, and they were counted twice.
     */
    let rejects: [record: unknown, message: string, text: string][] = [];
    const edge = new EdgeSecond();
    /** The window's empty page was asked for again (see below). */
    let askedAgain = false;
    /** A page in one second, shorter than the source's others, is being asked for again (see below). */
    let shortPageAskedAgain = false;
    /**
     * Whether the source has answered this walk yet. One that fails or is
     * stopped before its first answer leaves the checkpoint as it found it:
     * saving the segment it was about to walk made a first run refused by
     * the source (a wrong key) hold an open-ended segment, which the next
     * run, with the right key and a --since, walked whole, --since unread.
     */
    let answered = false;
    /** Stores the gathered pages and moves the checkpoint to where they end. */
    const flush = async (done: boolean) => {
      const ids = batch.map((event) => event.id);
      const result = await store.insertEvents(orgId, batch, { runId: run.id });
      // Of the events found present, those this mirror copied before (an
      // earlier run, or this one earlier: a catch-up's overlap, a resumed
      // window, events dated after the walk began) are read again, not
      // "already present": a mirror run from cron counted its last minute
      // at every run. The others were inserted by another run (an import,
      // another source's mirror): held by the copy without being copied, so
      // an undo of that run must wind the copy back (rewoundMirrorCheckpoint).
      // The mirror's own rows include what this write inserted.
      const held =
        result.skipped > 0
          ? await store.runsHolding(orgId, ids, { source: key })
          : { others: {}, bySource: result.inserted };
      const reread = held.bySource - result.inserted;
      if (checkpoint.skipped !== undefined && Object.keys(held.others).length > 0) {
        checkpoint = { ...checkpoint, skipped: mergedSkipped(checkpoint.skipped, held.others) };
      }
      recent.remember(batch, segment.top);
      batch = [];
      batchIds = new Set();
      counts.copied += result.inserted;
      counts.skipped += result.skipped - reread;
      for (const [record, message, text] of rejects) {
        if (rejected.isNew(text, createdOrNull(record))) {
          counts.rejected++;
          options.onRejected?.(record, message);
        }
      }
      rejects = [];
      if (!done) {
        checkpoint = { ...checkpoint, segment: { ...segment } };
      } else {
        const through = Math.min(
          Math.max(checkpoint.through ?? -Infinity, segment.top ?? -Infinity),
          segment.started ?? Infinity,
        );
        // A walk reaching below the copy's start (an earlier --since's) moves it there.
        const from =
          checkpoint.from === undefined || segment.lo === undefined
            ? undefined
            : Math.min(checkpoint.from, segment.lo);
        // The invalid records the next catch-up reads again (as RecentEvents keeps events).
        const rejectedRecently = Number.isFinite(through)
          ? rejected.atOrAfter(through - overlapMs - RECENT_MARGIN_MS)
          : {};
        checkpoint = {
          version: 1,
          ...(Number.isFinite(through) ? { through, capped: true as const } : {}),
          ...(from === undefined ? {} : { from }),
          ...(checkpoint.skipped === undefined ? {} : { skipped: checkpoint.skipped }),
          ...(Object.keys(rejectedRecently).length === 0 ? {} : { rejectedRecently }),
        };
        if (Number.isFinite(through)) recent.forgetBefore(through);
      }
      await save();
      await windBackForUndone(held.others);
      await store.updateIngestRun(run.id, ledgerCounts());
    };
    for (;;) {
      window = next;
      const listedBefore = nextListed;
      let page: SourcePageRecord[];
      try {
        page = await pending;
      } catch (error) {
        // A stop cut the request (or its retry's wait) short, or the source
        // failed for good: the pages gathered are stored either way, and the
        // next run asks for this one again (before, a failure dropped them,
        // and the next run read them again).
        if (error instanceof SourceStopped) {
          if (answered) await flush(false);
          return false;
        }
        // The source's error is the one to tell; a store failing too shows
        // again at the next run's first write.
        if (answered) await flush(false).catch(() => undefined);
        throw error;
      }
      /** Whether pages came before this one: gathered, unstored, they are stored if it fails a check. */
      const gathered = answered;
      answered = true;
      const records = page.map((record) => record.value);
      // An empty page ends the walk, and nothing below it is asked for by
      // any later run: one that follows events (a source's passing fault, a
      // replica behind) is asked for once more before it is believed.
      if (records.length === 0 && segment.top !== undefined && !askedAgain) {
        askedAgain = true;
        pending = fetchPage(next);
        continue;
      }
      askedAgain = false;
      // Read once per page: the newest and oldest valid `created` on it.
      const ends = datedEnds(records);
      // Only an empty page ends a window: a shorter page than asked is no
      // proof (the source may clamp itemsPerPage, or cut a list short, and
      // with includeCount=false no `next` link tells). A short page moves
      // the window down as a full one does, and the next request re-reads
      // its oldest second; the page after the window's last is empty.
      const done = records.length === 0;
      const reasked = shortPageAskedAgain;
      let oldest = 0;
      if (!done) {
        try {
          tooNew(ends, segment.hi);
          tooOld(ends, segment.lo);
          // The same page asked again holds what it held: no sign of a source ignoring pageNum.
          if (!reasked) repeatedPage(window, records, edge);
          oldest = oldestCreated(ends, records);
        } catch (error) {
          // The pages gathered before this one are stored, and the next run
          // asks for this one again (as when a request fails): they were
          // dropped, and read again. The store's failure would show again
          // at the next run's first write; the page's is the one to tell.
          if (gathered) await flush(false).catch(() => undefined);
          throw error;
        }
      }
      // After the checks: a page failing them says nothing of the walk's newest.
      segment.top ??= ends?.newest;
      if (!done) {
        shortPageAskedAgain = false;
        servedMost = Math.max(servedMost, records.length);
        // The real service renders `created` to the second but sorts by the
        // stored time: the new upper bound is the end of the oldest event's
        // second, so the rest of that second is read again, never skipped.
        const oldestSecondEnd = Math.floor(oldest / 1000) * 1000 + 999;
        if (segment.hi !== undefined && oldestSecondEnd >= parseDateTime(segment.hi)!) {
          // A page in one second: the next page of that second. But the
          // source starts that page where a whole one ends, so a page
          // shorter than its others (cut short by a fault) is asked for
          // once more, or what it lacked would never be read.
          if (records.length < servedMost && !reasked) shortPageAskedAgain = true;
          else {
            segment.pageNum++;
            segment.listed = listedBefore + records.length;
            segment.itemsPerPage = itemsPerPage;
          }
        } else {
          segment.hi = new Date(oldestSecondEnd).toISOString();
          segment.pageNum = 1;
          delete segment.listed;
          delete segment.itemsPerPage;
        }
        next = windowOf(segment);
        nextListed = segment.listed ?? 0;
        if (!shouldStop()) pending = fetchPage(next);
      }
      // A page p > 1 continues its window's top second (see ListingOrder).
      const top = window.maxDate === undefined ? undefined : parseDateTime(window.maxDate)!;
      listing.restart(top === undefined ? undefined : Math.floor(top / 1000) * 1000, listedBefore);
      page.forEach(({ value: record, text }) => {
        // Read again at a window's edge: already counted, never stored twice.
        const reread = edge.has(record);
        const event = refusal(record, text) ?? toNewEvent(record, orgId, true, text);
        if (typeof event === 'string') {
          if (!reread) rejects.push([record, event, text]);
          return;
        }
        // Its place in the second is counted either way (see ListingOrder).
        event.created = listing.sortKey(event.created, eventKey(event.id));
        if (!reread && !recent.has(event) && !batchIds.has(event.id)) {
          batch.push(event);
          batchIds.add(event.id);
        }
      });
      edge.after(records);
      // Read once: a stop must never leave gathered pages unstored.
      const stop = shouldStop();
      if (done || stop || batch.length >= eventsPerWrite) await flush(done);
      options.onProgress?.(progress());
      if (done) return true;
      if (stop) return false;
    }
  };

  // A stop request does not wait for a request that hangs (a source
  // dripping its answer) or a long Retry-After: both are cut short.
  const watcher = setInterval(() => {
    if (shouldStop()) client.stop();
  }, 200);
  watcher.unref();
  const throughText = () =>
    checkpoint.through === undefined ? null : formatCreated(checkpoint.through);
  let stopped = false;
  /** Whether onLaterSince was called (once a run). */
  let laterSinceSaid = false;
  /** Stopped within a walk: the copy is not complete through now (the ledger says interrupted). */
  let cutShort = false;
  const walked = async (segment: MirrorSegment) => {
    walkStart = { copied: counts.copied, at: performance.now() };
    cutShort = !(await walk(segment));
    return !cutShort;
  };
  try {
    for (;;) {
      try {
        if (checkpoint.segment) stopped = !(await walked(checkpoint.segment));
        while (!stopped) {
          // A checkpoint saved before walks were capped (MirrorSegment.started)
          // may say the copy is complete through a future instant: where it
          // really stands is unknown, so the walk starts over (what is
          // already copied is skipped). A capped one is trusted, ahead of
          // this clock or not.
          const through =
            checkpoint.through !== undefined &&
            (checkpoint.capped === true || checkpoint.through <= Date.now())
              ? checkpoint.through
              : undefined;
          let lo: number | undefined;
          if (through === undefined) {
            // A first walk (or one after an undo emptied the copy): from
            // --since, else where the copy was said to start.
            lo = options.since ?? checkpoint.from;
            const startMoved = lo !== checkpoint.from;
            // This walk reads all the copy holds: from here on what it
            // finds present is known (MirrorCheckpoint.skipped).
            checkpoint = { ...checkpoint, from: lo, skipped: checkpoint.skipped ?? {} };
            if (lo === undefined) delete checkpoint.from;
            // Saved before the first page, as a backfill is: a first run
            // killed before its first write would leave a next run without
            // --since to copy everything.
            else if (startMoved) await save();
          } else {
            const from = checkpoint.from;
            // Said once: a --follow mirror comes here at every catch-up.
            const { since } = options;
            if (since !== undefined && (from === undefined || since > from) && !laterSinceSaid) {
              laterSinceSaid = true;
              options.onLaterSince?.({
                since: formatCreated(since),
                from: from === undefined ? null : formatCreated(from),
              });
            }
            if (options.since !== undefined && from !== undefined && options.since < from) {
              // An earlier --since than the copy's start: what lies between is
              // copied first (older than anything the copy holds), then the
              // catch-up as usual.
              const hi = new Date(Math.floor(from / 1000) * 1000 + 999).toISOString();
              options.onBackfill?.({ since: formatCreated(options.since), until: hi });
              // Saved before its first page: a run killed before its first
              // write left no trace of it, and a next run without this
              // --since never copied the range.
              const backfill: MirrorSegment = { lo: options.since, hi, pageNum: 1 };
              checkpoint = { ...checkpoint, segment: backfill };
              await save();
              if (!(await walked({ ...backfill }))) {
                stopped = true;
                break;
              }
            }
            // Never below the copy's start: the overlap must not reach into
            // what --since left out or a prune removed.
            lo = Math.max(through - overlapMs, checkpoint.from ?? -Infinity);
          }
          stopped = !(await walked({ lo, pageNum: 1, started: Date.now() }));
          if (stopped || !options.follow) break;
          // A quiet org's catch-ups copy a few events each: not worth a vacuum every minute.
          await refreshStatistics(REFRESH_STATISTICS_AFTER);
          const nextCheckSeconds = options.intervalSeconds ?? 60;
          options.onCaughtUp?.({ ...progress(), through: throughText(), nextCheckSeconds });
          await pause(nextCheckSeconds * 1000);
          stopped = shouldStop();
          // Dropped meanwhile (an undo): the next catch-up starts from the stored one.
          if (!stopped && (await reread()) && checkpoint.segment) throw new CheckpointMoved();
        }
        break;
      } catch (error) {
        if (error instanceof CheckpointMoved) {
          // Changed under this walk (an undo dropped it): it starts over
          // from the stored checkpoint (none: everything, as a first run).
          await reread();
        } else if (options.follow && error instanceof MirrorError && error.transient) {
          // A following mirror outlives a source's outage or maintenance:
          // it waits, then walks again from what it last stored.
          const nextCheckSeconds = options.intervalSeconds ?? 60;
          options.onSourceDown?.({ ...progress(), reason: error.message, nextCheckSeconds });
          await pause(nextCheckSeconds * 1000);
          if ((stopped = shouldStop())) break;
          await reread();
          // The walk moved the segment it was given past what was stored.
          checkpoint = parseMirrorCheckpoint(stored);
        } else throw error;
        listing = new ListingOrder();
      }
    }
  } catch (error) {
    // Not recorded (the database cannot write): the error thrown says why.
    await endRun('failed', errorMessage(error));
    throw error;
  } finally {
    clearInterval(watcher);
    client.close();
  }
  await refreshStatistics(1);
  // What the walks copied is committed, checkpoint and all: a run whose end
  // cannot be recorded (the disk full) says so rather than failing, as an
  // import does; 'imports list' shows it interrupted meanwhile, with what
  // it copied, and records that once the database can write.
  const { unrecorded: runNotRecorded } = await endRun(
    cutShort ? 'interrupted' : 'finished',
    cutShort ? 'stopped on request within a walk; the next run resumes' : null,
  );
  const last = progress();
  return {
    runId: run.id,
    copied: last.copied,
    skipped: last.skipped,
    rejected: last.rejected,
    requests: last.requests,
    retries: last.retries,
    seconds: last.seconds,
    through: throughText(),
    stopped,
    interrupted: cutShort,
    ...(statisticsNotRefreshed === undefined ? {} : { statisticsNotRefreshed }),
    ...(runNotRecorded === undefined ? {} : { runNotRecorded }),
  };
}

/**
 * Records seen before, by a digest of their text as served: an invalid
 * record has no id to know it by, nor a valid time to forget it after, and
 * a catch-up reads the last minute again at every check. Digests are small; a source serving more invalid records than
 * MAX has the rest counted at each reading.
 */
class SeenRecords {
  private static readonly MAX = 100_000;
  /** The most a checkpoint carries (MirrorCheckpoint.rejectedRecently). */
  private static readonly SAVED = 1_000;
  /** Digest to the record's `created` (ms), null when it has none that parses. */
  private readonly digests = new Map<string, number | null>();

  /** What an earlier run saved (atOrAfter): read again, those records are not counted. */
  constructor(saved: Record<string, number | null> = {}) {
    for (const [digest, created] of Object.entries(saved)) this.digests.set(digest, created);
  }

  /** Whether the record of this text is seen for the first time (and remembers it). */
  isNew(text: string, created: number | null): boolean {
    const digest = createHash('sha1').update(text).digest('base64');
    if (this.digests.has(digest)) return false;
    if (this.digests.size < SeenRecords.MAX) this.digests.set(digest, created);
    return true;
  }

  /**
   * Those the next catch-up reads again, for the checkpoint: created at or
   * after `since` (a record without a valid `created` cannot be placed, and
   * is kept), the last SAVED of them.
   */
  atOrAfter(since: number): Record<string, number | null> {
    const kept = [...this.digests].filter(([, created]) => created === null || created >= since);
    return Object.fromEntries(kept.slice(-SeenRecords.SAVED));
  }
}

/**
 * What a catch-up reads again is kept a second beyond the overlap: its
 * window starts `overlapMs` before `through`, which the source compares with
 * its sub-second keys, so that second's records may come again too.
 */
const RECENT_MARGIN_MS = 1000;

/**
 * The events a run stored (or found present) no older than `overlapMs`
 * before the newest it read: what its next catch-up reads again. Only
 * those are kept, so a first copy of a large org holds a minute's worth.
 */
class RecentEvents {
  private readonly created = new Map<string, number>();
  constructor(private readonly overlapMs: number) {}

  /** By id alone: an event's place in its second may differ from one reading to the next. */
  has(event: NewEvent): boolean {
    return this.created.has(event.id);
  }

  /** After `events` are stored; `newest`: the newest `created` of the walk that read them. */
  remember(events: readonly NewEvent[], newest: number | undefined): void {
    if (newest === undefined) return;
    const oldest = newest - this.overlapMs - RECENT_MARGIN_MS;
    for (const event of events) {
      if (event.created >= oldest) this.created.set(event.id, event.created);
    }
  }

  /** The next catch-up starts `overlapMs` before `through`: anything older will not be read again. */
  forgetBefore(through: number): void {
    const oldest = through - this.overlapMs - RECENT_MARGIN_MS;
    for (const [id, created] of this.created) if (created < oldest) this.created.delete(id);
  }

  clear(): void {
    this.created.clear();
  }
}

/**
 * The ids of the last page's oldest second: the next window ends with that
 * second, so the source serves them again. Recognised, they are dropped
 * rather than counted "already present" (a first copy showed a few), and an
 * invalid one is not reported twice. So are the records after them that
 * have no valid `created` (a faulty source's): the page's oldest second is
 * that of its last dated record, and those come again too.
 */
class EdgeSecond {
  private second: number | undefined;
  private readonly ids = new Set<string>();
  /** The last page's records after its last dated one, as JSON text. */
  private undated = new Set<string>();

  has(record: SourceRecord): boolean {
    const second = secondOf(record);
    if (second === undefined) return this.undated.has(JSON.stringify(record));
    const id = idOf(record);
    return typeof id === 'string' && this.ids.has(id) && second === this.second;
  }

  /** After each page (newest first): its oldest second's ids, added to those of earlier pages of that second. */
  after(records: readonly SourceRecord[]): void {
    let last = records.length - 1;
    this.undated = new Set();
    for (; last >= 0 && secondOf(records[last]) === undefined; last--) {
      this.undated.add(JSON.stringify(records[last]));
    }
    if (last < 0) return;
    const second = secondOf(records[last]);
    if (second !== this.second) {
      this.ids.clear();
      this.second = second;
    }
    for (let i = last; i >= 0; i--) {
      const record = records[i];
      const recordSecond = secondOf(record);
      if (recordSecond === undefined) continue;
      if (recordSecond !== second) break;
      const id = idOf(record);
      if (typeof id === 'string') this.ids.add(id);
    }
  }
}

/** A field of a served record; undefined when the record is no object (a source may serve null). */
function fieldOf(record: SourceRecord, name: 'id' | 'created' | 'orgId'): unknown {
  return typeof record === 'object' && record !== null
    ? (record as Record<string, unknown>)[name]
    : undefined;
}

function idOf(record: SourceRecord): unknown {
  return fieldOf(record, 'id');
}

/** A record's `created` in ms, or null when it has no valid one. */
function createdOrNull(record: SourceRecord): number | null {
  const created = fieldOf(record, 'created');
  return typeof created === 'string' ? parseDateTime(created) : null;
}

function secondOf(record: SourceRecord): number | undefined {
  const created = createdOrNull(record);
  return created === null ? undefined : Math.floor(created / 1000);
}

/**
 * The newest and oldest valid `created` of a page (ms); undefined when none
 * has one. The greatest and least, not the first and last: a source that
 * does not list newest first (the real service does) would otherwise move
 * the next window from the wrong instant and call the copy complete
 * through a time older than events it copied.
 */
type DatedEnds = { newest: number; oldest: number };

function datedEnds(records: readonly SourceRecord[]): DatedEnds | undefined {
  let newest = -Infinity;
  let oldest = Infinity;
  for (const record of records) {
    const created = createdOrNull(record);
    if (created === null) continue;
    if (created > newest) newest = created;
    if (created < oldest) oldest = created;
  }
  return newest === -Infinity ? undefined : { newest, oldest };
}

/**
 * A record newer than the window's upper bound: the source ignores maxDate
 * (or serves one fixed answer), and the walk, which ends only at an empty
 * page, would never end.
 */
function tooNew(ends: DatedEnds | undefined, hi: string | undefined): void {
  if (hi === undefined || ends === undefined) return;
  const newest = ends.newest;
  if (newest > parseDateTime(hi)!) {
    throw new MirrorError(
      'SOURCE_FAILED',
      `The source served an event created ${formatCreated(newest)} for a window ending ${hi}: it does not filter by maxDate`,
    );
  }
}

/**
 * A record older than the second of the window's lower bound: the source
 * ignores minDate. Its records would be copied from before --since (or a
 * prune's cut), and every catch-up would read the org whole. The second's
 * start, not the bound itself: `created` is served to the second.
 */
function tooOld(ends: DatedEnds | undefined, lo: number | undefined): void {
  if (lo === undefined || ends === undefined) return;
  if (ends.oldest < Math.floor(lo / 1000) * 1000) {
    throw new MirrorError(
      'SOURCE_FAILED',
      `The source served an event created ${formatCreated(ends.oldest)} for a window starting ${formatCreated(lo)}: it does not filter by minDate`,
    );
  }
}

/**
 * A page p > 1 of a window holding only events of the pages before it: the
 * source ignores pageNum (serving page 1 again), and the walk, which steps
 * to the next page of a second filled by whole pages, would never end.
 */
function repeatedPage(
  window: MirrorProgress['window'],
  records: readonly SourceRecord[],
  edge: EdgeSecond,
): void {
  if (window.pageNum > 1 && records.every((record) => edge.has(record))) {
    throw new MirrorError(
      'SOURCE_FAILED',
      `The source served page ${window.pageNum} of the window ending ${window.maxDate ?? 'now'} with the events of the pages before it: it does not page by pageNum`,
    );
  }
}

/** The oldest valid `created` of a non-empty page (`records`, whose datedEnds are `ends`): where the next window ends. */
function oldestCreated(ends: DatedEnds | undefined, records: readonly SourceRecord[]): number {
  if (ends === undefined) {
    throw new MirrorError(
      'SOURCE_FAILED',
      `The source served a page of events none of which has a valid created date, so no later page can be asked for: ${JSON.stringify(records[0]).slice(0, 200)}`,
    );
  }
  return ends.oldest;
}

/** The stored checkpoint is no longer what this mirror last read or wrote (an undo dropped it). */
class CheckpointMoved extends Error {
  constructor() {
    super('the mirror checkpoint changed under the running mirror');
  }
}

export { MirrorError } from './source';
export type { SourceOptions } from './source';
