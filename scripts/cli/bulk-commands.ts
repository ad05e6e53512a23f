import { errorMessage } from '@/lib/domain/errors';
import fs from 'node:fs';
import {
  type BulkResult,
  type BulkSummary,
  runBulkLoad,
  type StoredThrough,
} from '@/lib/ingest/bulk-load';
import { DEFAULT_IMPORT_BATCH, type ImportIssue, ledgerSource, voidRun } from '@/lib/ingest/import';
import { recordIngestRunEnd, startIngestRun } from '@/lib/ingest/ingest-runs';
import { OBJECT_ID_MAX_MILLIS } from '@/lib/domain/object-id';
import { DEFAULT_SEED, resolveSeedRange, seedSeconds } from '@/lib/ingest/seed';
import {
  CommandError,
  EXIT,
  parseCommand,
  parseCount,
  parseMaxRecordBytes,
  parseDate,
  parseObjectId,
  parseOrgName,
  requireOption,
  UsageError,
} from './args';
import type { EventStore, IngestRunStatus } from '@/lib/store/types';
import {
  type Command,
  type CommandContext,
  isoTime,
  requireOrg,
  loadStoppedBySignals,
  notRecordedNote,
  warnStatisticsNotRefreshed,
} from './context';
import {
  Progress,
  formatBytes,
  formatCount,
  formatDuration,
  formatNumber,
  jsonSeconds,
} from './progress';

const MAX_SEED_EVENTS = 100_000_000;

function batchSize(value: string | undefined): number {
  return value === undefined ? DEFAULT_IMPORT_BATCH : parseCount(value, '--batch-size', 1, 50_000);
}

// ---- seed ------------------------------------------------------------------------

export const seed: Command = async (args, context) => {
  const { values } = parseCommand(
    args,
    {
      org: { type: 'string' },
      events: { type: 'string' },
      seed: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      variant: { type: 'string' },
      'batch-size': { type: 'string' },
      'create-org': { type: 'boolean' },
      name: { type: 'string' },
    },
    { min: 0, max: 0, names: '' },
  );
  const orgId = parseObjectId(requireOption(values.org, '--org'), '--org');
  const count = parseCount(
    requireOption(values.events, '--events'),
    '--events',
    1,
    MAX_SEED_EVENTS,
  );
  const seedValue = values.seed ?? String(DEFAULT_SEED);
  if (seedValue.trim() === '' || seedValue.length > 100) {
    throw new UsageError('--seed must be 1 to 100 characters');
  }
  const variant = values.variant ?? 'hosted';
  if (variant !== 'hosted' && variant !== 'self-hosted') {
    throw new UsageError(`--variant must be hosted or self-hosted, got '${variant}'`);
  }
  const from = values.from === undefined ? undefined : parseDate(values.from, '--from');
  const to = values.to === undefined ? undefined : parseDate(values.to, '--to');
  let range: { from: number; to: number };
  try {
    range = resolveSeedRange({ from, to });
  } catch {
    // Without --to, say what it was: the user gave only --from.
    const defaultTo = resolveSeedRange({}).to;
    throw new UsageError(
      to === undefined
        ? `--from (${isoTime(from!)}) must be before --to, which defaults to the start of the current UTC hour (${isoTime(defaultTo)})`
        : '--from must be before --to',
    );
  }
  // Checked here, not in the worker (which failed with a stack trace):
  // seeded events are created on whole seconds.
  const seconds = seedSeconds(range);
  if (!seconds) {
    throw new UsageError(
      `--from to --to (${isoTime(range.from)} to ${isoTime(range.to)}) holds no whole second: seeded events are created on whole seconds`,
    );
  }
  // A seeded event's id is an ObjectId holding its created second in 32
  // unsigned bits: outside them the second was clamped to 0 (before 1970)
  // or wrapped (after 2106), so two ranges' events shared ids and the
  // second seed inserted nothing, "already there (same seed and range)".
  if (seconds.from < 0 || seconds.to > OBJECT_ID_MAX_MILLIS) {
    throw new UsageError(
      `--from and --to must lie within ${isoTime(0)} to ${isoTime(OBJECT_ID_MAX_MILLIS)}, got ${isoTime(range.from)} to ${isoTime(range.to)}: a seeded event's id is an ObjectId, which holds its created second`,
    );
  }
  if (values['create-org'] && values.name === undefined) {
    throw new UsageError('--create-org needs --name for the new organization');
  }
  if (values.name !== undefined && !values['create-org']) {
    throw new UsageError('--name only applies with --create-org');
  }
  // Checked as orgs create checks it, before anything is written.
  const name = values['create-org'] ? parseOrgName(values.name) : undefined;
  // Checked before --create-org writes anything.
  const batch = batchSize(values['batch-size']);

  const store = await context.store();
  let org = await store.getOrg(orgId);
  if (!org && name !== undefined) {
    org = await store.createOrg({ id: orgId, name, created: Date.now() });
    context.note(`Created organization "${org.name}" (${org.id}).`);
  } else if (org && name !== undefined && name !== org.name) {
    // --create-org only creates a missing organization, so a re-run of the
    // same seed works; a name that differs is said, not silently dropped.
    context.note(
      `Organization ${orgId} exists as "${org.name}": --name "${name}" is not applied (seed never renames).`,
    );
  }
  if (!org) {
    throw new CommandError(
      `No organization with id ${orgId}. Create it first ('orgs create --name NAME --id ${orgId}') or add --create-org --name NAME.`,
    );
  }

  const progress = new Progress('Seeding', count, 'events');
  // SIGINT/SIGTERM: the batches being written commit and the summary is
  // printed (with --json, the one document), as an import does; a second
  // signal quits at once. Killed outright, `--json` printed nothing.
  const result = await loadStoppedBySignals(context, progress, (stop) =>
    runBulkLoad(
      store,
      orgId,
      {
        kind: 'seed',
        options: { orgId, count, seed: seedValue, ...range, variant, orgName: org.name },
        batchSize: batch,
      },
      {
        onBatch: ({ inserted, skipped }) => {
          const done = inserted + skipped;
          progress.update(
            done,
            `${formatNumber(done / Math.max(progress.elapsed(), 0.001))} events/s`,
          );
        },
        stop,
      },
    ),
  );
  progress.finish();
  warnIfStatisticsNotRefreshed(context, 'seed', result);

  const rate = result.inserted / Math.max(result.seconds, 0.001);
  context.emit({
    orgId,
    requested: count,
    inserted: result.inserted,
    skipped: result.skipped,
    ...(result.stopped && { stopped: true }),
    ...statisticsJson(result),
    seed: seedValue,
    variant,
    from: isoTime(range.from),
    to: isoTime(range.to),
    seconds: jsonSeconds(result.seconds),
    eventsPerSecond: Math.round(rate),
  });
  if (result.stopped) {
    // What makes the same events: the count, the seed, the range and the
    // variant; `--seed=` so that a seed starting with '-' is not taken for an option.
    const again = [
      `--org ${orgId}`,
      `--events ${count}`,
      `--seed=${/^[\w.:-]+$/.test(seedValue) ? seedValue : `'${seedValue.replaceAll("'", `'\\''`)}'`}`,
      `--from ${isoTime(range.from)}`,
      `--to ${isoTime(range.to)}`,
      ...(variant === 'hosted' ? [] : [`--variant ${variant}`]),
    ];
    const there = result.inserted + result.skipped;
    context.say(
      `Stopped seeding "${org.name}" (${orgId}) on request after ${formatDuration(result.seconds)}: ` +
        `${formatNumber(there)} of ${formatNumber(count)} events are there ` +
        `(${formatNumber(result.inserted)} inserted now, ${formatNumber(result.skipped)} already were). ` +
        `The same seed again (seed ${again.join(' ')}) adds the rest.`,
    );
    return EXIT.interrupted;
  }
  context.say(
    `Seeded ${formatCount(result.inserted, 'event')} into "${org.name}" (${orgId}) in ${formatDuration(result.seconds)}: ` +
      `${formatNumber(rate)} events/s.` +
      (result.skipped > 0
        ? ` ${formatNumber(result.skipped)} were already there (same seed and range).`
        : '') +
      `\nSeed ${seedValue}, ${isoTime(range.from)} to ${isoTime(range.to)}.`,
  );
  return EXIT.ok;
};

/**
 * A file's size as read: a gzip archive's with that of the text it held
 * (its compressed size alone read as if the import had read that much JSON).
 */
function sizeRead({ bytes, decompressedBytes }: BulkSummary): string {
  return decompressedBytes === undefined
    ? formatBytes(bytes)
    : `${formatBytes(bytes)} gzip-compressed, ${formatBytes(decompressedBytes)} decompressed`;
}

/**
 * Where an import ended early (stopped, failed by the database) stands in
 * its file: the offset just past the last record its counts account for,
 * the end of the last batch taken to be inserted (StoredThrough); of a gzip
 * archive's text, with the archive's bytes read by then.
 */
function storedUpTo({ bytes, decompressedBytes }: Sizes): string {
  return decompressedBytes === undefined
    ? `up to byte ${formatNumber(bytes)} of the file`
    : `up to byte ${formatNumber(decompressedBytes)} of its decompressed text (${formatBytes(bytes)} of the gzip archive read)`;
}

/** A file's bytes read, and a gzip archive's text decompressed from them (BulkSummary's). */
type Sizes = Pick<BulkSummary, 'bytes' | 'decompressedBytes'>;

/** The --json summary's sizes: `decompressedBytes` for a gzip archive only. */
function sizesJson({ bytes, decompressedBytes }: Sizes): Sizes {
  return decompressedBytes === undefined ? { bytes } : { bytes, decompressedBytes };
}

/**
 * Why the statistics were not refreshed after a load whose batches had all
 * committed (BulkResult.statisticsNotRefreshed), which succeeded all the
 * same. Not for a voided import: removing its events refreshes them.
 */
function statisticsNotRefreshed(result: BulkResult): string | undefined {
  return result.voidsRun ? undefined : result.statisticsNotRefreshed;
}

/** Said as a warning (warnStatisticsNotRefreshed). An import that adds nothing (the same file again) does not refresh them. */
function warnIfStatisticsNotRefreshed(
  context: CommandContext,
  what: 'import' | 'seed',
  result: BulkResult,
): void {
  warnStatisticsNotRefreshed(
    context,
    what,
    `what it inserted (${formatCount(result.inserted, 'event')}) is stored`,
    statisticsNotRefreshed(result),
  );
}

/** The --json summary's word on it: why the statistics were not refreshed. */
function statisticsJson(result: BulkResult): { statisticsNotRefreshed?: string } {
  const reason = statisticsNotRefreshed(result);
  return reason === undefined ? {} : { statisticsNotRefreshed: reason };
}

// ---- import ----------------------------------------------------------------------

/** How many invalid records are listed one by one (all are counted). */
const LISTED_ISSUES = 1000;

export const importFile: Command = async (args, context) => {
  const { values, positionals } = parseCommand(
    args,
    {
      org: { type: 'string' },
      rehome: { type: 'boolean' },
      'batch-size': { type: 'string' },
      'max-record-bytes': { type: 'string' },
    },
    { min: 1, max: 1, names: 'FILE (the file to import, or - for stdin)' },
  );
  const orgId = parseObjectId(requireOption(values.org, '--org'), '--org');
  const file = positionals[0]!;
  // Every option is checked before the run is recorded: a bad value is a
  // usage error, not an import run in the ledger.
  const readOptions = {
    orgId,
    rehome: values.rehome ?? false,
    batchSize: batchSize(values['batch-size']),
    ...(values['max-record-bytes'] === undefined
      ? {}
      : { maxRecordBytes: parseMaxRecordBytes(values['max-record-bytes']) }),
  };
  let size = 0;
  if (file !== '-') {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) throw new CommandError(`Cannot read ${file}: no such file`);
    // A named pipe too (`import <(zcat old/*.gz)`), or a device (/dev/null,
    // a terminal): its size is unknown, like stdin's, and it is read once
    // (the reader re-reads regular files only).
    if (!stat.isFile() && !stat.isFIFO() && !stat.isCharacterDevice()) {
      throw new CommandError(
        stat.isDirectory()
          ? `Cannot read ${file}: it is a directory; import the files in it one by one`
          : `Cannot read ${file}: not a regular file, a pipe or a device`,
      );
    }
    size = stat.isFile() ? stat.size : 0;
    // Refused as a missing file is, before a run is recorded: read, it was
    // a failed run in the ledger, its summary 'format not recognised, 0 B'.
    // (A pipe is not opened here: opening one waits for its writer.)
    if (stat.isFile()) {
      try {
        fs.accessSync(file, fs.constants.R_OK);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new CommandError(
          `Cannot read ${file}: ${code === 'EACCES' ? 'permission denied' : errorMessage(error)}`,
        );
      }
    }
  }
  const store = await context.store();
  await requireOrg(store, orgId, "Create it first with 'orgs create --name NAME --id ID'.");

  const issues: ImportIssue[] = [];
  let invalidShown = 0;
  /** Per reason, the records refused for it: a reason is shown for its first 3 only. */
  const byReason = new Map<string, number>();
  // A pipe's size is unknown: its line counts up instead.
  const progress = new Progress('Importing', size, 'bytes');
  const soFar = { inserted: 0, skipped: 0, rejected: 0 };
  /** The events of the batches taken to be inserted, committed or not: read, if not stored. */
  let taken = 0;
  /** Where the file stands after the last batch taken to be inserted, stored or not (none: its start). */
  let accounted: StoredThrough = { read: 0, invalid: 0, bytes: 0 };
  const run = await startIngestRun(
    store,
    { orgId, kind: 'import', source: ledgerSource(file) },
    () => soFar,
  );
  // SIGINT/SIGTERM: the batches being written commit, the run is recorded
  // as stopped and the summary printed; a second signal quits at once (the
  // run then shows as interrupted, its committed batches kept).
  let result;
  try {
    result = await loadStoppedBySignals(context, progress, (stop) =>
      runBulkLoad(
        store,
        orgId,
        { kind: 'import', path: file, runId: run.id, options: readOptions },
        {
          onIssue: (issue) => {
            soFar.rejected++;
            if (issues.length < LISTED_ISSUES) issues.push(issue);
            const seen = (byReason.get(issue.message) ?? 0) + 1;
            // Bounded: reasons that name a position may all differ.
            if (seen > 1 || byReason.size < 1000) byReason.set(issue.message, seen);
            if (!context.json && invalidShown < 50 && seen <= 3) {
              progress.finish();
              context.note(`Skipped ${issue.location}: ${issue.message}`);
              invalidShown++;
            }
          },
          onBatchTaken: (records, through) => {
            taken += records;
            if (through) accounted = through;
          },
          onBatch: ({ inserted, skipped, progress: read }) => {
            soFar.inserted = inserted;
            soFar.skipped = skipped;
            progress.update(read, `${formatNumber(inserted + skipped)} events`);
          },
          stop,
        },
      ),
    );
  } catch (error) {
    progress.finish();
    return failedImport(context, store, {
      file,
      orgId,
      runId: run.id,
      soFar,
      taken,
      accounted,
      issues,
      error,
    });
  }
  progress.finish();
  // Said at once: the run's end, recorded next, may wait for what the refresh waited for.
  warnIfStatisticsNotRefreshed(context, 'import', result);
  if (result.stopped)
    return stoppedImport(context, store, { file, orgId, runId: run.id, result, issues });

  const { summary } = result;
  const invalid = summary.invalid;
  let fatal = result.fatal;
  let ended: IngestRunStatus;
  /** Why the run's end could not be recorded (the database cannot write now), if so. */
  let unrecorded: string | undefined;
  if (fatal !== undefined && result.voidsRun) {
    // What was read may be altered (a damaged archive): none of it stays.
    const voided = await voidRun(store, run.id, fatal, {
      inserted: result.inserted,
      skipped: result.skipped,
      rejected: invalid,
    });
    fatal = voided.message;
    ended = voided.ended;
    if (voided.removed) result.inserted = 0;
  } else {
    ({ ended, unrecorded } = await recordIngestRunEnd(store, run.id, {
      status: fatal ? 'failed' : 'finished',
      inserted: result.inserted,
      skipped: result.skipped,
      rejected: invalid,
      detail: fatal ?? null,
    }));
  }
  // Events read whole before a break in the file but after the last whole
  // batch (they are imported once the file is fixed and re-run), or all of
  // a voided run's: not imported. Said, or read would not add up to
  // inserted, present and invalid.
  const notImported =
    fatal === undefined
      ? 0
      : Math.max(0, summary.read - result.inserted - result.skipped - invalid);
  const failure =
    fatal === undefined
      ? undefined
      : new CommandError(
          // Nothing stored (refused at its start, or voided): nothing to say of batches.
          result.voidsRun || result.inserted + result.skipped === 0
            ? `${fatal}.`
            : `${fatal}. Batches committed before this point stay imported` +
                readNotImported(notImported) +
                '; fix the file and re-run (already imported events are skipped).',
        );
  if (ended === 'undone') {
    // `imports undo --force` ran while this import went on (ingest-runs.ts endIngestRun).
    context.note(
      `Run ${run.id} was undone while this import went on: what it inserted after the undo remains; 'imports undo ${run.id}' again removes it.`,
    );
  }
  context.emit({
    ...(ended === 'undone' ? { undoneWhileRunning: true } : {}),
    runId: run.id,
    orgId,
    file,
    format: summary.format,
    read: summary.read,
    inserted: result.inserted,
    duplicates: result.skipped,
    invalid,
    ...(fatal === undefined ? {} : { notImported }),
    ...sizesJson(summary),
    seconds: jsonSeconds(result.seconds),
    eventsPerSecond: Math.round(summary.read / Math.max(result.seconds, 0.001)),
    issues,
    ...(summary.warnings === undefined ? {} : { warnings: summary.warnings }),
    ...statisticsJson(result),
    ...(unrecorded === undefined ? {} : { runNotRecorded: unrecorded }),
    // The summary still (what was imported stays), its error in the shape
    // every command's --json error has.
    ...(failure
      ? { error: { code: 'failed', message: failure.message, exitCode: failure.exitCode } }
      : {}),
  });
  if (invalid > invalidShown && !context.json) {
    // The reasons repeated most, once each with their count (a file of another
    // org's records printed the same line 50 times).
    const repeated = [...byReason].filter(([, n]) => n > 3).sort((a, b) => b[1] - a[1]);
    for (const [message, n] of repeated.slice(0, 5)) {
      context.note(`... ${formatCount(n, 'record')} in all skipped for: ${message}`);
    }
    context.note(
      `... ${formatNumber(invalid - invalidShown)} invalid records in all not shown above (use --json to list them).`,
    );
  }
  context.say(
    `${result.fatal ? 'Stopped' : 'Imported'} ${file} (${summary.format ?? 'format not recognised'}, ${sizeRead(summary)}) into ${orgId} in ${formatDuration(result.seconds)}: ` +
      `${formatNumber(summary.read)} read, ${formatNumber(result.inserted)} inserted, ` +
      `${formatNumber(result.skipped)} already present, ${formatNumber(invalid)} invalid` +
      (notImported > 0 ? `, ${formatNumber(notImported)} not imported` : '') +
      ` (${formatNumber(summary.read / Math.max(result.seconds, 0.001))} events/s). ` +
      `Run ${run.id}` +
      // As `imports list` does: an undo is offered only when there is something to undo.
      (result.inserted > 0 ? ` ('imports undo ${run.id}' removes what it added).` : '.'),
  );
  // After the summary, as the last word: what the file's pages say of it (a page of a longer listing).
  for (const warning of summary.warnings ?? []) context.note(`Warning: ${warning}`);
  if (unrecorded !== undefined) {
    context.note(
      notRecordedNote(run.id, fatal ? 'failed' : 'finished', unrecorded, result.inserted),
    );
  }
  if (failure) throw failure;
  return invalid > 0 ? EXIT.someInvalid : EXIT.ok;
};

/** What a failed import's message says of the events it read but did not store ('' for none). */
function readNotImported(notImported: number): string {
  if (notImported === 0) return '';
  return `; the ${formatCount(notImported, 'event')} read after the last of them ${notImported === 1 ? 'is' : 'are'} not`;
}

/**
 * An import the database (or the reading thread) failed midway: a batch
 * refused for a full disk, the connection lost. The run ends failed with
 * what had committed, which stays, and the summary says so with the run's
 * id; before, only the engine's error was printed ("The database is
 * unavailable: database or disk is full"), --json without the run or its
 * counts. A database that cannot record the run now (its disk full) leaves
 * it running, shown as interrupted by 'imports list' (recorded so once it
 * can write again): said too.
 */
async function failedImport(
  context: CommandContext,
  store: EventStore,
  failed: {
    file: string;
    orgId: string;
    runId: string;
    soFar: { inserted: number; skipped: number; rejected: number };
    /** The events of the batches taken to be inserted: those committed, the one that failed, any beside it. */
    taken: number;
    /** The file up to the end of the last of those batches. */
    accounted: StoredThrough;
    issues: ImportIssue[];
    error: unknown;
  },
): Promise<never> {
  const { file, orgId, runId, soFar, taken, accounted, issues, error } = failed;
  const reason = errorMessage(error);
  const { unrecorded } = await recordIngestRunEnd(store, runId, {
    status: 'failed',
    ...soFar,
    detail: reason,
  });
  const there = soFar.inserted + soFar.skipped;
  // Read, as a finished import's summary counts it: the records up to the
  // end of the last batch the inserting thread was given, stored or not
  // (the batch that failed was read too), which the bytes measure; those
  // not stored are notImported.
  const notImported = Math.max(0, taken - there);
  const failure = new CommandError(
    `${reason.replace(/\.$/, '')}. ` +
      (there === 0
        ? 'Nothing was imported'
        : `Batches committed before this point stay imported (${formatCount(there, 'event')})` +
          readNotImported(notImported)) +
      '; re-run the import once that is fixed (already imported events are skipped).',
  );
  context.emit({
    runId,
    orgId,
    file,
    read: accounted.read,
    inserted: soFar.inserted,
    duplicates: soFar.skipped,
    invalid: accounted.invalid,
    notImported,
    ...sizesJson(accounted),
    issues: issues.slice(0, accounted.invalid),
    ...(unrecorded === undefined ? {} : { runNotRecorded: unrecorded }),
    error: { code: 'failed', message: failure.message, exitCode: failure.exitCode },
  });
  context.say(
    `Stopped importing ${file} into ${orgId}: ${formatNumber(soFar.inserted)} inserted, ` +
      `${formatNumber(soFar.skipped)} already present, ${formatNumber(accounted.invalid)} invalid, ` +
      `${storedUpTo(accounted)}. Run ${runId}` +
      (soFar.inserted > 0 ? ` ('imports undo ${runId}' removes what it added).` : '.'),
  );
  if (unrecorded !== undefined) {
    context.note(notRecordedNote(runId, 'failed', unrecorded, soFar.inserted));
  }
  throw failure;
}

/**
 * An import stopped on request (SIGINT, SIGTERM): recorded as interrupted
 * with what committed, which stays; the summary says how to go on. Exit
 * code 130, as a shell reports a command ended by Ctrl-C: a script must
 * not take a part for the whole.
 */
async function stoppedImport(
  context: CommandContext,
  store: EventStore,
  stopped: {
    file: string;
    orgId: string;
    runId: string;
    result: BulkResult;
    issues: ImportIssue[];
  },
): Promise<number> {
  const { file, orgId, runId, result, issues } = stopped;
  const { summary } = result;
  const detail = `stopped on request after ${formatNumber(result.inserted)} inserted; re-running the import skips what is already there`;
  const { unrecorded } = await recordIngestRunEnd(store, runId, {
    status: 'interrupted',
    inserted: result.inserted,
    skipped: result.skipped,
    rejected: summary.invalid,
    detail,
  });
  context.emit({
    runId,
    orgId,
    file,
    stopped: true,
    read: summary.read,
    inserted: result.inserted,
    duplicates: result.skipped,
    invalid: summary.invalid,
    ...sizesJson(summary),
    seconds: jsonSeconds(result.seconds),
    // Those up to where it stands (in file order): the reader reported more
    // past there, which a re-run reads again.
    issues: issues.slice(0, summary.invalid),
    ...statisticsJson(result),
    ...(unrecorded === undefined ? {} : { runNotRecorded: unrecorded }),
  });
  context.say(
    `Stopped importing ${file} into ${orgId} on request after ${formatDuration(result.seconds)}: ` +
      `${formatNumber(result.inserted)} inserted, ${formatNumber(result.skipped)} already present, ` +
      `${formatNumber(summary.invalid)} invalid, ${storedUpTo(summary)}. Run ${runId}: ` +
      `re-running the import skips what is already there` +
      (result.inserted > 0 ? `; 'imports undo ${runId}' removes what it added.` : '.'),
  );
  if (unrecorded !== undefined) {
    context.note(notRecordedNote(runId, 'interrupted', unrecorded, result.inserted));
  }
  return EXIT.interrupted;
}
