import { printable } from '@/lib/domain/printable';
import type { MirrorCaughtUp, MirrorProgress } from '@/lib/mirror/mirror';
import { formatCount, formatNumber, redrawRow } from './progress';

/**
 * The mirror's status on stderr: copied, rate and window, redrawn on a
 * terminal. Off a terminal (a service's log) a line at most every 5 s, and
 * only when the counts moved: a `--follow` mirror of a quiet org logged a
 * "Mirroring: 0 copied" line at every check. Following, each catch-up says
 * how far the copy is complete; off a terminal only when it copied
 * something new, or the first time.
 */
export class StatusLine {
  private last = -Infinity;
  private drawn = false;
  private reportedCopied: number | undefined;
  /** Copied and already present at the last progress line off a terminal. */
  private loggedCounts: string | undefined;

  constructor(
    private readonly stream: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> & {
      columns?: number;
    } = process.stderr,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  update(p: MirrorProgress): void {
    const now = this.clock();
    const tty = this.stream.isTTY;
    if (now - this.last < (tty ? 100 : 5000)) return;
    if (!tty) {
      const counts = `${p.copied}/${p.skipped}`;
      if (counts === this.loggedCounts) return;
      this.loggedCounts = counts;
    }
    this.last = now;
    // The walk's own rate: over the whole run, a --follow mirror's waits
    // between checks made a copy that took under a second read "2 events/s".
    const rate = formatNumber(p.walk.copied / Math.max(p.walk.seconds, 0.001));
    const window = `${p.window.minDate ?? '…'} to ${p.window.maxDate ?? 'now'}${p.window.pageNum > 1 ? ` page ${p.window.pageNum}` : ''}`;
    this.show(
      `Mirroring: ${formatNumber(p.copied)} copied (${rate} events/s), ${formatNumber(p.skipped)} already present, ${formatNumber(p.requests)} requests; window ${window}`,
    );
  }

  /** A wait the source asked for (429): said at once, whatever the last line's age. */
  waiting(reason: string, ms: number): void {
    this.show(`Mirroring: ${reason}, waiting ${formatNumber(Math.ceil(ms / 1000))} s`);
  }

  /** Following: a walk the source's outage ended; said at once, and each time. */
  sourceDown(reason: string, nextCheckSeconds: number): void {
    this.show(
      `Source unavailable (${utcClock()} UTC): ${reason}; trying again in ${formatNumber(nextCheckSeconds)} s`,
      true,
    );
    if (this.stream.isTTY) this.clear();
  }

  caughtUp(state: MirrorCaughtUp): void {
    if (!this.stream.isTTY && state.copied === this.reportedCopied) return;
    this.reportedCopied = state.copied;
    this.show(
      // "through" is the newest event's time; when the source was asked says how current that is.
      `Up to date through ${state.through ?? '(the source has no events yet)'} (checked ${utcClock()} UTC): ${formatCount(state.copied, 'event')} copied so far; next check in ${formatNumber(state.nextCheckSeconds)} s`,
    );
  }

  /**
   * Redrawn in place on a terminal (cut to its width: redrawRow), a line of
   * its own elsewhere. One that stays (`kept`, ended by clear()) is written whole.
   */
  private show(line: string, kept = false): void {
    if (this.stream.isTTY) {
      redrawRow(this.stream, line, kept ? undefined : this.stream.columns);
      this.drawn = true;
    } else this.stream.write(`${line}\n`);
  }

  clear(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}

/** The time of day now, UTC, to the second (HH:MM:SS): when the status line's check was made. */
function utcClock(): string {
  return new Date().toISOString().slice(11, 19);
}

/**
 * The note for a record the source served that is no valid event: with its
 * id when it has one (a string, as shown: at most 64 characters), so it can
 * be looked up at the source.
 */
export function rejectedNote(record: unknown, message: string): string {
  const id =
    typeof record === 'object' && record !== null
      ? (record as Record<string, unknown>).id
      : undefined;
  const shown =
    typeof id === 'string' && id.length > 0 && id.length <= 64
      ? ` (id ${printable(JSON.stringify(id))})`
      : '';
  return `Rejected an event the source served${shown}: ${message}`;
}
