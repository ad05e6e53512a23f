import { errorMessage } from '@/lib/domain/errors';
import { listSettledIngestRuns, UndoRefusedError, undoIngestRun } from '@/lib/ingest/ingest-runs';
import { INGEST_RUN_STATUSES, type IngestRun, type IngestRunStatus } from '@/lib/store/types';
import {
  CommandError,
  EXIT,
  parseChoice,
  parseCommand,
  parseCount,
  parseObjectId,
  UsageError,
} from './args';
import {
  type Command,
  isoTime,
  requireOrg,
  stopDeletionOnSignals,
  table,
  warnStatisticsNotRefreshed,
} from './context';
import { Progress, formatCount, formatNumber } from './progress';

/** `imports list [--org ORG] [--limit N] [--status STATUS]…` and `imports undo ID [--force]`: the import ledger. */
export const imports: Command = async (args, context) => {
  const [sub, ...rest] = args;
  if (sub === 'list') return list(rest, context);
  if (sub === 'undo') return undo(rest, context);
  throw new UsageError(
    sub === undefined
      ? "'imports' needs a subcommand: list or undo"
      : `Unknown subcommand 'imports ${sub}'`,
  );
};

const list: Command = async (args, context) => {
  const { values } = parseCommand(
    args,
    {
      org: { type: 'string' },
      limit: { type: 'string' },
      status: { type: 'string', multiple: true },
    },
    { min: 0, max: 0, names: '' },
  );
  // Without --org: every organization's runs, with an ORG column.
  const orgId = values.org === undefined ? undefined : parseObjectId(values.org, '--org');
  const limit = values.limit === undefined ? 100 : parseCount(values.limit, '--limit', 1, 100_000);
  const statuses = values.status === undefined ? undefined : parseRunStatuses(values.status);
  const store = await context.store();
  if (orgId !== undefined) await requireOrg(store, orgId);
  // Runs whose process was killed are shown (and recorded) as interrupted;
  // shown so even where that cannot be recorded (the disk full), said below.
  const { runs, more, notSaved } = await listSettledIngestRuns(store, orgId, limit, statuses);
  const notRecorded = notSaved.map(({ run, error }) => ({
    runId: run.id,
    reason: errorMessage(error),
  }));
  context.emit({
    ...(orgId === undefined ? {} : { orgId }),
    ...(statuses === undefined ? {} : { statuses }),
    runs: runs.map(runJson),
    more,
    ...(notRecorded.length === 0 ? {} : { notRecorded }),
  });
  // Of the statuses asked for, when --status was given.
  const of = statuses === undefined ? '' : ` ${statuses.join(' or ')}`;
  if (more) {
    context.note(
      `${limit === 1 ? `The newest${of} run` : `The newest ${formatNumber(limit)}${of} runs`}; older ones are shown with --limit N.`,
    );
  }
  if (runs.length === 0) {
    context.say(
      `No${of} imports or mirror runs recorded${orgId === undefined ? '' : ` for ${orgId}`}.`,
    );
    return EXIT.ok;
  }
  context.say(
    table(
      [
        'ID',
        ...(orgId === undefined ? ['ORG'] : []),
        'KIND',
        'STATUS',
        'STARTED',
        'FINISHED',
        'INSERTED',
        'SKIPPED',
        'REJECTED',
        'SOURCE',
      ],
      runs.map((run) => [
        run.id,
        ...(orgId === undefined ? [run.orgId] : []),
        run.kind,
        run.status,
        isoTime(run.started),
        run.finished === null ? '-' : isoTime(run.finished),
        formatNumber(run.inserted),
        formatNumber(run.skipped),
        formatNumber(run.rejected),
        run.source,
      ]),
    ),
  );
  // An undo stopped midway (Ctrl-C, a crash), or still running: the counts
  // above are the run's, not what is left of it.
  const undoing = runs.filter((r) => r.undoFrom !== null && r.status !== 'undone');
  for (const run of undoing) {
    const left = await store.countRunEvents(run.orgId, run.id);
    context.say(
      `Run ${run.id}: an undo has not finished (stopped midway, or still running): ${formatCount(left, 'event')} of it remain. 'imports undo ${run.id}' again completes it.`,
    );
  }
  for (const run of runs.filter(
    (r) => (r.status === 'interrupted' || r.status === 'failed') && !undoing.includes(r),
  )) {
    // Undo is offered only where there is something to undo.
    const undo = run.inserted > 0 ? ` 'imports undo ${run.id}' removes the events it added.` : '';
    context.say(
      `Run ${run.id} ${run.status}${run.detail ? `: ${sentence(run.detail)}` : '.'}${undo}`,
    );
  }
  // An undo forced while the run went on leaves what it added afterwards.
  for (const run of runs.filter((r) => r.status === 'undone')) {
    const left = await store.countRunEvents(run.orgId, run.id);
    if (left === 0) continue;
    context.say(
      `Run ${run.id} undone, but ${formatCount(left, 'event')} of it remain: ${sentence(run.detail ?? 'added after the undo')}`,
    );
  }
  // Under the table, beside the run's own line.
  for (const { runId, reason } of notRecorded) {
    context.note(
      `Run ${runId} is shown interrupted, but that could not be recorded (${reason.replace(/\.$/, '')}): the next 'imports list' or 'imports undo' that can write records it.`,
    );
  }
  return EXIT.ok;
};

const undo: Command = async (args, context) => {
  const { values, positionals } = parseCommand(
    args,
    { force: { type: 'boolean' } },
    { min: 1, max: 1, names: 'ID (the run to undo, from imports list)' },
  );
  const id = parseObjectId(positionals[0]!, 'ID');
  const store = await context.store();
  // The same progress display as `events prune`: redrawn on a terminal, a
  // line per tenth in a log. The total is what of the run is still stored:
  // its count of inserted events ended an undo after a prune at "82%".
  const found = await store.getIngestRun(id);
  const remaining = found ? await store.countRunEvents(found.orgId, id) : 0;
  const progress =
    !context.json && remaining > 0 ? new Progress('Undoing', remaining, 'events') : undefined;
  // Ctrl-C ends the undo after the batch being deleted; the ledger keeps
  // it unfinished, and running it again completes it.
  const stop = stopDeletionOnSignals(context, progress);
  let outcome;
  try {
    outcome = await undoIngestRun(store, id, {
      force: values.force ?? false,
      onBatch: (deleted) => progress?.update(deleted),
      stop: () => stop.signal.aborted,
    });
  } catch (error) {
    if (error instanceof UndoRefusedError) throw new CommandError(error.message);
    throw error;
  } finally {
    stop.release();
    progress?.finish();
  }
  const { statisticsNotRefreshed } = outcome;
  const statistics = statisticsNotRefreshed === undefined ? {} : { statisticsNotRefreshed };
  warnStatisticsNotRefreshed(
    context,
    'undo',
    `what it removed (${formatCount(outcome.deleted, 'event')}) is gone`,
    statisticsNotRefreshed,
  );
  if (outcome.remaining !== undefined) {
    context.emit({
      run: runJson(outcome.run),
      deleted: outcome.deleted,
      stopped: true,
      remaining: outcome.remaining,
      ...statistics,
    });
    context.say(
      `Stopped undoing ${outcome.run.kind} run ${id} on request: ${formatCount(outcome.deleted, 'event')} removed, ` +
        `${formatCount(outcome.remaining, 'event')} of it remain (counters updated for what went). 'imports undo ${id}' again completes it.`,
    );
    return EXIT.interrupted;
  }
  context.emit({ run: runJson(outcome.run), deleted: outcome.deleted, ...statistics });
  context.say(
    `Undid ${outcome.run.kind} run ${id} (${outcome.run.source}) in ${outcome.run.orgId}: ` +
      `${formatCount(outcome.deleted, 'event')} removed, counters updated.`,
  );
  return EXIT.ok;
};

/**
 * --status: the runs in any of the statuses given. A status the ledger
 * has not is refused, naming those it has: a mistyped one would list
 * nothing, as if no run were in it.
 */
function parseRunStatuses(values: string[]): IngestRunStatus[] {
  const statuses: IngestRunStatus[] = [];
  // Repeated or a comma list, as the events' filters take several values.
  for (const value of values.flatMap((list) => list.split(','))) {
    const status = parseChoice(value, '--status', INGEST_RUN_STATUSES, (written) =>
      written.trim().toLowerCase(),
    );
    if (!statuses.includes(status)) statuses.push(status);
  }
  return statuses;
}

function runJson(run: IngestRun) {
  return {
    ...run,
    started: isoTime(run.started),
    finished: run.finished === null ? null : isoTime(run.finished),
    heartbeat: run.heartbeat === null ? null : isoTime(run.heartbeat),
    undoFrom: run.undoFrom === null ? null : isoTime(run.undoFrom),
  };
}

/** A run's detail as the end of a sentence: its own closing mark kept, a full stop added where it has none ("…https?." read doubled). */
function sentence(detail: string): string {
  return /[.?!]$/.test(detail) ? detail : `${detail}.`;
}
