import { MirrorError, runMirror } from '@/lib/mirror/mirror';
import { MAX_ITEMS_PER_PAGE } from '@/lib/domain/limits';
import { hideUserInfo } from '@/lib/store/database-url';
import {
  CommandError,
  EXIT,
  parseCommand,
  parseCount,
  parseDate,
  parseMaxRecordBytes,
  parseObjectId,
  requireOption,
  UsageError,
} from './args';
import {
  type Command,
  notRecordedNote,
  requireOrg,
  stopOnSignals,
  warnStatisticsNotRefreshed,
} from './context';
import { rejectedNote, StatusLine } from './mirror-status';
import { formatCount, formatDuration, formatNumber, jsonSeconds } from './progress';

/**
 * `mirror --org LOCAL_ORG --source BASE_URL --source-org ORG_ID --public-key PUB`
 * (private key from --private-key or MIRROR_PRIVATE_KEY): copies a live
 * organization through its public API (lib/mirror/mirror.ts).
 */
export const mirror: Command = async (args, context) => {
  const { values } = parseCommand(
    args,
    {
      org: { type: 'string' },
      source: { type: 'string' },
      'source-org': { type: 'string' },
      'public-key': { type: 'string' },
      'private-key': { type: 'string' },
      since: { type: 'string' },
      follow: { type: 'boolean' },
      interval: { type: 'string' },
      'requests-per-minute': { type: 'string' },
      'items-per-page': { type: 'string' },
      'max-record-bytes': { type: 'string' },
    },
    { min: 0, max: 0, names: '' },
  );
  const orgId = parseObjectId(requireOption(values.org, '--org'), '--org');
  const baseUrl = requireOption(values.source, '--source');
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(baseUrl);
  } catch {
    throw new UsageError(
      `--source must be a URL such as https://host/api/public/v1.0, got '${hideUserInfo(baseUrl)}'`,
    );
  }
  if (parsedUrl.protocol !== 'https:' && parsedUrl.protocol !== 'http:') {
    throw new UsageError(`--source must be an http or https URL, got '${hideUserInfo(baseUrl)}'`);
  }
  // The URL names the mirror's checkpoint and is kept in the import ledger
  // (imports list shows it): a name and password in it would be stored and
  // shown, and the request never sent them anyway (Digest uses the keys).
  if (parsedUrl.username !== '' || parsedUrl.password !== '') {
    throw new UsageError(
      '--source must not hold a user name or password: the keys go in --public-key and MIRROR_PRIVATE_KEY',
    );
  }
  // The text, not the parsed URL: a bare '?' or '#' parses to an empty query
  // but would still make the checkpoint's key another source's.
  if (/[?#]/.test(baseUrl)) {
    throw new UsageError(
      `--source is the API's base URL, without a query or fragment (such as https://host/api/public/v1.0), got '${baseUrl}'`,
    );
  }
  const sourceOrg = parseObjectId(
    requireOption(values['source-org'], '--source-org'),
    '--source-org',
  );
  const publicKey = requireOption(values['public-key'], '--public-key');
  const privateKey = values['private-key'] ?? process.env.MIRROR_PRIVATE_KEY;
  if (privateKey === undefined || privateKey === '') {
    throw new UsageError(
      'The private key is missing: set MIRROR_PRIVATE_KEY (or pass --private-key)',
    );
  }
  // Both go into the Authorization header: a character a header cannot
  // carry failed every request, and only after its 60 s deadline; a space
  // it can carry would only have shown as a wrong key. API keys hold neither.
  for (const [name, key] of [
    ['--public-key', publicKey],
    ['The private key', privateKey],
  ] as const) {
    if (/[^\x21-\x7e]/.test(key)) {
      throw new UsageError(
        `${name} holds a space, a control character (a carriage return, from a file with Windows line endings?) or a character beyond ASCII: API keys have none`,
      );
    }
  }
  const since = values.since === undefined ? undefined : parseDate(values.since, '--since');
  // A later date would become the copy's start: the events dated between
  // now and then would never be copied, and nothing would say so.
  if (since !== undefined && since > Date.now()) {
    throw new UsageError(
      `--since lies in the future ('${values.since!}'): it is the oldest event time to copy from; leave it out to copy everything`,
    );
  }
  if (values.interval !== undefined && !values.follow) {
    throw new UsageError('--interval only applies with --follow');
  }
  const intervalSeconds =
    values.interval === undefined ? 60 : parseCount(values.interval, '--interval', 1, 86_400);
  const requestsPerMinute =
    values['requests-per-minute'] === undefined
      ? 500
      : parseCount(values['requests-per-minute'], '--requests-per-minute', 1, 100_000);
  const itemsPerPage =
    values['items-per-page'] === undefined
      ? MAX_ITEMS_PER_PAGE
      : parseCount(values['items-per-page'], '--items-per-page', 1, MAX_ITEMS_PER_PAGE);
  const maxRecordBytes =
    values['max-record-bytes'] === undefined
      ? undefined
      : parseMaxRecordBytes(values['max-record-bytes']);

  const store = await context.store();
  await requireOrg(
    store,
    orgId,
    `Create it first ('orgs create --name NAME --id ${orgId}'; the source's id keeps event links alike).`,
  );

  // SIGINT/SIGTERM: finish the current page, save the checkpoint, summarize.
  // A second signal exits at once (the checkpoint of the last page stands).
  const stop = stopOnSignals(() =>
    context.note('\nStopping after the current page (again to quit at once)...'),
  );
  const status = new StatusLine();
  try {
    const summary = await runMirror({
      store,
      orgId,
      source: {
        baseUrl,
        orgId: sourceOrg,
        publicKey,
        privateKey,
        requestsPerMinute,
        onWait: ({ reason, ms }) => status.waiting(reason, ms),
      },
      since,
      follow: values.follow ?? false,
      intervalSeconds,
      itemsPerPage,
      maxRecordBytes,
      shouldStop: () => stop.signal.aborted,
      // Until the next check, or a stop.
      pause: (ms) =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            stop.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, ms);
          if (stop.signal.aborted) done();
          else stop.signal.addEventListener('abort', done);
        }),
      onProgress: (progress) => status.update(progress),
      onBackfill: ({ since: from, until }) => {
        status.clear();
        context.note(
          `Copying the events from ${from} up to ${until}, where the copy started (--since is earlier)...`,
        );
      },
      onLaterSince: ({ since: asked, from }) => {
        status.clear();
        context.note(
          `--since ${asked} changes nothing: the copy already starts ${from === null ? "at the source's first event" : `at ${from}`}, and a run catches up from where the last one stopped. To drop older events from the copy, use 'events prune --before'.`,
        );
      },
      onCaughtUp: (state) => status.caughtUp(state),
      onSourceDown: ({ reason, nextCheckSeconds }) => status.sourceDown(reason, nextCheckSeconds),
      onRejected: (record, message) => {
        status.clear();
        context.note(rejectedNote(record, message));
      },
      onStatisticsNotRefreshed: (reason, copied) => {
        status.clear();
        warnStatisticsNotRefreshed(
          context,
          'mirror',
          `what it copied (${formatCount(copied, 'event')}) is stored`,
          reason,
        );
      },
    });
    status.clear();
    if (summary.runNotRecorded !== undefined) {
      context.note(
        notRecordedNote(
          summary.runId,
          summary.interrupted ? 'interrupted' : 'finished',
          summary.runNotRecorded,
          summary.copied,
        ),
      );
    }
    context.emit({
      orgId,
      source: baseUrl,
      sourceOrg,
      runId: summary.runId,
      copied: summary.copied,
      skipped: summary.skipped,
      rejected: summary.rejected,
      requests: summary.requests,
      retries: summary.retries,
      seconds: jsonSeconds(summary.seconds),
      through: summary.through,
      stopped: summary.stopped,
      interrupted: summary.interrupted,
      ...(summary.statisticsNotRefreshed === undefined
        ? {}
        : { statisticsNotRefreshed: summary.statisticsNotRefreshed }),
      ...(summary.runNotRecorded === undefined ? {} : { runNotRecorded: summary.runNotRecorded }),
    });
    context.say(
      `Mirrored ${sourceOrg} from ${baseUrl} into ${orgId} in ${formatDuration(summary.seconds)}: ` +
        `${formatNumber(summary.copied)} copied, ${formatNumber(summary.skipped)} already present, ` +
        `${formatNumber(summary.rejected)} rejected; ${formatNumber(summary.requests)} requests, ` +
        `${formatNumber(summary.retries)} retries.` +
        (summary.through ? ` Complete through ${summary.through}.` : '') +
        (summary.interrupted
          ? ' Stopped on request before the copy was complete: the next run resumes where this one stopped.'
          : summary.stopped
            ? ' Stopped on request.'
            : '') +
        ` Run ${summary.runId}.`,
    );
    // A copy cut short is no success to a script or cron (as an import's);
    // a --follow mirror is stopped to end it, which is its success.
    if (summary.interrupted && !values.follow) return EXIT.interrupted;
    return summary.rejected > 0 ? EXIT.someInvalid : EXIT.ok;
  } catch (error) {
    status.clear();
    if (error instanceof MirrorError) throw new CommandError(error.message);
    throw error;
  } finally {
    stop.release();
  }
};
