import path from 'node:path';
import type { EventStore, Org } from '@/lib/store/types';
import { CommandError, EXIT } from './args';
import { printable } from '@/lib/domain/printable';
import { formatCount, type Progress } from './progress';

/** What every command gets: the store and where its output goes. */
export type CommandContext = {
  /** Opens the store on first use (help and usage errors never touch it). */
  store: () => Promise<EventStore>;
  json: boolean;
  /** Human-readable output (stdout); ignored under --json. */
  say: (text: string) => void;
  /** Human-readable notes and warnings (stderr); printed in both modes. */
  note: (text: string) => void;
  /** The command's single JSON document (stdout), under --json only. */
  emit: (document: unknown) => void;
  /**
   * The command's single JSON document as the API's own compact text,
   * under --json only: printed indented without parsing, so big integers,
   * `1.0` and key order stay as the API wrote them.
   */
  emitText: (jsonText: string) => void;
};

export type Command = (args: string[], context: CommandContext) => Promise<number>;

/**
 * The organization, or a clear error naming its id (and what to do, when
 * `hint` says). A database holding no organization at all is most likely
 * the wrong one (a new file, opened where `--database` named something
 * else): the error says so.
 */
export async function requireOrg(store: EventStore, orgId: string, hint?: string): Promise<Org> {
  const org = await store.getOrg(orgId);
  if (org) return org;
  if ((await store.listOrgs()).length === 0) {
    throw new CommandError(
      `No organization with id ${orgId}: this database holds none. Is --database (or DATABASE_URL) the store you meant? The event's database field is filtered with --database-name`,
    );
  }
  throw new CommandError(`No organization with id ${orgId}${hint ? `. ${hint}` : ''}`);
}

/**
 * Where a command writes `file` before it is whole (an export, a backup):
 * hidden beside it, named by this process, renamed or linked into place
 * once complete, so `file` is never half written.
 */
export function partialFileBeside(file: string): string {
  const suffix = `.${process.pid}.partial`;
  // Cut to the bytes a name may have (255), by whole characters: a file
  // named near that limit failed ENAMETOOLONG on its temporary name.
  const kept = [...path.basename(file)];
  while (Buffer.byteLength(`.${kept.join('')}${suffix}`) > NAME_MAX) kept.pop();
  return path.join(path.dirname(file), `.${kept.join('')}${suffix}`);
}

/** The most bytes a file's name may have (NAME_MAX on Linux and macOS). */
const NAME_MAX = 255;

export function isoTime(millis: number): string {
  return new Date(millis).toISOString();
}

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** East Asian Wide and Fullwidth characters (CJK, Hangul, kana, fullwidth forms) and emoji. */
const WIDE =
  /^(?:[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]|\p{Emoji_Presentation}|.\ufe0f)/u;

/**
 * The columns `text` takes on a terminal: a character with its combining
 * marks takes one, a wide one (東, 🚀) two. Padding by code units pushed
 * the next column right of a name in CJK, left of one with accents.
 */
function displayWidth(text: string): number {
  let width = 0;
  for (const { segment } of GRAPHEMES.segment(text)) width += WIDE.test(segment) ? 2 : 1;
  return width;
}

/**
 * Fixed-width text columns, the header underlined by spacing only. Cells
 * are shown printable (their text comes from imported and mirrored events).
 */
export function table(headers: string[], given: string[][]): string {
  const rows = given.map((row) => row.map(printable));
  const widths = headers.map((h, i) =>
    Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - displayWidth(cell)),
      )
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/**
 * SIGINT and SIGTERM as a request to stop, for a command that ends cleanly
 * after its current step: the first aborts `signal` (after `onFirst` says
 * what finishes first), a second quits at once with exit 130 (whatever
 * committed stands). `release()` gives the signals back their default.
 */
export function stopOnSignals(onFirst: () => void): { signal: AbortSignal; release: () => void } {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(EXIT.interrupted);
    onFirst();
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/**
 * Runs a bulk load (seed, import) that SIGINT/SIGTERM stop after the
 * batches being written: the first signal ends `progress`'s line and says
 * so, a second quits at once. The handlers are gone when it returns.
 */
export async function loadStoppedBySignals<T>(
  context: CommandContext,
  progress: Progress,
  load: (stop: AbortSignal) => Promise<T>,
): Promise<T> {
  const stop = stopOnSignals(() => {
    progress.finish();
    context.note('Stopping after the batches being written (again to quit at once)...');
  });
  try {
    return await load(stop.signal);
  } finally {
    stop.release();
  }
}

/**
 * stopOnSignals for a deletion in batches (`imports undo`, `events prune`):
 * the first signal ends `progress`'s line and says the batch being deleted
 * finishes first.
 */
export function stopDeletionOnSignals(
  context: CommandContext,
  progress: Progress | undefined,
): ReturnType<typeof stopOnSignals> {
  return stopOnSignals(() => {
    progress?.finish();
    context.note('Stopping after the batch being deleted (again to quit at once)...');
  });
}

/**
 * Said when the statistics refresh after a load or deletion that committed
 * failed (lib/ingest/refresh-statistics.ts): a warning, since `done` (what
 * the command did, e.g. "what it inserted (300 events) is stored") stands,
 * with what it means and what refreshes them next.
 */
export function warnStatisticsNotRefreshed(
  context: CommandContext,
  after: string,
  done: string,
  reason: string | undefined,
): void {
  if (reason === undefined) return;
  context.note(
    `Warning: the query statistics were not refreshed after this ${after} (${reason.replace(/\.$/, '')}): ` +
      `${done}, but queries may be planned less well until the statistics are refreshed, ` +
      'which the next import, seed or mirror that adds events (or prune or undo that removes some) does.',
  );
}

/** The warning that a run's end (`status`) could not be recorded, and what shows it meanwhile. */
export function notRecordedNote(
  runId: string,
  status: string,
  reason: string,
  inserted: number,
): string {
  return (
    `Warning: run ${runId} could not be recorded as ${status} (${reason.replace(/\.$/, '')}): ` +
    `'imports list' shows it as interrupted, with the ${formatCount(inserted, 'event')} it inserted, ` +
    'and records it so once the database can write again.'
  );
}
