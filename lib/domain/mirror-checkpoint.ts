/**
 * A mirror's saved position (the store's mirror_checkpoints.state, JSON),
 * read and written by the mirror (lib/mirror/mirror.ts) and wound back by
 * an undo (lib/ingest/ingest-runs.ts) when events the copy held are gone.
 */

/** A time window being walked, newest first. */
export type MirrorSegment = {
  /** Lower bound, inclusive (ms), or none. */
  lo?: number;
  /** Upper bound, inclusive (ISO, the last millisecond of a second), or none (open). */
  hi?: string;
  pageNum: number;
  /**
   * How many events the source listed on pages 1..pageNum-1 (all in the
   * window's top second): where page pageNum starts in that second's
   * listing order. Not (pageNum-1) × the page size asked for: a source may
   * serve fewer (it clamps itemsPerPage). Absent on page 1, and in
   * checkpoints saved before it existed (then that product is assumed).
   */
  listed?: number;
  /**
   * The page size pages 1..pageNum-1 were asked with (beyond page 1). The
   * source starts page n at (n-1) × the size asked: resumed with another
   * size, page n would start elsewhere in the second and skip what lay
   * between, so the walk reads that second again from page 1 instead.
   * Absent on page 1, and in checkpoints saved before it existed (then the
   * size asked now is assumed).
   */
  itemsPerPage?: number;
  /** Newest `created` (ms) seen in this segment: `through` once it is done. */
  top?: number;
  /**
   * When the walk of an open-ended segment began (ms, this machine's
   * clock): the copy is complete through no later than that, whatever
   * `created` the source showed. Through an event dated 2099 (bad data, a
   * source clock ahead), every later catch-up started in 2099 and copied
   * nothing more. Absent from checkpoints saved before it existed.
   */
  started?: number;
};

/**
 * `through`: the newest instant (ms) up to which the copy is complete;
 * `segment`: a walk under way; `capped`: `through` was capped at when its
 * walk began (MirrorSegment.started), so it is trusted even when it lies
 * ahead of a reader's clock (a host whose clock is behind). Without it, a
 * `through` in the future comes from a version that did not cap it.
 *
 * `from`: the oldest instant (ms) the copy covers: the first run's
 * `--since`, moved earlier by a later run's earlier `--since` (which copies
 * what lies between), later by a prune. Absent: from the source's first
 * event (and in checkpoints saved before it existed). Nothing older is
 * walked again, whatever an undo or a catch-up's overlap reaches back to.
 */
export type MirrorCheckpoint = {
  version: 1;
  through?: number;
  capped?: true;
  from?: number;
  /**
   * The runs (imports, other sources' mirrors) whose events this copy
   * found already present and so holds without having copied them: run id
   * to the oldest such event (ms). Undoing one of those runs leaves holes
   * in the copy from there on; undoing any other leaves none. Absent from
   * checkpoints saved before it existed: for those, any undo may have.
   */
  skipped?: Record<string, number>;
  /**
   * The invalid records (a digest of each as served) the next catch-up reads
   * again, within its overlap, to their `created` (ms; null: none valid): a
   * later run does not count and report them again. A mirror run from cron
   * exited 2 at every run while an invalid record lay in the minute before
   * the newest event.
   */
  rejectedRecently?: Record<string, number | null>;
  segment?: MirrorSegment;
};

/** A run being undone, as a checkpoint sees it. */
export type UndoneRun = {
  id: string;
  /** Its oldest event (ms, a stored sort key) when the undo began. */
  oldest: number;
  /** Inserted by this checkpoint's own mirror (a mirror run of the same source). */
  mirroredHere: boolean;
};

/** `skipped` with `more` (run id to oldest event) merged in, the oldest kept. */
export function mergedSkipped(
  skipped: Record<string, number> | undefined,
  more: Record<string, number>,
): Record<string, number> {
  const merged = { ...skipped };
  for (const [runId, oldest] of Object.entries(more)) {
    merged[runId] = Math.min(merged[runId] ?? Infinity, oldest);
  }
  return merged;
}

export function parseMirrorCheckpoint(text: string | null): MirrorCheckpoint {
  return text ? (JSON.parse(text) as MirrorCheckpoint) : { version: 1 };
}

/**
 * The checkpoint once `run`'s events are deleted (`imports undo`), or
 * `text` unchanged when the copy held none of them.
 *
 * The copy holds a run's events when its own mirror inserted them, or
 * when it found them present (`skipped`): then from the oldest of them on
 * it may have holes, and it is complete only through the end of the second
 * before, its walk under way dropped (its window may have passed over that
 * instant), but for a backfill, which starts over. The next catch-up walks from there to now, copying back what
 * is missing and skipping the rest. A checkpoint saved before `skipped`
 * existed cannot tell, and is wound back for any run.
 *
 * Never back past the copy's `from`: an undone import's events older than
 * that were never the mirror's, and walking from them copied back
 * everything a `--since` left out or a prune removed. Null (no checkpoint:
 * the next run walks everything) when the copy was complete through
 * nothing yet and covers everything.
 */
export function rewoundMirrorCheckpoint(text: string, run: UndoneRun): string | null {
  const { through, from, skipped, segment } = parseMirrorCheckpoint(text);
  const found = skipped?.[run.id];
  if (!run.mirroredHere && skipped !== undefined && found === undefined) return text;
  const stillSkipped = Object.fromEntries(
    Object.entries(skipped ?? {}).filter(([runId]) => runId !== run.id),
  );
  const kept = {
    ...(from === undefined ? {} : { from }),
    ...(skipped === undefined ? {} : { skipped: stillSkipped }),
  };
  if (through === undefined) {
    return from === undefined && skipped === undefined
      ? null
      : JSON.stringify({ version: 1, ...kept });
  }
  const missingFrom = run.mirroredHere ? run.oldest : Math.max(run.oldest, found ?? run.oldest);
  const start = Math.max(missingFrom, from ?? -Infinity);
  const secondBefore = Math.floor(start / 1000) * 1000 - 1;
  // A backfill under way (a later --since below the copy's start, walked
  // before the catch-up) starts over whole: dropped with the rest of the
  // walk, what it had not reached was never copied, the copy's start
  // unmoved. Its window runs up to the end of the start's second.
  const backfill =
    segment?.lo !== undefined && from !== undefined && segment.lo < from
      ? {
          lo: segment.lo,
          hi: new Date(Math.floor(from / 1000) * 1000 + 999).toISOString(),
          pageNum: 1,
        }
      : undefined;
  return JSON.stringify({
    version: 1,
    through: Math.min(through, secondBefore),
    capped: true,
    ...kept,
    ...(backfill === undefined ? {} : { segment: backfill }),
  });
}

/**
 * The checkpoint once the copy's events created before `before` (ms) are
 * deleted on purpose (`events prune`): its `from` moves up to there, so no
 * catch-up, undo or walk under way copies them back; a walk under way stops
 * at that instant. Unchanged when it already starts there or later.
 */
export function prunedMirrorCheckpoint(text: string, before: number): string {
  const checkpoint = parseMirrorCheckpoint(text);
  if (checkpoint.from !== undefined && checkpoint.from >= before) return text;
  const segment = checkpoint.segment && {
    ...checkpoint.segment,
    lo: Math.max(checkpoint.segment.lo ?? -Infinity, before),
  };
  return JSON.stringify({ ...checkpoint, from: before, ...(segment ? { segment } : {}) });
}
