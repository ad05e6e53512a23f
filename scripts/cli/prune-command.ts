import { formatCreated } from '@/lib/domain/event';
import { pruneEvents } from '@/lib/ingest/prune';
import { EXIT, parseCommand, parseDate, parseObjectId, requireOption, UsageError } from './args';
import {
  type Command,
  requireOrg,
  stopDeletionOnSignals,
  warnStatisticsNotRefreshed,
} from './context';
import { Progress, formatCount, formatDuration, jsonSeconds } from './progress';

/**
 * `events prune --org ORG --before DATE [--dry-run]`: retention. Deletes every event
 * created strictly before DATE, in short transactions with exact counters
 * (lib/store/retention.ts); mirrors of the org do not copy them back
 * (lib/ingest/prune.ts).
 */
export const prune: Command = async (args, context) => {
  const { values } = parseCommand(
    args,
    { org: { type: 'string' }, before: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    { min: 0, max: 0, names: '' },
  );
  const orgId = parseObjectId(requireOption(values.org, '--org'), '--org');
  const before = parseDate(requireOption(values.before, '--before'), '--before');
  // Every mirror of the org starts its copy at `before` (lib/ingest/prune.ts):
  // a later date would leave the events created until then uncopied, unsaid.
  if (before > Date.now()) {
    throw new UsageError(
      `--before lies in the future ('${values.before!}'): every mirror of the org would start its copy there and never copy the events created until then; to delete every event so far, give the current time`,
    );
  }
  const store = await context.store();
  await requireOrg(store, orgId);
  const count = await store.countEvents({ orgId, maxCreated: before - 1 });
  const beforeText = formatCreated(before);
  if (values['dry-run']) {
    context.emit({ orgId, before: beforeText, dryRun: true, wouldDelete: count });
    context.say(
      `Would delete ${formatCount(count, 'event')} of ${orgId} created before ${beforeText}.`,
    );
    return EXIT.ok;
  }
  const progress = count > 0 ? new Progress('Pruning', count, 'events') : undefined;
  const started = performance.now();
  // Ctrl-C ends the prune after the batch being deleted; running it again completes it.
  const stop = stopDeletionOnSignals(context, progress);
  let outcome;
  try {
    outcome = await pruneEvents(store, orgId, before, {
      onBatch: (n) => progress?.update(n),
      stop: () => stop.signal.aborted,
    });
  } finally {
    stop.release();
    progress?.finish();
  }
  const { deleted, statisticsNotRefreshed } = outcome;
  const statistics = statisticsNotRefreshed === undefined ? {} : { statisticsNotRefreshed };
  warnStatisticsNotRefreshed(
    context,
    'prune',
    `what it deleted (${formatCount(deleted, 'event')}) is gone`,
    statisticsNotRefreshed,
  );
  const seconds = (performance.now() - started) / 1000;
  // Asked to stop after the last batch, it is done: said as such.
  const remaining = stop.signal.aborted
    ? await store.countEvents({ orgId, maxCreated: before - 1 })
    : 0;
  if (remaining > 0) {
    context.emit({
      orgId,
      before: beforeText,
      dryRun: false,
      deleted,
      stopped: true,
      remaining,
      ...statistics,
      seconds: jsonSeconds(seconds),
    });
    context.say(
      `Stopped pruning ${orgId} on request after ${formatDuration(seconds)}: ${formatCount(deleted, 'event')} deleted, ` +
        `${formatCount(remaining, 'event')} created before ${beforeText} remain; running the prune again completes it.`,
    );
    return EXIT.interrupted;
  }
  context.emit({
    orgId,
    before: beforeText,
    dryRun: false,
    deleted,
    ...statistics,
    seconds: jsonSeconds(seconds),
  });
  context.say(
    `Deleted ${formatCount(deleted, 'event')} of ${orgId} created before ${beforeText} in ${formatDuration(seconds)}.`,
  );
  return EXIT.ok;
};
