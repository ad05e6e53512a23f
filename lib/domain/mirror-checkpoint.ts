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
 */
export type MirrorCheckpoint = {
  version: 1;
  through?: number;
  capped?: true;
  segment?: MirrorSegment;
};

export function parseMirrorCheckpoint(text: string | null): MirrorCheckpoint {
  return text ? (JSON.parse(text) as MirrorCheckpoint) : { version: 1 };
}

/**
 * The checkpoint once the copy's events from `from` (ms, a stored sort key)
 * on may be missing: complete through the end of the second before, its
 * walk under way dropped (its window may have passed over `from`); null (no
 * checkpoint: the next run walks everything) when it was complete through
 * nothing yet. The next catch-up walks from there to now, copying back
 * what is missing and skipping the rest; events older than `from` (pruned
 * on purpose, say) are not walked again.
 */
export function rewoundMirrorCheckpoint(text: string, from: number): string | null {
  const { through } = parseMirrorCheckpoint(text);
  if (through === undefined) return null;
  const secondBefore = Math.floor(from / 1000) * 1000 - 1;
  return JSON.stringify({ version: 1, through: Math.min(through, secondBefore), capped: true });
}
