import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { openOrgExport } from '@/lib/api/export';
import type { QueryParam } from '@/lib/api/params';
import { EXPORT_FORMATS, type ExportFormat } from '@/lib/domain/query';
import { API_PREFIX } from '@/lib/domain/limits';
import { CommandError, EXIT, parseCommand, UsageError } from './args';
import { type CommandContext, partialFileBeside } from './context';
import {
  asCommand,
  FILTER_OPTIONS,
  filterParams,
  readContext,
  requireOrgOption,
} from './events-options';
import { Progress, formatBytes, formatCount, formatNumber, jsonSeconds } from './progress';

function closed(stream: fs.WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.once('error', reject);
    stream.end(() => resolve());
  });
}

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * The file a path names once its symbolic links are followed, when that file
 * does not exist yet (a link to the next export): the path itself if it is
 * no link. Renamed onto, the link was replaced by the export.
 */
function linkTarget(file: string): string {
  let current = file;
  // As many links as the kernel follows (ELOOP beyond).
  for (let hops = 0; hops < 40; hops++) {
    let link: string;
    try {
      link = fs.readlinkSync(current);
    } catch {
      return current; // no link (or nothing there): the file to create
    }
    current = path.resolve(path.dirname(current), link);
  }
  throw new CommandError(`Cannot write ${file}: too many levels of symbolic links`);
}

/**
 * Where the export goes. A special file (a device or a pipe: --out
 * /dev/null, /dev/stdout, a named pipe) is written in place: renamed onto,
 * it was replaced by a regular file (as root, /dev/null itself). Any other
 * is written through a temporary file beside it, renamed onto it once
 * complete; a symbolic link's file is the one replaced, the link kept.
 */
type Destination = { path: string; inPlace: boolean; append?: boolean };

/** Names of this process's stdout: `--out -` by another name. */
const STDOUT_NAMES = new Set(['/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']);

/**
 * Another descriptor the shell opened (`--out /dev/fd/3 3>>log`): written
 * where it stands, appended to. Opened anew, its file was truncated, and
 * followed to the file behind it and renamed onto, replaced.
 */
const DESCRIPTOR_NAME = /^\/(?:dev\/(?:stderr|fd\/\d+)|proc\/self\/fd\/\d+)$/;

/**
 * The export's destination, checked before a single event is read:
 * otherwise the whole export was written first and the failure then named
 * the internal `.partial` file (EISDIR, ENOENT), not what the user gave.
 */
function destination(shown: string): Destination {
  const resolved = path.resolve(shown);
  if (DESCRIPTOR_NAME.test(resolved)) return { path: resolved, inPlace: true, append: true };
  const existing = statOrNull(resolved);
  if (existing?.isDirectory()) {
    throw new UsageError(
      `--out ${shown} is a directory: name the file to write (e.g. ${path.join(shown, 'events.ndjson')})`,
    );
  }
  if (existing && !existing.isFile()) return { path: resolved, inPlace: true };
  const target = existing ? fs.realpathSync(resolved) : linkTarget(resolved);
  const parent = target === resolved ? path.dirname(shown) : path.dirname(target);
  const directory = statOrNull(path.dirname(target));
  if (!directory) throw new CommandError(`Cannot write ${shown}: no directory ${parent}`);
  if (!directory.isDirectory()) {
    throw new CommandError(`Cannot write ${shown}: ${parent} is not a directory`);
  }
  try {
    fs.accessSync(path.dirname(target), fs.constants.W_OK);
  } catch {
    throw new CommandError(`Cannot write ${shown}: the directory ${parent} is not writable`);
  }
  return { path: target, inPlace: false };
}

/**
 * `events export`: the API's export of the filtered set, read from the local
 * store in one snapshot, written to a temporary file next to the target and
 * renamed once complete and counted (a failed or cancelled export leaves no
 * file behind); `--out -` writes to stdout. Progress on stderr.
 */
export async function exportEventsCommand(
  args: string[],
  context: CommandContext,
): Promise<number> {
  const { values } = parseCommand(
    args,
    {
      ...FILTER_OPTIONS,
      format: { type: 'string' },
      out: { type: 'string' },
      'include-raw': { type: 'boolean' },
    },
    { min: 0, max: 0, names: '' },
  );
  const format = (values.format ?? 'ndjson') as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) {
    throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}, got '${format}'`);
  }
  // /dev/stdout as `-` (followed to the shell's file, `>> log` was replaced).
  const toStdout = values.out === '-' || STDOUT_NAMES.has(path.resolve(values.out ?? ''));
  if (toStdout && context.json) {
    throw new UsageError('--out - writes the events to stdout: it cannot be combined with --json');
  }
  let chosen = !toStdout && values.out !== undefined ? destination(values.out) : undefined;
  const store = await context.store();
  const org = await requireOrgOption(store, values);
  const params: QueryParam[] = [...filterParams(values), { name: 'format', value: format }];
  if (values['include-raw']) params.push({ name: 'includeRaw', value: 'true' });
  const apiPath = `${API_PREFIX}/orgs/${org.id}/events/export`;
  const opened = await asCommand(() => openOrgExport(readContext(store, apiPath, params), org));

  // The default name (known once the export is open) is checked as --out is.
  if (!toStdout && values.out === undefined) {
    try {
      chosen = destination(opened.fileName);
    } catch (error) {
      await opened.body.cancel();
      throw error;
    }
  }
  const target = chosen?.path;
  const temporary = chosen && !chosen.inPlace ? partialFileBeside(chosen.path) : undefined;
  const sink = chosen
    ? fs.createWriteStream(temporary ?? chosen.path, {
        flags: temporary ? 'wx' : chosen.append ? 'a' : 'w',
      })
    : process.stdout;
  // The file's own failure (a full disk, a file-size limit), kept to be said
  // with the file's name: the bare "ENOSPC: no space left on device, write"
  // named neither the file nor what became of it.
  let writeFailure: Error | undefined;
  if (chosen) sink.once('error', (error: Error) => (writeFailure ??= error));
  const progress = new Progress('Exporting', opened.totalCount, 'events');
  let cancelled = false;
  // SIGINT and SIGTERM alike (SIGTERM, as `kill` and service managers send
  // it, killed the process and left the .partial file behind): the export
  // is cancelled and its temporary file removed. A second signal quits at
  // once, the file removed all the same.
  const onSignal = () => {
    if (cancelled) {
      if (temporary) fs.rmSync(temporary, { force: true });
      process.exit(EXIT.interrupted);
    }
    cancelled = true;
    // Unawaited: a failure to end (the connection lost) must not become an unhandled rejection.
    opened.body.cancel().catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let bytes = 0;
  try {
    for (let chunk = await opened.body.read(); chunk !== null; chunk = await opened.body.read()) {
      // Encoded once: its length is the byte count (Buffer.byteLength, then
      // the stream's own encoding, walked each chunk twice).
      const encoded = Buffer.from(chunk);
      bytes += encoded.length;
      // A failure while no drain was awaited leaves the stream destroyed,
      // where a drain never comes.
      if (writeFailure) throw writeFailure;
      // Resolves on 'drain', rejects on the stream's 'error'.
      if (!sink.write(encoded)) await once(sink, 'drain');
      const rate = opened.eventsRead() / Math.max(progress.elapsed(), 1e-3);
      progress.update(opened.eventsRead(), `${formatNumber(rate)} events/s`);
    }
    // 130, as the other commands stopped by a signal: a shell's Ctrl-C code.
    if (cancelled) throw new CommandError('Export cancelled', EXIT.interrupted);
    if (opened.eventsRead() !== opened.totalCount) {
      throw new CommandError(
        `The export holds ${opened.eventsRead()} events, not the ${opened.totalCount} counted: nothing was written`,
      );
    }
    progress.update(opened.eventsRead());
    progress.finish();
    if (chosen) {
      await closed(sink as fs.WriteStream);
      if (temporary) fs.renameSync(temporary, chosen.path);
    }
  } catch (error) {
    progress.finish();
    await opened.body.cancel();
    if (chosen) (sink as fs.WriteStream).destroy();
    if (temporary) fs.rmSync(temporary, { force: true });
    if (writeFailure === undefined) throw error;
    throw new CommandError(
      `Cannot write ${target} (${writeFailure.message})` +
        (temporary ? ': nothing was written' : ''),
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const seconds = progress.elapsed();
  const summary = {
    orgId: org.id,
    format,
    file: target ?? null,
    events: opened.totalCount,
    bytes,
    seconds: jsonSeconds(seconds),
  };
  context.emit(summary);
  context.note(
    `Exported ${formatCount(opened.totalCount, 'event')} (${formatBytes(bytes)}) in ${seconds.toFixed(1)} s${target ? ` to ${target}` : ''}.`,
  );
  return EXIT.ok;
}
