import os from 'node:os';
import { errorMessage } from '@/lib/domain/errors';
import { rewoundMirrorCheckpoint } from '@/lib/domain/mirror-checkpoint';
import { newObjectId } from '@/lib/domain/object-id';
import type {
  DeleteOptions,
  EventStore,
  IngestRun,
  IngestRunKind,
  IngestRunPatch,
  IngestRunStatus,
} from '@/lib/store/types';
import { refreshStatisticsAfterDeletion } from './refresh-statistics';

/**
 * The import ledger's life cycle, shared by `import` and `mirror`: a run is
 * recorded as `running` before its first batch (so a killed run still shows,
 * and its events can still be undone), its counts move as batches commit, and
 * it ends `finished`, `failed` or `interrupted`. Undoing deletes exactly the
 * events it inserted (they carry its id; events it skipped as already present
 * keep the run that added them) and marks it `undone`.
 *
 * A run killed mid-way never writes its end, so a run records the machine
 * and process running it and a heartbeat while it lives; whoever reads the
 * ledger next (`imports list`, `imports undo`, a new mirror) settles a
 * `running` run whose process is gone as `interrupted`.
 */

/** How often a live run writes its heartbeat. */
export const HEARTBEAT_MS = 10_000;
/**
 * Silence after which a run is taken for dead when its process cannot be
 * checked (another machine): six missed heartbeats, so a busy or briefly
 * stalled process is not misjudged.
 */
export const STALE_MS = 6 * HEARTBEAT_MS;

/** Heartbeat timers of the runs this process is running, by run id. */
const heartbeats = new Map<string, NodeJS.Timeout>();

/** A run's counts so far (committed batches only), written with each heartbeat. */
export type RunCounts = Pick<IngestRun, 'inserted' | 'skipped' | 'rejected'>;

export async function startIngestRun(
  store: EventStore,
  run: { orgId: string; kind: IngestRunKind; source: string },
  /**
   * Read at every heartbeat: a run killed mid-way then shows what it had
   * committed as of its last beat, not zeros.
   */
  countsSoFar?: () => RunCounts,
): Promise<IngestRun> {
  const now = Date.now();
  const created = await store.createIngestRun({
    id: newObjectId(),
    ...run,
    started: now,
    finished: null,
    inserted: 0,
    skipped: 0,
    rejected: 0,
    status: 'running',
    detail: null,
    host: os.hostname(),
    pid: process.pid,
    heartbeat: now,
    undoFrom: null,
  });
  const timer = setInterval(() => {
    // A missed beat is harmless (the next one, or the end, follows), and a
    // store closed under a run must not crash the process from a timer.
    store
      .updateIngestRun(created.id, { ...countsSoFar?.(), heartbeat: Date.now() })
      .catch(() => undefined);
  }, HEARTBEAT_MS);
  timer.unref(); // never what keeps a process alive
  heartbeats.set(created.id, timer);
  return created;
}

/**
 * Records a run's end. A run undone meanwhile (`imports undo --force` while
 * it went on) stays undone: overwriting that with `finished` made a ledger
 * whose run says it holds events that are gone. Its detail then says what
 * the run did after the undo, whose events a second undo removes. Returns
 * the status the run ends with.
 */
export async function endIngestRun(
  store: EventStore,
  id: string,
  patch: IngestRunPatch & Pick<IngestRun, 'status'>,
): Promise<IngestRunStatus> {
  clearInterval(heartbeats.get(id));
  heartbeats.delete(id);
  const now = Date.now();
  const ended = { ...patch, finished: now, heartbeat: now };
  if (await store.updateIngestRun(id, ended, { unlessStatus: 'undone' })) return patch.status;
  const run = await store.getIngestRun(id);
  const after =
    `it went on until ${new Date(now).toISOString()} and ended ${patch.status}` +
    `${patch.inserted === undefined ? '' : ` (${patch.inserted} inserted in all)`}; ` +
    `what it inserted after the undo remains: 'imports undo ${id}' again removes it`;
  // Its counts too: what the run did in all (an undo started before its
  // first heartbeat left zeros that the table showed beside events still stored).
  const { inserted, skipped, rejected } = patch;
  await store.updateIngestRun(id, {
    inserted,
    skipped,
    rejected,
    finished: now,
    heartbeat: now,
    detail: run?.detail ? `${run.detail}; ${after}` : after,
  });
  return 'undone';
}

/**
 * Records a run's end, or says why it could not (the database cannot write
 * now: its disk full), rather than throwing: the events its batches
 * committed are stored under its id either way, and 'imports list' shows a
 * run left `running` by a process that has ended as interrupted, with the
 * events it stored, recording that once the database can write. Thrown,
 * the last write of an import or mirror whose every batch had committed
 * ended the command with the engine's error alone (no summary, no run id).
 * `ended` is then the status the run was meant to end with.
 */
export async function recordIngestRunEnd(
  store: EventStore,
  id: string,
  patch: IngestRunPatch & Pick<IngestRun, 'status'>,
): Promise<{ ended: IngestRunStatus; unrecorded?: string }> {
  try {
    return { ended: await endIngestRun(store, id, patch) };
  } catch (cause) {
    return { ended: patch.status, unrecorded: errorMessage(cause) };
  }
}

/** Whether a process with this id exists on this machine (EPERM: it does, another user's). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Why a `running` run is in fact dead, or null while it may be alive: on the
 * machine that started it, its process is gone; anywhere, it has been silent
 * longer than STALE_MS (a killed process whose id was reused, another
 * machine, a run recorded before heartbeats).
 */
export function whyAbandoned(run: IngestRun, now = Date.now()): string | null {
  if (run.status !== 'running') return null;
  const who = run.pid === null ? 'its process' : `process ${run.pid} on ${run.host ?? '?'}`;
  const lastSign = run.heartbeat ?? run.started;
  const heard = `last heard from at ${new Date(lastSign).toISOString()}`;
  if (run.pid !== null && run.host === os.hostname() && !processExists(run.pid)) {
    return `${who} ended without recording its end (killed, crashed, or its database could not write then); ${heard}`;
  }
  if (now - lastSign > STALE_MS) {
    return `${who} stopped answering (no heartbeat for ${Math.round((now - lastSign) / 1000)} s); ${heard}`;
  }
  return null;
}

/**
 * Marks the abandoned runs among `runs` as `interrupted` in the store
 * (`finished` at their last sign of life) and returns the list as it now
 * stands. `inserted` is recounted from the events the run left: the last
 * heartbeat's count lagged what had committed (0 shown for 200,000 events
 * stored). Its events stay: `imports undo` removes them.
 *
 * A reader that only lists passes `notSaved`: a settlement the store cannot
 * save (its disk full, just when the list is needed to choose which run to
 * undo) is told to it instead of thrown, the run returned settled all the
 * same; the next reader that can write saves it. Without it, the error is
 * thrown: an undo or a mirror is about to write anyway.
 */
export async function settleIngestRuns(
  store: EventStore,
  runs: IngestRun[],
  notSaved?: (run: IngestRun, error: unknown) => void,
): Promise<IngestRun[]> {
  const now = Date.now();
  const settled: IngestRun[] = [];
  for (const run of runs) {
    const why = whyAbandoned(run, now);
    if (why === null) {
      settled.push(run);
      continue;
    }
    const patch = {
      status: 'interrupted' as const,
      finished: run.heartbeat ?? run.started,
      inserted: await store.countRunEvents(run.orgId, run.id),
      detail: why,
    };
    try {
      await store.updateIngestRun(run.id, patch);
    } catch (error) {
      if (!notSaved) throw error;
      notSaved(run, error);
    }
    settled.push({ ...run, ...patch });
  }
  return settled;
}

/**
 * The newest `limit` runs of one org (every org's when `orgId` is
 * undefined), only those of `statuses` when given, each as it is shown:
 * the runs the ledger holds as `running` are settled first, so a dead one
 * is found by `interrupted` and not by `running`, as it is listed. One
 * whose settlement cannot be saved (see settleIngestRuns) is still
 * `running` in the store: it is read with the rest and shown settled,
 * and returned in `notSaved` with why, where it is shown. `more`: whether
 * older runs of those statuses were left out.
 */
export async function listSettledIngestRuns(
  store: EventStore,
  orgId: string | undefined,
  limit: number,
  statuses?: readonly IngestRunStatus[],
): Promise<{ runs: IngestRun[]; more: boolean; notSaved: { run: IngestRun; error: unknown }[] }> {
  const shows = (status: IngestRunStatus) => statuses === undefined || statuses.includes(status);
  // The settled runs whose settlement the store could not save, with why.
  const unsaved = new Map<string, { run: IngestRun; error: unknown }>();
  let held: IngestRun[] = [];
  if (shows('running') || shows('interrupted')) {
    const errors = new Map<string, unknown>();
    held = await settleIngestRuns(
      store,
      await store.listIngestRuns(orgId, undefined, ['running']),
      (run, error) => errors.set(run.id, error),
    );
    for (const run of held) {
      if (errors.has(run.id)) unsaved.set(run.id, { run, error: errors.get(run.id) });
    }
  }
  // Read as stored, the unsaved ones too (the filter below sees them
  // settled), and one more than shown: whether older ones were left out.
  // Beyond that, as many as were running: those the filter may drop.
  const stored =
    statuses === undefined || unsaved.size === 0 || statuses.includes('running')
      ? statuses
      : [...statuses, 'running' as const];
  const read = await store.listIngestRuns(orgId, limit + 1 + held.length, stored);
  const shown = read
    .map((run) => unsaved.get(run.id)?.run ?? run)
    .filter((run) => shows(run.status));
  const runs = shown.slice(0, limit);
  return {
    runs,
    more: shown.length > limit,
    notSaved: runs.flatMap((run) => unsaved.get(run.id) ?? []),
  };
}

export class UndoRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndoRefusedError';
  }
}

/**
 * Removes the events a run inserted, counters kept exact. A run that is
 * still alive is refused unless `force` (it would go on inserting); a killed
 * one is settled as interrupted first and undone like any other. An undone
 * run is refused unless events of it remain (it went on after a forced undo).
 * Ended early by `options.stop`, it returns `remaining` (the run's events
 * still stored) and the ledger says the undo is unfinished, as after a crash.
 */
export async function undoIngestRun(
  store: EventStore,
  id: string,
  options: DeleteOptions & { force?: boolean } = {},
): Promise<{
  run: IngestRun;
  deleted: number;
  remaining?: number;
  /** Why the statistics were not refreshed after the deletion (refresh-statistics.ts). */
  statisticsNotRefreshed?: string;
}> {
  const found = await store.getIngestRun(id);
  if (!found) throw new UndoRefusedError(`No import or mirror run with id ${id}`);
  const run = (await settleIngestRuns(store, [found]))[0]!;
  if (run.status === 'running' && (!options.force || run.kind === 'mirror')) {
    const lastSign = run.heartbeat ?? run.started;
    const alive = `(process ${run.pid ?? '?'} on ${run.host ?? '?'}, started ${new Date(run.started).toISOString()}, last heard from ${Math.round((Date.now() - lastSign) / 1000)} s ago)`;
    // Not even with force: the undo winds the mirror's checkpoint back, so
    // it walks that range again and copies it back under this same run,
    // which the undo goes on deleting. A copy was left with a hole its
    // checkpoint called complete. A mirror stops cleanly on SIGINT/SIGTERM,
    // and a dead one is settled as interrupted within a minute.
    throw new UndoRefusedError(
      run.kind === 'mirror'
        ? `Run ${id} is a mirror still running ${alive}: stop it first (SIGINT or SIGTERM ends it after its current page); --force does not apply to a live mirror, which would copy back what the undo removes`
        : `Run ${id} is still running ${alive}: stop it first, or undo it anyway with --force`,
    );
  }
  // Where the copy a mirror holds may now have holes: from the run's oldest
  // event on (a mirror skipped as already present what an import had
  // added). Wound back before the deletion too, so an undo stopped midway
  // has already said so; and after it, over what a mirror running meanwhile
  // saved (it read those events as present). An undo stopped midway deleted
  // the oldest of them: run again, it winds back from where that one did
  // (undoFrom), not from the oldest left, which would leave the gap.
  const stored = await store.oldestRunEvent(run.orgId, id);
  const known = [run.undoFrom, stored].filter((at) => at !== null);
  const oldest = known.length === 0 ? null : Math.min(...known);
  // Said before deleting: an undo stopped midway (Ctrl-C, a crash) has
  // removed part of the run's events, which the ledger must not hide.
  await store.updateIngestRun(id, {
    ...(run.status === 'undone'
      ? {}
      : {
          detail: `undo started at ${new Date().toISOString()} and not finished: part of its events may be gone; 'imports undo ${id}' again completes it`,
        }),
    undoFrom: oldest,
  });
  const rewind = () =>
    oldest === null
      ? Promise.resolve(0)
      : store.rewriteMirrorCheckpoints(run.orgId, (state, source) =>
          rewoundMirrorCheckpoint(state, {
            id,
            oldest,
            mirroredHere: run.kind === 'mirror' && run.source === source,
          }),
        );
  await rewind();
  const deleted = await store.deleteEvents(run.orgId, { runId: id }, options);
  if (options.stop?.()) {
    const remaining = await store.countRunEvents(run.orgId, id);
    if (remaining > 0) {
      // Not undone: the detail said before deleting stands. The second pass
      // below, for the part deleted.
      if (deleted > 0) await rewind();
      const current = await store.getIngestRun(id);
      return {
        run: current ?? run,
        deleted,
        remaining,
        ...(await refreshStatisticsAfterDeletion(store, deleted)),
      };
    }
  }
  // An undone run is undone again only for what it inserted after its undo
  // (it went on: endIngestRun); with nothing of it left, that is refused.
  if (run.status === 'undone' && deleted === 0) {
    throw new UndoRefusedError(`Run ${id} was already undone`);
  }
  // A mirror's checkpoint says the copy is complete through some instant;
  // with this run's events gone it no longer is, where the copy held them
  // (its own mirror's run, or events it found present): that mirror walks
  // again from the oldest of them at its next run or catch-up (skipping
  // what is still there), a running one too (its save finds the checkpoint
  // changed). Events older than that, pruned on purpose, are not walked
  // again: dropping the checkpoints brought them back.
  //
  // Again after the deletion, and once more after the run is marked undone:
  // a mirror may have found its events present while they were being
  // deleted and saved that (skipped) after the first pass. One saving after
  // the last pass reads the run as undone and winds itself back
  // (lib/mirror/mirror.ts windBackForUndone); the pass before the mark
  // stands if this process dies before the mark, and a mirror whose
  // checkpoint still holds the run when it starts (this process died
  // between the mark and the last pass) winds itself back then.
  if (deleted > 0) await rewind();
  const detail = `undone at ${new Date().toISOString()}: ${deleted} events removed`;
  await store.updateIngestRun(id, { status: 'undone', detail, undoFrom: null });
  if (deleted > 0) await rewind();
  return {
    run: { ...run, status: 'undone', detail, undoFrom: null },
    deleted,
    // Last, once the undo is recorded.
    ...(await refreshStatisticsAfterDeletion(store, deleted)),
  };
}
