import { errorMessage } from '@/lib/domain/errors';
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { getConfig } from '@/lib/config';
import { encodeEvent, encodeRecordText, RepeatedKeyError } from '@/lib/domain/encode';
import {
  type EventInput,
  eventInputSchema,
  isValidEventInput,
  nestingProblem,
  type NewEvent,
} from '@/lib/domain/event';
import { fieldValues } from '@/lib/domain/filters';
import { MAX_RECORD_BYTES_LIMIT } from '@/lib/domain/limits';
import {
  OPEN_ARRAY,
  OPEN_OBJECT,
  parseJsonSource,
  QUOTE,
  skipSpace,
  sourceMember,
  stringEnd,
  trailingBackslashes,
  valueEnd,
  withoutByteOrderMark,
} from '@/lib/domain/json-text';
import { firstNotUtf8, hasLoneSurrogate, LONE_SURROGATE, NOT_UTF8 } from '@/lib/domain/utf8';
import type { EventStore, IngestRunPatch, IngestRunStatus } from '@/lib/store/types';
import { endIngestRun, startIngestRun, UndoRefusedError, undoIngestRun } from './ingest-runs';
import { refreshStatisticsAfterLoad } from './refresh-statistics';
import { BatchPacker, type PackedBatch, recycleText, unpackBatch } from './bulk-batch';
import { ListingOrder } from './listing-order';
import {
  type ArrayElement,
  JsonArraySplitter,
  JsonPunctuationError,
  NotAListError,
  JsonStructureError,
  type LineRecord,
  LineSplitter,
  RepeatedListKeyError,
  concatenatedDocuments,
  eventInContent,
  invalidToken,
  looselyOpensRecords,
  type Page,
  pageMembers,
  recordsPath,
} from './json-stream';

/**
 * Imports events from a file in any of the shapes people have at hand:
 *
 * - the list envelope the API returns, `{"results": [...], ...}` (also the
 *   `envelope=true` form, `{"status": 200, "content": {"results": [...]}}`);
 * - a JSON array of events;
 * - NDJSON, one event per line (a line may also hold a whole list envelope,
 *   so pages fetched with `curl >> file` import as they are).
 *
 * Everything is streamed: NDJSON line by line, JSON documents element by
 * element, so there is no file size limit beyond the disk.
 *
 * Each record is kept as its own text: the stored document and `raw` are cut
 * from it (lib/domain/encode.ts), so numbers, key order and escapes come back
 * byte for byte. A record longer than `maxRecordBytes` is reported, not read.
 *
 * Each record is validated on its own. An invalid one is reported with its
 * line (NDJSON) or index and line (JSON) and skipped; the rest import. A
 * record whose orgId names another organization is invalid unless `rehome`
 * is set, so an export can never land in the wrong organization by accident.
 * Events are inserted in batches, each atomic: a crash leaves whole batches
 * only, and re-running the import skips what is already there (idempotent by
 * event id). Broken file structure (not JSON, truncated) is fatal: batches
 * before the break stay imported and the error names the line.
 */

/** `event`: a JSON document that is one event (pretty-printed: on one line it is NDJSON). */
export type ImportFormat = 'envelope' | 'array' | 'ndjson' | 'event';

export type ImportIssue = {
  /** Human-readable place: "line 12", "results[3] (line 40)". */
  location: string;
  line: number;
  /** Index in the JSON array, when the record came from one. */
  index?: number;
  message: string;
};

export type ReadOptions = {
  orgId: string;
  /** Import records that name another organization into this one. */
  rehome?: boolean;
  /** Events per insert batch (default DEFAULT_IMPORT_BATCH, 20,000). */
  batchSize?: number;
  /** Longest record accepted, in UTF-8 bytes (default IMPORT_MAX_RECORD_BYTES, 1 MB). */
  maxRecordBytes?: number;
  onIssue?: (issue: ImportIssue) => void;
  /**
   * Bytes read so far, after each chunk; for a gzip-compressed file also the
   * bytes of text decompressed from them so far (after each decompressed chunk too).
   */
  onProgress?: (bytesRead: number, decompressedBytes?: number) => void;
};

export type ReadSummary = {
  /** null: the file was refused before its format was known (empty, not JSON, CSV). */
  format: ImportFormat | null;
  /** Records seen, valid or not. */
  read: number;
  invalid: number;
  /** Bytes read from the file (what its size and the progress measure). */
  bytes: number;
  /** A gzip-compressed file's: the bytes of the text decompressed from them (absent for a file not compressed). */
  decompressedBytes?: number;
  /**
   * What the file's pages say of it, imported all the same (ListingCheck):
   * it holds fewer events than its listing counts, or a page is no page as
   * the API writes it. Absent when none.
   */
  warnings?: string[];
};

export type ImportReport = ReadSummary & {
  inserted: number;
  /** Valid records whose id was already stored (or repeated in the file). */
  duplicates: number;
  /** The first `maxIssues` problems, in file order. */
  issues: ImportIssue[];
  seconds: number;
  /**
   * Why the statistics were not refreshed after the import, its batches all
   * committed (lib/ingest/refresh-statistics.ts): no failure of the import.
   */
  statisticsNotRefreshed?: string;
};

/** The file could not be read or is not one of the formats (not a bad record). */
export class ImportFatalError extends Error {
  constructor(
    message: string,
    /** What was read before the failure. */
    readonly summary?: ReadSummary,
    /** What was imported before the failure (whole batches only). */
    readonly partial?: ImportReport,
    /**
     * What was read before the failure cannot be trusted (a compressed
     * archive damaged or cut short: the text decompressed before its
     * checksum is unverified), so the run's events are removed (voidRun).
     */
    readonly voidsRun = false,
  ) {
    super(message);
    this.name = 'ImportFatalError';
  }
}

/** How the import ledger names a file: its absolute path (wherever it is read later), stdin as such. */
export function ledgerSource(file: string): string {
  return file === '-' ? 'stdin' : path.resolve(file);
}

/** What voidRun did: the message to show, and whether the run's events are gone. */
export type VoidedRun = {
  message: string;
  /** The run's events were removed (or none were stored); false when removing them failed. */
  removed: boolean;
  /** What endIngestRun found: 'undone' when `imports undo --force` ran while the import did. */
  ended: IngestRunStatus;
};

/**
 * Ends run `runId` as failed by `failure`, which voids it
 * (ImportFatalError.voidsRun), and removes what it stored. The ledger says
 * the run is void in the same write that ends it, so a process killed
 * before or during the removal leaves the instruction to finish it, and the
 * reason stays in its detail after the removal. A removal that fails is
 * said, not thrown over the failure.
 */
export async function voidRun(
  store: EventStore,
  runId: string,
  failure: string,
  counts: Pick<IngestRunPatch, 'inserted' | 'skipped' | 'rejected'>,
): Promise<VoidedRun> {
  const stored = (counts.inserted ?? 0) > 0;
  // Skipped as already present, they stay: stored by another run, perhaps
  // one of this very archive stopped midway, whose text is just as unverified
  // (a re-run would skip them again).
  const present = counts.skipped ?? 0;
  const keptPresent =
    present > 0
      ? `; ${present.toLocaleString('en-US')} events it found already present stay (stored by earlier runs: if one of them read this archive, they are unverified too; 'imports list' names it and 'imports undo' removes them)`
      : '';
  const ended = await endIngestRun(store, runId, {
    status: 'failed',
    ...counts,
    detail: stored
      ? `${failure}; void: what it stored may be altered, 'imports undo ${runId}' removes it`
      : failure,
  });
  // Nothing stored: an ordinary failed run, nothing to remove.
  if (!stored) {
    return { message: `${failure}${keptPresent}; fix the file and re-run`, removed: true, ended };
  }
  let removed = 0;
  try {
    removed = (await undoIngestRun(store, runId, { force: true })).deleted;
  } catch (error) {
    // Already undone (by hand, while it ran): nothing of it is left.
    if (!(error instanceof UndoRefusedError)) {
      // The undo's own note ("not finished") would hide why the run must go.
      await store
        .updateIngestRun(runId, {
          detail: `${failure}; void: what it stored may be altered, and removing it failed (${errorMessage(error)}): 'imports undo ${runId}' removes it`,
        })
        .catch(() => undefined);
      return {
        message: `${failure}. What was read before it is unverified and may be altered, and removing what this import stored failed (${errorMessage(error)}): run 'imports undo ${runId}'`,
        removed: false,
        ended,
      };
    }
  }
  await store.updateIngestRun(runId, {
    detail: `${failure}; void: what was read may be altered, so its ${removed} events were removed at once`,
  });
  return {
    message: `${failure}. What was read before it is unverified and may be altered, so nothing of this import is kept: the ${removed.toLocaleString('en-US')} events it had stored were removed${keptPresent}; fix the file and re-run`,
    removed: true,
    ended,
  };
}

/**
 * Events per insert batch (one transaction) unless told otherwise, for
 * imports and seeds. Each commit costs the writer about as much again as
 * rewriting the index pages a batch touches, so larger batches are faster
 * until memory says stop: 1,000,000 events imported into SQLite at 44,800
 * events/s in batches of 5,000 (peak RSS 544 MB), 58,700-62,800 in 10,000
 * (~600 MB), 63,000 in 15,000 (695 MB) and 65,900-69,300 in 20,000
 * (730-780 MB). Memory stays flat with the file's size either way.
 */
export const DEFAULT_IMPORT_BATCH = 20_000;

/** A path ("-" for stdin) or an already open byte stream. */
export type ImportSource = string | AsyncIterable<Buffer | string>;

/** Imports a file into one organization, in-process. */
export async function importEvents(
  store: EventStore,
  source: ImportSource,
  options: ReadOptions & { maxIssues?: number },
): Promise<ImportReport> {
  const started = performance.now();
  const maxIssues = options.maxIssues ?? 1000;
  const issues: ImportIssue[] = [];
  let inserted = 0;
  let duplicates = 0;
  let summary: ReadSummary = { format: null, read: 0, invalid: 0, bytes: 0 };
  let statisticsNotRefreshed: string | undefined;
  const report = (): ImportReport => ({
    ...summary,
    inserted,
    duplicates,
    issues,
    seconds: (performance.now() - started) / 1000,
    ...(statisticsNotRefreshed === undefined ? {} : { statisticsNotRefreshed }),
  });
  // Recorded in the import ledger (`imports list`, `imports undo`).
  const run = await startIngestRun(store, {
    orgId: options.orgId,
    kind: 'import',
    source: typeof source === 'string' ? ledgerSource(source) : 'stream',
  });
  const reader = readEventBatches(source, {
    ...options,
    onIssue: (issue) => {
      if (issues.length < maxIssues) issues.push(issue);
      options.onIssue?.(issue);
    },
  });
  try {
    for (;;) {
      const next = await reader.next();
      if (next.done) {
        summary = next.value;
        break;
      }
      const { events, terms } = unpackBatch(next.value);
      const result = await store.insertEvents(options.orgId, events, { runId: run.id, terms });
      inserted += result.inserted;
      // Ids repeated within the batch were dropped before it (BatchPacker.add).
      duplicates += result.skipped + next.value.repeated;
      recycleText(next.value.text);
    }
  } catch (error) {
    if (error instanceof ImportFatalError && error.voidsRun) {
      const voided = await voidRun(store, run.id, error.message, {
        inserted,
        skipped: duplicates,
        rejected: error.summary?.invalid,
      });
      if (voided.removed) inserted = 0;
      const partial = { ...report(), ...error.summary };
      throw new ImportFatalError(voided.message, error.summary, partial, true);
    }
    await endIngestRun(store, run.id, {
      status: 'failed',
      inserted,
      skipped: duplicates,
      detail: errorMessage(error),
    }).catch(() => undefined);
    if (error instanceof ImportFatalError) {
      throw new ImportFatalError(error.message, error.summary, { ...report(), ...error.summary });
    }
    throw error;
  } finally {
    // A batch that failed to insert leaves the reader suspended with its
    // file open: returning it runs its own clean-up (no-op once it ended).
    await reader.return(undefined as never).catch(() => undefined);
    // Best effort: a failure here neither fails an import whose batches all
    // committed nor hides why one failed.
    if (inserted > 0) statisticsNotRefreshed = await refreshStatisticsAfterLoad(store);
  }
  await endIngestRun(store, run.id, {
    status: 'finished',
    inserted,
    skipped: duplicates,
    rejected: summary.invalid,
  });
  return report();
}

/**
 * Reads, validates and encodes a file into packed batches (unpackBatch gives
 * what `store.insertEvents` takes); returns the summary when done. Throws
 * ImportFatalError (with the counts so far in `partial`) on broken files.
 */
export async function* readEventBatches(
  source: ImportSource,
  options: ReadOptions,
): AsyncGenerator<PackedBatch, ReadSummary> {
  const batchSize = options.batchSize ?? DEFAULT_IMPORT_BATCH;
  const counts = { read: 0, invalid: 0, bytes: 0 };
  let format: ImportFormat | null = null;
  const utf8: Utf8Problems = {};
  const compression: Compression = { gzip: false, textBytes: 0 };
  const pages = new ListingCheck();
  const summary = (): ReadSummary => {
    const warnings = pages.warnings();
    return {
      format,
      ...counts,
      ...(compression.gzip ? { decompressedBytes: compression.textBytes } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  };
  const progress = () =>
    options.onProgress?.(counts.bytes, compression.gzip ? compression.textBytes : undefined);
  const chunks = decode(
    source,
    (bytes) => {
      counts.bytes = bytes;
      progress();
    },
    utf8,
    compression,
    progress,
  );
  /** A JSON document's bytes that are no UTF-8: its import stops there, named by byte and line. */
  const notUtf8 = async (problem: InvalidUtf8) =>
    new ImportFatalError(
      `The file is not valid UTF-8: ${notUtf8Message(problem, compression.gzip, await lineAt(source, problem.offset))}`,
    );
  const maxBytes = options.maxRecordBytes ?? getConfig().IMPORT_MAX_RECORD_BYTES;
  const rehome = options.rehome ?? false;
  let batch = new BatchPacker(batchSize);
  /**
   * Where the record read last ends, in characters of the text (a line past
   * its line break): where a batch handed on now ends (BatchThrough).
   */
  let lastEnd = 0;
  /** Where the text of the NDJSON line (or document of one) being read starts: its records' offsets are from there. */
  let textStart = 0;
  /** The text's latest chunks, each with the characters and bytes before it: textOffset's. */
  const latest: { chars: number; bytes: number; text: string }[] = [];
  let chars = 0;
  let textBytes = 0;
  /** A chunk about to be read. Per chunk, not per record. */
  const see = (chunk: string) => {
    if (chars === 0) textBytes = compression.dropped ?? 0;
    latest.push({ chars, bytes: textBytes, text: chunk });
    // A record held while read (an envelope's first records, while it may
    // prove one event) ends at most a record limit back: a few 1 MiB chunks.
    if (latest.length > LATEST_CHUNKS) latest.shift();
    chars += chunk.length;
    textBytes += Buffer.byteLength(chunk);
  };
  /** The offset in bytes of character `at` of the text; -1 when it lies before the latest chunks. */
  const textOffset = (at: number): number => {
    for (let k = latest.length - 1; k >= 0; k--) {
      const chunk = latest[k]!;
      if (at >= chunk.chars) {
        return chunk.bytes + Buffer.byteLength(chunk.text.slice(0, at - chunk.chars));
      }
    }
    return latest.length === 0 ? (compression.dropped ?? 0) : -1;
  };
  // Events sharing a second keep the file's order (ListingOrder), read in
  // the file's direction: newest first (the API's and the export's order)
  // unless its first two distinct seconds ascend. Until a second distinct
  // second shows, full batches are held back (at most MAX_UNDECIDED events),
  // so a file whose first batch lies within one second is still read the
  // right way round.
  let listing: ListingOrder | undefined;
  let undecided: BatchPacker[] = [];
  let undecidedEvents = 0;
  /** The batches ready to insert once `events` (a full batch, or the last) is read. */
  const inListingOrder = (events: BatchPacker, last: boolean): PackedBatch[] => {
    if (listing === undefined) {
      undecided.push(events);
      undecidedEvents += events.count;
      if (fileDirection(undecided) === undefined && !last && undecidedEvents < MAX_UNDECIDED) {
        return [];
      }
      return releaseUndecided();
    }
    return events.count > 0 ? [packInOrder(events, listing)] : [];
  };
  /** Decides the direction (newest first unless shown otherwise) and packs the batches held back. */
  const releaseUndecided = (): PackedBatch[] => {
    const order = new ListingOrder(fileDirection(undecided) !== 'ascending');
    listing = order;
    const ready = undecided.filter((held) => held.count > 0);
    undecided = [];
    return ready.map((held) => packInOrder(held, order));
  };
  /** The number of the file's last line when no line break ends it (NDJSON), once it is read. */
  let unterminatedLine = -1;
  const reject = (location: Location, message: string) => {
    counts.read++;
    counts.invalid++;
    options.onIssue?.({ ...location, message });
  };
  /** `text`: the record's own JSON text (it is kept verbatim). */
  const accept = (value: unknown, text: string, location: Location) => {
    // What a file holds in place of an event (not the mirror's: its pages are no file).
    const result = notAnEventInFile(value) ?? toNewEvent(value, options.orgId, rehome, text);
    if (typeof result === 'string') {
      reject(location, result);
      return NONE;
    }
    return add(result);
  };
  /** A valid record, encoded. */
  const add = (event: NewEvent) => {
    counts.read++;
    batch.add(event);
    return batch.full ? handOn() : NONE;
  };
  /**
   * The events read so far, as a batch: when it is full, and when the
   * source stalls (a pipe whose writer paused), so they are committed then
   * rather than when the batch fills, which may be never.
   */
  const handOn = (): readonly PackedBatch[] => {
    if (batch.count === 0) return NONE;
    const events = batch;
    events.through = {
      read: counts.read,
      invalid: counts.invalid,
      textBytes: textOffset(lastEnd),
    };
    batch = new BatchPacker(batchSize);
    return inListingOrder(events, false);
  };
  /**
   * Reads one record's text: a valid event in the common shape is encoded
   * straight from it (encodeRecordText), anything else parsed for the
   * general path; undefined (reported) when it cannot be read. With
   * `appended` (an NDJSON line's reader), text JSON.parse refuses is first
   * offered to it as documents appended on one line (true if it took them).
   */
  const parse = (
    text: string,
    oversize: number | undefined,
    location: Location,
    appended?: (text: string, line: number) => boolean,
  ): { event: NewEvent } | { value: unknown } | undefined => {
    const size = oversize ?? recordBytes(text, maxBytes);
    if (size > maxBytes) {
      reject(location, tooLargeMessage(size, maxBytes));
      return undefined;
    }
    const event = encodeRecordText(options.orgId, text, rehome);
    if (event) return { event };
    try {
      return { value: JSON.parse(text) as unknown };
    } catch (error) {
      if (!appended?.(text, location.line)) {
        // A bare value is named as what it is (V8 says "Unexpected end of
        // JSON input" of `tru`, and counts positions within the record).
        const message = bareValueProblem(text) ?? errorMessage(error);
        // The file's last line, with no line break after it, broken off
        // (an interrupted download): said, as a JSON document's end is.
        const cut = location.line === unterminatedLine && endsTooSoon(message, text);
        reject(
          location,
          `Not valid JSON: ${cut ? 'the file ends within this line (cut short?): ' : ''}${message}`,
        );
      }
      return undefined;
    }
  };
  /** A record read by parse(), accepted or reported. */
  const acceptRead = (
    record: { event: NewEvent } | { value: unknown },
    text: string,
    location: Location,
  ) => ('event' in record ? add(record.event) : accept(record.value, text, location));

  try {
    const detected = await detectFormat(chunks, utf8);
    format = detected.format;
    if (format !== 'ndjson' && utf8.first) throw await notUtf8(utf8.first);
    if (format === 'ndjson') {
      // A line may be longer than one record may be (a saved page of 500
      // events): it is held up to the line limit and split into its records.
      const lineLimit = Math.max(maxBytes, MAX_PAGE_LINE_BYTES);
      const ready: PackedBatch[] = [];
      const take = (full: readonly PackedBatch[]) => {
        for (const done of full) ready.push(done);
      };
      /**
       * API answers appended by `curl >> file` share a line (they end
       * without a line break): each is read as a line of its own, objects
       * or arrays, back to back or with blanks between. Looked for only
       * when the line is no one document (the fast paths first).
       */
      const readAppended = (text: string, line: number): boolean => {
        const documents = DOCUMENTS_MEET.test(text) ? concatenatedDocuments(text) : undefined;
        if (!documents) return false;
        // Each document's place in the file, for a batch ending in it: they
        // are the line's text cut in order.
        const [base, lineEnd] = [textStart, lastEnd];
        let from = 0;
        for (const document of documents) {
          const at = Math.max(from, text.indexOf(document, from));
          from = at + document.length;
          readLine({ text: document, line, start: base + at, end: base + from });
        }
        lastEnd = lineEnd;
        return true;
      };
      /** Line `line` as a page (pageRecords); null when it names its list twice, or two lists (refused here). */
      const pageOf = (text: string, line: number): ReturnType<typeof pageRecords> | null => {
        try {
          return pageRecords(text);
        } catch (error) {
          if (!(error instanceof RepeatedListKeyError)) throw error;
          reject(at(line), error.reason);
          return null;
        }
      };
      const readLine = (record: LineRecord): void => {
        const { line, oversize } = record;
        lastEnd = record.end;
        // A byte order mark opening a line: files saved with one and joined
        // (`cat a.ndjson b.ndjson`) carry the second one into the file. It
        // is no part of the record (the first file's is dropped as read).
        const text = withoutByteOrderMark(record.text);
        textStart = record.start + record.text.length - text.length;
        // A line holding bytes that are no UTF-8 is an invalid record: the
        // lines around it are read on (a JSON document's import stops).
        const mark =
          utf8.first === undefined || oversize !== undefined ? undefined : readUtf8Mark(text);
        if (mark) {
          reject(
            {
              location: `line ${line}, byte ${mark.offset + 1}${compression.gzip ? ' of the decompressed text' : ''}`,
              line,
            },
            `Not valid UTF-8: ${mark.endsWithin ? 'the file ends within a character' : 'a byte sequence that is no UTF-8 character'} ${CONVERT_HINT}`,
          );
          return;
        }
        if (oversize === undefined && isBlank(text)) return;
        // Measured once: the page check below and parse() both need it.
        const size = oversize ?? recordBytes(text, maxBytes);
        if (oversize === undefined && size > maxBytes) {
          const page = pageOf(text, line);
          if (page === null) return;
          if (page) {
            if (page.members) pages.add({ ...page.members, line });
            const base = textStart;
            for (const element of page.elements) {
              const location = {
                location: `line ${line}, ${page.path}[${element.index}]`,
                line,
                index: element.index,
              };
              lastEnd = base + element.end;
              const record = parse(element.text, undefined, location);
              if (record) take(acceptRead(record, element.text, location));
            }
            lastEnd = record.end;
            return;
          }
          if (readAppended(text, line)) return;
        }
        const parsed = parse(text, size, at(line), readAppended);
        if (!parsed) return;
        if ('event' in parsed) {
          take(add(parsed.event));
          return;
        }
        // A line may hold a whole list envelope (a page saved from the API)
        // or an array of events; each inner record is then its own record.
        const inner = innerRecords(parsed.value);
        if (inner) {
          const page = pageOf(text, line);
          if (page === null) return;
          // Both follow one rule (recordsPath), so the splitter's texts are
          // this list's; were they ever not, each record is reported rather
          // than stored re-serialized (its big integers, `1.0` and escapes lost).
          const texts =
            page?.path === inner.prefix && page.elements.length === inner.list.length
              ? page.elements
              : undefined;
          pages.add({
            line,
            records: inner.list.length,
            ...pageMembers(parsed.value, inner.prefix),
          });
          const base = textStart;
          for (let index = 0; index < inner.list.length; index++) {
            const location = {
              location: `line ${line}, ${inner.prefix}[${index}]`,
              line,
              index,
            };
            const own = texts?.[index];
            if (own) lastEnd = base + own.end;
            if (own === undefined) reject(location, NO_OWN_TEXT);
            else take(accept(inner.list[index], own.text, location));
          }
          lastEnd = record.end;
        } else {
          // An envelope=true answer of the get endpoint: its content is the
          // event, stored as that content's own text.
          const event = eventInContent(parsed.value);
          const eventText = event && sourceMember(parseJsonSource(text), 'content')?.text;
          if (eventText !== undefined) take(accept(event, eventText, at(line)));
          else take(accept(parsed.value, text, at(line)));
        }
      };
      // Lines are taken a chunk at a time in a plain loop (see LineSplitter);
      // the batches they fill are handed on after each chunk.
      const lines = new LineSplitter(lineLimit);
      for await (const chunk of withStallMarks(detected.chunks)) {
        if (chunk === STALLED) take(handOn());
        else {
          see(chunk);
          for (const record of lines.push(chunk)) readLine(record);
        }
        while (ready.length > 0) yield ready.shift()!;
      }
      const last = lines.end();
      if (last) {
        unterminatedLine = last.line;
        readLine(last);
      }
      while (ready.length > 0) yield ready.shift()!;
    } else {
      // Documents may follow one another (`curl >> file` appends API answers).
      const splitter = new JsonArraySplitter(maxBytes, true);
      for await (const chunk of withStallMarks(detected.chunks)) {
        if (chunk === STALLED) {
          yield* handOn();
          continue;
        }
        if (utf8.first) throw await notUtf8(utf8.first);
        see(chunk);
        const elements = splitter.push(chunk);
        for (const page of splitter.takePages()) pages.add(page);
        for (const element of elements) {
          lastEnd = element.end;
          // A file whose first document is one event is named so, not 'envelope'.
          if (element.document && format === 'envelope' && counts.read === 0) format = 'event';
          const location = element.document
            ? // One event, a document of its own: the line it starts on.
              at(element.line)
            : {
                // The records array's path as found: '' (an array), results or content.results.
                location: `${element.path}[${element.index}] (line ${element.line})`,
                line: element.line,
                index: element.index,
              };
          const parsed = parse(element.text, element.oversize, location);
          if (!parsed) continue;
          yield* acceptRead(parsed, element.text, location);
        }
      }
      splitter.end();
      for (const page of splitter.takePages()) pages.add(page);
      splitter.assertList();
    }
  } catch (error) {
    const fatal =
      error instanceof ImportFatalError
        ? error.message
        : error instanceof NotAListError
          ? notAList(error)
          : error instanceof RepeatedListKeyError
            ? `The file cannot be read as a list of events: ${error.message}`
            : error instanceof JsonStructureError
              ? `The file is not valid JSON: ${error.message}`
              : typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string'
                ? readFailure(source, error)
                : undefined;
    if (fatal === undefined) throw error;
    // Whole batches held back (every event so far in one second) are kept
    // as every whole batch before the break is; the one being filled is not.
    const voidsRun = error instanceof ImportFatalError && error.voidsRun;
    if (listing === undefined && !voidsRun) yield* releaseUndecided();
    throw new ImportFatalError(fatal, summary(), undefined, voidsRun);
  }
  yield* inListingOrder(batch, true);
  return summary();
}

/**
 * Whether a file holds every page of the listings its pages come from: a
 * page saved alone (`curl …/events > page.json`) holds its first
 * itemsPerPage events of a listing whose "totalCount" may be far more,
 * and nothing said so. The records of all the counted pages are measured
 * against the largest count: pages fetched one by one while events came
 * in count a listing growing as they go (grouped by count, each group fell
 * short), and pages of two listings are each whole if their records reach
 * the larger count. A count of 0 is none (includeCount=false). A page
 * whose "totalCount" is no number, or whose "links" no array, is no page
 * as the API writes it: said once (the first), and left out.
 */
class ListingCheck {
  /** The pages with a count, the records they held, and the largest count. */
  private pages = 0;
  private records = 0;
  private count = 0;
  private notApi: { line: number; key: string; is: string; more: number } | undefined;

  add(page: Page): void {
    if (page.notApi) {
      if (this.notApi) this.notApi.more++;
      else this.notApi = { line: page.line, ...page.notApi, more: 0 };
      return;
    }
    if (page.totalCount === undefined || !(page.totalCount > 0)) return;
    this.pages++;
    this.records += page.records;
    this.count = Math.max(this.count, page.totalCount);
  }

  warnings(): string[] {
    const warnings: string[] = [];
    const number = (n: number) => n.toLocaleString('en-US');
    const { pages, records, count } = this;
    if (records < count) {
      warnings.push(
        `The file holds ${pages === 1 ? 'one page' : `${number(pages)} pages`} of a longer listing: ` +
          `${number(records)} of its ${number(count)} events ("totalCount": ${count}). ` +
          "Import its other pages too (pageNum=2, 3, …; itemsPerPage up to 500), or copy the organization whole with 'mirror'.",
      );
    }
    if (this.notApi) {
      const { line, key, is, more } = this.notApi;
      warnings.push(
        `Line ${line}: the page's "${key}" is ${is}, not ${key === 'links' ? 'an array' : 'a number'}: ` +
          'it is no page as the API writes it, so whether the file holds every page of its listing was not checked' +
          (more > 0 ? ` (nor for ${number(more)} more such ${more === 1 ? 'page' : 'pages'})` : ''),
      );
    }
    return warnings;
  }
}

/** Why a record of a page is not stored when its own text could not be cut from the page. */
const NO_OWN_TEXT =
  'Its own text could not be cut from the page holding it, and a record is stored only as written';

/** What is wrong with a record that is one bare value (no object, array or string), if it is one. */
function bareValueProblem(text: string): string | undefined {
  const value = text.trim();
  return /^[^{["\s][^\s{}[\],:"]*$/.test(value) ? invalidToken(value) : undefined;
}

/** Whether JSON.parse's message (V8's) says `text` ended before its value did. */
function endsTooSoon(message: string, text: string): boolean {
  if (message.startsWith('Unexpected end of JSON input')) return true;
  const position = /in JSON at position (\d+)/.exec(message)?.[1];
  return position !== undefined && Number(position) >= text.length;
}

/** What is wrong with a JSON document (of possibly several in a row) that is no list of events. */
function notAList(error: NotAListError): string {
  const which =
    error.document === 1 ? 'The JSON document' : `The JSON document starting on line ${error.line}`;
  if (error.reason === 'apiError') {
    return `${which} is an error answer of the API ("error" and "errorCode"), not a list of events: the request that saved it failed (a wrong key, a timeout); ask for it again`;
  }
  const expected = '(expected an array of events, a list envelope {"results": [...]}, or NDJSON)';
  if (error.reason === 'noRecords' && error.listValue) {
    const { path: key, is } = error.listValue;
    return `${error.document === 1 ? "The JSON document's" : `${which}: its`} "${key}" is ${is}, not an array of events ${expected}`;
  }
  return error.reason === 'oneEvent'
    ? `${which} is one event (it, or its "content", has an "id" or "eventTypeName") whose own "results" comes before those and which is longer than the record limit, so that list was read as its events until the "id" showed: too large to import as one event, it imports only with a higher --max-record-bytes`
    : `${which} has no "results" array: it is ${objectHolding(error)} ${expected}`;
}

/** What a document that is no list holds, by its root object's keys: what the file is may show in them. */
function objectHolding({ rootKeys, rootKeyCount }: NotAListError): string {
  if (rootKeyCount === 0) return 'an empty object';
  const more = rootKeyCount - rootKeys.length;
  const keys = rootKeys
    .map((key) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key))
    .join(', ');
  return `an object whose members are ${keys}${more > 0 ? ` and ${more.toLocaleString('en-US')} more` : ''}`;
}

/** How long the source may pause before the events read so far are inserted anyway. */
const STALL_MS = 1000;

/** The text's chunks kept to find where a batch ends in bytes (textOffset): 1 MiB each, read from a file. */
const LATEST_CHUNKS = 4;

/** What withStallMarks yields for a pause. */
const STALLED = Symbol('stalled');

/**
 * The chunks of `source`, with a STALLED mark each time the next one takes
 * longer than STALL_MS to come. A file never pauses that long; a pipe does
 * (`tail -f … | import -`), and then the reader commits what it holds.
 */
async function* withStallMarks<T>(source: AsyncIterable<T>): AsyncGenerator<T | typeof STALLED> {
  const iterator = source[Symbol.asyncIterator]();
  let next = iterator.next();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stall = new Promise<typeof STALLED>((resolve) => {
        timer = setTimeout(resolve, STALL_MS, STALLED);
      });
      // Racing attaches a handler to `next`, so a failure while stalled is
      // not unhandled: it surfaces at the next race.
      const step = await Promise.race([next, stall]);
      clearTimeout(timer);
      if (step === STALLED) {
        yield STALLED;
        continue; // still waiting for the same chunk
      }
      if (step.done) return;
      yield step.value;
      next = iterator.next();
    }
  } finally {
    // Stopped early (a fatal error): let the source close its file.
    void iterator.return?.()?.catch(() => undefined);
  }
}

/** A batch packed with its events' times as sort keys in the listing's order (ListingOrder). */
function packInOrder(events: BatchPacker, order: ListingOrder): PackedBatch {
  events.mapCreated((created, id) => order.sortKey(created, id));
  return events.finish();
}

/** The value at `path` inside a parsed record, or undefined where there is none. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** No batch is full yet. */
const NONE: readonly PackedBatch[] = [];

/**
 * Events held back while a file's direction is unknown (every event so far
 * in one second); past this many it is read newest first.
 */
const MAX_UNDECIDED = 100_000;

/** Which way the first two distinct seconds of these batches go, if they hold two. */
function fileDirection(batches: readonly BatchPacker[]): 'ascending' | 'descending' | undefined {
  let first: number | undefined;
  for (const events of batches) {
    const { created, count } = events.collector;
    for (let e = 0; e < count; e++) {
      const second = Math.floor(created[e]! / 1000);
      first ??= second;
      if (second !== first) return second > first ? 'ascending' : 'descending';
    }
  }
  return undefined;
}

/** A record's UTF-8 size, computed only when its length alone cannot settle it against `limit`. */
export function recordBytes(text: string, limit: number): number {
  // A UTF-16 code unit is at most 3 UTF-8 bytes.
  return text.length * 3 <= limit ? text.length : Buffer.byteLength(text, 'utf8');
}

/** Why a record of `size` bytes or more is refused under `limit` (import and mirror alike). */
export function tooLargeMessage(size: number, limit: number): string {
  const advice =
    limit < MAX_RECORD_BYTES_LIMIT
      ? 'raise it with --max-record-bytes or IMPORT_MAX_RECORD_BYTES'
      : 'the highest limit there is';
  return `The record is larger than the ${limit.toLocaleString('en-US')}-byte limit (${size.toLocaleString('en-US')} bytes or more; ${advice})`;
}

function isBlank(text: string): boolean {
  return text.length === 0 || text.trim() === '';
}

/**
 * How long an NDJSON line may be when it holds a whole page (a list
 * envelope or an array) rather than one record: each of its records must
 * still fit the record limit.
 */
const MAX_PAGE_LINE_BYTES = MAX_RECORD_BYTES_LIMIT;

/**
 * Where one JSON document may end and the next begin on a line: a closing
 * bracket, blanks or none (a byte order mark among them: files saved with
 * one, joined by `cat`), an opening one. Only a hint (the same text can sit
 * inside a string): concatenatedDocuments decides.
 */
const DOCUMENTS_MEET = /[}\]][ \t\r\ufeff]*[{[]/;

/**
 * The records of a line holding a page (an envelope or an array), with an
 * envelope's own members, or undefined when it holds one record.
 */
function pageRecords(
  text: string,
): { path: string; elements: ArrayElement[]; members?: Page } | undefined {
  try {
    const splitter = new JsonArraySplitter();
    const elements = splitter.push(text);
    splitter.end();
    if (splitter.path === undefined || splitter.rootIsEvent) return undefined;
    const [members] = splitter.takePages();
    return { path: splitter.path, elements, ...(members ? { members } : {}) };
  } catch (error) {
    // Valid JSON, but no one list: the caller refuses the line.
    if (error instanceof RepeatedListKeyError) throw error;
    return undefined; // not valid JSON: reported as such (or as too large) by the caller
  }
}

type Location = { location: string; line: number; index?: number };

function at(line: number): Location {
  return { location: `line ${line}`, line };
}

/**
 * The records of a line holding a page (a list envelope, `{status, content}`
 * around one, or an array); null for a single record. An object with an
 * event's `id` or `eventTypeName` is an event whatever else it holds: one
 * with a field of its own named `results` was read as an empty page and
 * dropped without a word.
 */
export function innerRecords(value: unknown): { list: unknown[]; prefix: string } | null {
  // The splitter's rule (recordsPath), so the texts it cuts are this list's.
  const prefix = recordsPath(value);
  if (prefix === undefined) return null;
  const list = prefix === '' ? value : valueAt(value, prefix.split('.'));
  return { list: list as unknown[], prefix };
}

/**
 * Validates one record and encodes it for the store, or says why not.
 * `text`, the record's own JSON text, is what gets stored (verbatim); the
 * parsed `value` is what gets validated.
 */
export function toNewEvent(
  value: unknown,
  orgId: string,
  rehome: boolean,
  text?: string,
): NewEvent | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return 'Expected an event object';
  }
  const tooDeep = nestingProblem(value, text);
  if (tooDeep !== undefined) return tooDeep;
  // Valid JSON but no Unicode text: stored, it broke the dashboard and
  // search. Checked on the text stored (JSON.stringify escapes a lone half).
  if (hasLoneSurrogate(text ?? JSON.stringify(value))) return LONE_SURROGATE;
  const recordOrg = (value as { orgId?: unknown }).orgId;
  if (!rehome && recordOrg != null && recordOrg !== orgId) {
    return `orgId ${JSON.stringify(recordOrg)} is not the target organization ${orgId} (use --rehome to import it there)`;
  }
  let input: EventInput;
  if (isValidEventInput(value)) {
    input = value;
  } else {
    // The schema itself, for its messages (the fast check only says no).
    const parsed = eventInputSchema.safeParse(value);
    if (!parsed.success) {
      return parsed.error.issues
        .slice(0, 3)
        .map((issue) => {
          if (issue.path.length === 0) return issue.message;
          // zod words an absent field as a type mismatch ("expected string,
          // received undefined"); a person reads "missing" faster.
          const absent = issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined;
          return `${issue.path.join('.')}: ${absent ? 'missing' : issue.message}`;
        })
        .join('; ');
    }
    input = parsed.data;
  }
  try {
    const event = encodeEvent(orgId, input, text);
    // The index terms come from the parsed values here, on the reading
    // thread, so the store need not parse the document again.
    event.fieldValues = fieldValues(value as Record<string, unknown>);
    return event;
  } catch (error) {
    if (error instanceof RepeatedKeyError) return error.message;
    throw error;
  }
}

/** Why a record of a file is no event when the file holds something else in its place, else undefined. */
function notAnEventInFile(value: unknown): string | undefined {
  return (
    pageInPlaceOfEvent(value) ??
    (value !== null && typeof value === 'object' ? apiErrorAnswer(value) : undefined)
  );
}

/**
 * What a record that is itself a list of records (a page, an array) is:
 * pages gathered in an array (`jq -s . page*.json`) are elements of that
 * array, each one record, and were reported as "id: missing; created:
 * missing; …", its events uncounted.
 */
function pageInPlaceOfEvent(value: unknown): string | undefined {
  const inner = innerRecords(value);
  if (inner === null) return undefined;
  const what = inner.prefix === '' ? 'An array' : 'A list envelope';
  const count = inner.list.length;
  return `${what} of ${count.toLocaleString('en-US')} ${count === 1 ? 'event' : 'events'}, not an event: pages gathered in an array (as jq -s writes them) are not read as pages; import the pages themselves, or one a line (jq -c '.[]' FILE)`;
}

/**
 * What a record that is the API's error answer (ApiError: a numeric
 * `error`, an `errorCode`, and no event's `id` or `eventTypeName`), or that
 * answer with envelope=true (`{"status": 500, "content": {…}}`), is, as a
 * person reads it: a page saved by `curl >> FILE` whose request failed.
 * Checked as an event, it read "id: missing; created: missing; …".
 */
function apiErrorAnswer(value: object): string | undefined {
  if ('id' in value || 'eventTypeName' in value) return undefined;
  const content = (value as { content?: unknown }).content;
  const inEnvelope = !('error' in value) && content !== null && typeof content === 'object';
  const answer = (inEnvelope ? content : value) as {
    error?: unknown;
    errorCode?: unknown;
    detail?: unknown;
  };
  if (typeof answer.error !== 'number' || typeof answer.errorCode !== 'string') return undefined;
  if ('id' in answer || 'eventTypeName' in answer) return undefined;
  const detail =
    typeof answer.detail === 'string' && answer.detail !== ''
      ? ` ${JSON.stringify(answer.detail.length > 200 ? `${answer.detail.slice(0, 200)}…` : answer.detail)}`
      : '';
  return `An error answer of the API, not an event: ${answer.error} ${answer.errorCode.slice(0, 100)}${detail} (the request that saved it failed; ask for that page again)`;
}

// ---- reading -----------------------------------------------------------------

/**
 * Where the text stops being UTF-8: the first byte of a sequence that is no
 * UTF-8 character (0-based, in the decompressed text), or of a character
 * the text ends within.
 */
type InvalidUtf8 = { offset: number; endsWithin: boolean };

/**
 * What decode() found that is no UTF-8, for the reader to act on by format.
 * Each line holding such bytes is replaced from its first byte in this
 * chunk to its end by a mark (utf8Mark): NDJSON reports that line as an
 * invalid record and goes on; a JSON document cannot skip a part of itself,
 * so `first` stops its import.
 */
type Utf8Problems = {
  first?: InvalidUtf8;
  /**
   * The text's first byte that is neither blank nor its byte order mark.
   * A first line that is no UTF-8 is all mark, this byte included: it says
   * whether that line could still open a JSON document ("{", "[") or the
   * file is no JSON at all (an image, a binary file).
   */
  opening?: number;
  /** The text opens with UTF-16's byte order mark (0xFF 0xFE or 0xFE 0xFF): no UTF-8 at all. */
  utf16?: boolean;
};

/** A mark opens and closes with NOT_UTF8, which no text read from the file holds. */
const MARK = NOT_UTF8;
/** What follows a mark's opening: its offset, `e` if the file ends within a character, and its close. */
const MARK_REST = new RegExp(`^(\\d+)(e?)${MARK}`);

const CONVERT_HINT = '(a file in another encoding converts with iconv -t UTF-8)';

function utf8Mark(problem: InvalidUtf8): string {
  return `${MARK}${problem.offset}${problem.endsWithin ? 'e' : ''}${MARK}`;
}

/** The mark in a line of text, if any. */
function readUtf8Mark(text: string): InvalidUtf8 | undefined {
  const start = text.indexOf(MARK);
  if (start === -1) return undefined;
  const match = MARK_REST.exec(text.slice(start + 1));
  return match ? { offset: Number(match[1]), endsWithin: match[2] === 'e' } : undefined;
}

/** What a reader says of bytes that are no UTF-8 (`line` when known). */
function notUtf8Message(problem: InvalidUtf8, gzip: boolean, line?: number): string {
  return `byte ${problem.offset + 1}${line === undefined ? '' : ` (line ${line})`}${
    gzip ? ' of its decompressed text' : ''
  } ${problem.endsWithin ? 'begins a character the file ends within' : 'begins a byte sequence that is no UTF-8 character'} ${CONVERT_HINT}`;
}

/** Whether the source was gzip-compressed, and the bytes of text read from it so far (decompressed, if it was). */
type Compression = {
  gzip: boolean;
  textBytes: number;
  /** The bytes dropped before the first text handed on: a byte order mark's. */
  dropped?: number;
};

/**
 * The source's text, decoded (and decompressed). `onBytes` hears the bytes
 * read from the source, `onText` that more text was decompressed
 * (`compression.textBytes`).
 */
async function* decode(
  source: ImportSource,
  onBytes: (bytes: number) => void,
  problems: Utf8Problems,
  compression: Compression,
  onText: () => void,
): AsyncGenerator<string> {
  const input: AsyncIterable<Buffer | string> =
    typeof source !== 'string'
      ? source
      : source === '-'
        ? process.stdin
        : fs.createReadStream(source, { highWaterMark: 1 << 20 });
  const stream = decompressed(input, onBytes, compression);
  // Strict: a byte sequence that is not UTF-8 is found and named. Replaced
  // with U+FFFD, as it was, the stored event differed from its source and
  // nothing said so.
  const strict = () => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let decoder = strict();
  /** The last bytes of the previous buffer: the start of a character it may have cut. */
  let tail: Buffer = Buffer.alloc(0);
  /** Whether the decoder holds no part of a character (its last input ended in an ASCII byte). */
  let decoderEmpty = true;
  /** Dropping the rest of a line found not UTF-8, up to its newline. */
  let skipping = false;
  const found = (problem: InvalidUtf8): string => {
    problems.first ??= problem;
    return utf8Mark(problem);
  };
  /**
   * `buffer` (whose first byte is at `start`) as text, each line holding
   * bytes that are no UTF-8 replaced from there by a mark. Run only once a
   * decoding has failed; one pass over the buffer (firstNotUtf8), however
   * many of its lines are bad (a file in another encoding has most).
   */
  const recover = (buffer: Buffer, start: number): string => {
    // The start of a character the previous buffer cut, held by the decoder.
    const held = tail.subarray(tail.length - (decoderEmpty ? 0 : heldBytes(tail)));
    const data = held.length === 0 ? buffer : Buffer.concat([held, buffer]);
    const base = start - held.length;
    let text = '';
    let from = 0;
    for (;;) {
      const bad = firstNotUtf8(data, from);
      if (bad === data.length) {
        // A fresh decoder: one that threw is in no state to go on.
        decoder = strict();
        text += decoder.decode(data.subarray(from), { stream: true });
        decoderEmpty = data.length === from || data[data.length - 1]! < 0x80;
        return text;
      }
      // The line's start: its bytes before the bad one go too.
      const newlineBefore = bad > from ? data.lastIndexOf(10, bad - 1) : -1;
      const lineStart = Math.max(from, newlineBefore + 1);
      text += strict().decode(data.subarray(from, lineStart));
      text += found({ offset: base + bad, endsWithin: false });
      const newline = data.indexOf(10, bad);
      if (newline === -1) {
        skipping = true;
        decoder = strict();
        decoderEmpty = true;
        return text;
      }
      // On from the newline, which ends the line replaced.
      from = newline;
    }
  };
  let bytes = 0;
  let first = true;
  for await (const whole of stream) {
    let buffer = whole;
    let start = bytes;
    bytes += whole.length;
    compression.textBytes = bytes;
    if (compression.gzip) onText();
    problems.opening ??= openingByte(whole, start);
    if (start === 0 && whole.length >= 2) {
      const mark = whole.readUInt16BE(0);
      problems.utf16 = mark === 0xfffe || mark === 0xfeff;
    }
    if (skipping) {
      const newline = buffer.indexOf(10);
      if (newline === -1) continue;
      skipping = false;
      buffer = buffer.subarray(newline);
      start += newline;
      tail = Buffer.alloc(0);
    }
    let text: string;
    // ASCII is its own UTF-8 and Latin-1: decoded as Latin-1 it is the same
    // text at a fraction of the CPU (UTF-8 decoding was a tenth of the
    // parsing thread's time).
    if (decoderEmpty && isAscii(buffer)) {
      text = buffer.toString('latin1');
    } else {
      try {
        text = decoder.decode(buffer, { stream: true });
        decoderEmpty = buffer.length === 0 ? decoderEmpty : buffer[buffer.length - 1]! < 0x80;
      } catch {
        text = recover(buffer, start);
      }
    }
    if (buffer.length > 0) tail = buffer.subarray(Math.max(0, buffer.length - 3));
    if (first && text.length > 0) {
      const opened = text;
      text = withoutByteOrderMark(text);
      if (text !== opened) compression.dropped = Buffer.byteLength(opened[0]!);
      first = false;
    }
    if (text.length > 0) yield text;
  }
  if (skipping) return;
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    rest = found({ offset: bytes - heldBytes(tail), endsWithin: true });
  }
  if (rest.length > 0) yield rest;
}

/** UTF-8's byte order mark, which the text may open with. */
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * The first byte of `buffer` (the text's bytes from offset `start`) that is
 * neither blank nor part of the text's opening byte order mark; undefined
 * when it holds none.
 */
function openingByte(buffer: Buffer, start: number): number | undefined {
  for (let i = 0; i < buffer.length; i++) {
    const byte = buffer[i]!;
    if (start + i < UTF8_BOM.length && byte === UTF8_BOM[start + i]) continue;
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) return byte;
  }
  return undefined;
}

/**
 * How many of `tail`'s last bytes are the start of a character that does
 * not end within it (0 to 3): what a streaming decoder holds after it.
 */
function heldBytes(tail: Buffer): number {
  for (let back = 1; back <= Math.min(3, tail.length); back++) {
    const byte = tail[tail.length - back]!;
    if (byte < 0x80) return 0;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return back < length ? back : 0;
    }
  }
  return 0;
}

/**
 * The line (1-based) of the byte at `offset` of the source's decompressed
 * text, counted by reading the file again from its start; undefined for a
 * stream, which cannot be read again. A path that is no regular file is a
 * stream too: opening a named pipe again waited for a writer that never
 * came (the import hung, deaf to SIGTERM), and `<(…)`'s /dev/fd/N read
 * what its writer had not yet written, or nothing ("line 1").
 */
async function lineAt(source: ImportSource, offset: number): Promise<number | undefined> {
  if (typeof source !== 'string' || source === '-') return undefined;
  const isFile = await fs.promises.stat(source).then(
    (stat) => stat.isFile(),
    () => false,
  );
  if (!isFile) return undefined;
  let line = 1;
  let seen = 0;
  const input = fs.createReadStream(source, { highWaterMark: 1 << 20 });
  try {
    for await (const buffer of decompressed(input, () => undefined, { gzip: false })) {
      const part = buffer.subarray(0, Math.max(0, offset - seen));
      for (let at = part.indexOf(10); at !== -1; at = part.indexOf(10, at + 1)) line++;
      seen += buffer.length;
      if (seen >= offset) break;
    }
  } catch {
    return undefined;
  } finally {
    input.destroy();
  }
  return line;
}

/**
 * The source's bytes, decompressed when they start as gzip does (RFC 1952's
 * 1f 8b): an archive (`events.ndjson.gz`, `curl … | gzip`, members
 * concatenated) imports as it is, with no temporary file. `onRead` hears the
 * count of bytes read from the source itself: what a progress bar measured
 * against the file's size counts. `compression.gzip` says which it was.
 */
async function* decompressed(
  input: AsyncIterable<Buffer | string>,
  onRead: (bytes: number) => void,
  compression: { gzip: boolean },
): AsyncGenerator<Buffer> {
  let read = 0;
  const counted = (async function* () {
    for await (const chunk of input) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      read += buffer.length;
      onRead(read);
      yield buffer;
    }
  })();
  try {
    yield* decompressedFrom(counted, compression);
  } finally {
    // Stopped early while the first bytes were being handed on, `counted`
    // was not being delegated to: end it here so its file closes. Not
    // awaited: it ends after the read it may be waiting for.
    void counted.return(undefined).catch(() => undefined);
  }
}

/** `decompressed` past its byte count: the input as it is, or gunzipped when it starts with gzip's magic. */
async function* decompressedFrom(
  counted: AsyncGenerator<Buffer>,
  compression: { gzip: boolean },
): AsyncGenerator<Buffer> {
  // Two bytes decide; a pipe may deliver fewer first.
  let head: Buffer = Buffer.alloc(0);
  while (head.length < 2) {
    const next = await counted.next();
    if (next.done) break;
    head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    if (head.length > 0) yield head;
    yield* counted;
    return;
  }
  compression.gzip = true;
  const compressed = Readable.from(
    (async function* () {
      yield head;
      yield* counted;
    })(),
    { objectMode: false },
  );
  const gunzip = zlib.createGunzip();
  compressed.on('error', (error) => gunzip.destroy(error));
  compressed.pipe(gunzip);
  let first = true;
  try {
    for await (const chunk of gunzip) {
      const text = chunk as Buffer;
      if (first && text[0] === 0x1f && text[1] === 0x8b) {
        throw new ImportFatalError(
          'The file is gzip-compressed twice: decompress it once (gunzip) and import what that gives',
        );
      }
      first = false;
      yield text;
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'Z_DATA_ERROR' && errorMessage(error) === 'incorrect header check') {
      // The file starts with gzip's magic, so only bytes after a whole
      // member can fail this way: the members before passed their
      // checksums, and what was imported of them stays (gunzip itself
      // warns "trailing garbage ignored"). Where those bytes start, zlib
      // does not tell.
      throw new ImportFatalError(
        'The file is gzip-compressed, and after its last whole gzip member come bytes that are not gzip (trailing garbage). ' +
          'What came before them passed its checksums; gunzip -c FILE > FILE.ndjson writes it without them (with a warning): import that',
      );
    }
    if (typeof code === 'string' && code.startsWith('Z_')) {
      // Damage shows at the latest when a member's checksum is checked, at
      // its end; a file cut short never reaches it. Either way what was
      // decompressed of that member is unverified and may be altered, so the
      // run is void (a re-run would skip the altered events as present).
      throw new ImportFatalError(
        `The file is gzip-compressed but ${code === 'Z_BUF_ERROR' ? 'cut short' : 'damaged'} at or before byte ${gunzip.bytesWritten.toLocaleString('en-US')}: ${errorMessage(error)}`,
        undefined,
        undefined,
        true,
      );
    }
    throw error;
  } finally {
    compressed.destroy();
    gunzip.destroy();
  }
}

/** Why a file whose text opens with anything but a JSON object or array is refused. */
const NOT_JSON =
  'The file is not JSON: it must start with "[" (an array), "{" (a list envelope) or be NDJSON';

/** A JSON file saved in UTF-16, refused: it was taken for a binary file. */
const UTF16 =
  'The file is not UTF-8 but UTF-16 (it opens with its byte order mark, as Windows PowerShell 5 writes files): convert it with iconv -f UTF-16 -t UTF-8';

/** How far ahead detection may read looking for the first two lines. */
const DETECT_LIMIT = 16 << 20;

/**
 * Decides the format from the first non-blank character and the first
 * lines. A file of no text is NDJSON of no records. For "[": an array,
 * unless its first line is a whole array with more lines after it (NDJSON
 * of arrays). For "{": a first line that is a complete JSON value (or
 * several, appended) means NDJSON (a
 * pretty-printed document's first line never is); so does a first line that
 * fails when the second parses (NDJSON whose first record is broken),
 * unless that first line opens a list envelope's records array: an
 * envelope written one record a line. A first line that closes its own
 * document, valid or not, is NDJSON too (its first records may all be broken).
 */
async function detectFormat(
  chunks: AsyncGenerator<string>,
  utf8: Utf8Problems,
): Promise<{ format: ImportFormat; chunks: AsyncGenerator<string> }> {
  const seen: string[] = [];
  let head = '';
  let format: ImportFormat | undefined;
  for (;;) {
    const next = await chunks.next();
    if (!next.done) {
      seen.push(next.value);
      head += next.value;
    }
    const trimmed = head.trimStart();
    if (trimmed.length === 0) {
      // NDJSON of no lines: what an export of nothing writes, imported back.
      if (next.done) {
        format = 'ndjson';
        break;
      }
      continue;
    }
    // A first line that is no UTF-8 shows as its mark: NDJSON whose first
    // record is broken if the next line is whole (decided below as for '{'),
    // when the line opened as a record does. One opening otherwise is no
    // JSON whatever its encoding: a binary file (an image, an archive) was
    // taken for a list envelope and refused as "not valid UTF-8".
    const binary =
      trimmed[0] === MARK && utf8.opening !== OPEN_OBJECT && utf8.opening !== OPEN_ARRAY;
    if (binary && utf8.utf16) throw new ImportFatalError(UTF16);
    if (binary)
      throw new ImportFatalError(
        `${NOT_JSON}, and its first line is not even UTF-8 text (a binary file?)`,
      );
    if (trimmed[0] !== '{' && trimmed[0] !== '[' && trimmed[0] !== MARK) {
      // A first line of comma-separated names: most likely this tool's own CSV export.
      const lineEnd = trimmed.indexOf('\n');
      const firstLine = lineEnd === -1 ? trimmed : trimmed.slice(0, lineEnd);
      const csv = /^[\w"][^{}[\]]*,[^{}[\]]*$/.test(firstLine.trimEnd());
      throw new ImportFatalError(
        csv
          ? 'The file looks like CSV: import reads JSON and NDJSON only (to move events between instances, export with --format ndjson)'
          : NOT_JSON,
      );
    }
    const lines = trimmed.split('\n');
    const complete = next.done ? lines : lines.slice(0, -1);
    const nonBlank = complete.filter((line) => line.trim() !== '');
    if (nonBlank.length === 0 && !next.done && head.length > DETECT_LIMIT && trimmed[0] === '{') {
      // A first line longer than detection reads: a list envelope on one
      // line (or a page of NDJSON) has opened its records array by now, read
      // as a stream; anything else is one record, NDJSON whose first line is
      // over the record limit (reported and skipped, the rest imported: it
      // was taken for an envelope and the whole import failed).
      format = firstLinePrefixOpensRecords(trimmed) ? 'envelope' : 'ndjson';
      break;
    }
    if (nonBlank.length >= 2 || next.done || head.length > DETECT_LIMIT) {
      const first = firstLineShape(nonBlank[0]);
      if (trimmed[0] === '[') {
        // A whole array on the first line and more lines after it: NDJSON
        // of pages' records (`jq -c .results` writes a line per page).
        format =
          first === 'whole' && nonBlank.length >= 2 && !opensPrettyDocument(nonBlank[1])
            ? 'ndjson'
            : 'array';
        break;
      }
      // A file that is one object on one line (what `curl` saves of an
      // answer) is that document, as it is pretty-printed: a list envelope
      // was read and named as NDJSON of one page, and an object with no
      // records array was one invalid record where pretty-printed it is
      // refused as no list. One event so is NDJSON of one record (jq -c .).
      if (next.done && nonBlank.length === 1 && first === 'whole' && isLoneNonEvent(nonBlank[0]!)) {
        format = 'envelope';
        break;
      }
      // A broken first record followed by a good one is NDJSON (the first
      // is then reported); an envelope's first line opening its records
      // array, with one record alone on the next, is not.
      // A whole first line followed by a pretty-printed document's opening
      // (`curl >> FILE` of a compact answer, then of one through `jq .`)
      // is a sequence of documents, not NDJSON.
      format =
        (first === 'whole' && !opensPrettyDocument(nonBlank[1])) ||
        first === 'cutInString' ||
        (first === 'other' && parses(nonBlank[1]))
          ? 'ndjson'
          : 'envelope';
      break;
    }
  }
  return {
    format,
    chunks: (async function* () {
      try {
        yield* seen;
        yield* chunks;
      } finally {
        // Stopped while still handing on `seen` (a file read whole in its
        // first chunks): `chunks` was never delegated to, so nothing else
        // would close its file.
        await chunks.return(undefined as never);
      }
    })(),
  };
}

/**
 * Whether a line is how a pretty-printed JSON document goes on after its
 * first: a bracket alone, or a member's key (`  "links": [`). No NDJSON
 * record is either.
 */
function opensPrettyDocument(line: string | undefined): boolean {
  if (line === undefined) return false;
  const text = line.trim();
  return text === '{' || text === '[' || /^"(?:[^"\\]|\\.)*"\s*:/.test(text);
}

/**
 * What a first line shows by its structure (brackets and strings), valid
 * JSON or not, scanned once: a whole document (any NDJSON record, valid or
 * not: a raw tab in a string, a bad number), the start of a list envelope
 * that opens its records array (`results`, `content.results`), a record
 * cut off inside a string (no JSON document holds a raw line break in a
 * string: NDJSON whose first line is broken), or none of these.
 */
function firstLineShape(
  line: string | undefined,
): 'whole' | 'opensRecords' | 'cutInString' | 'other' {
  if (line === undefined) return 'other';
  const splitter = new JsonArraySplitter();
  splitter.push(line);
  if (splitter.failed) {
    // Documents appended on one line (`curl >> file`) are whole too; so is
    // one whose brackets close it however its commas are (an NDJSON record
    // with a comma too many is one broken record, reported as such).
    if (concatenatedDocuments(line) || bracketsCloseIt(line)) return 'whole';
    // One ending inside a string is cut there, whatever was misplaced before
    // (a stray quote puts the rest of the line out of step, its commas and
    // colons too): read for its brackets alone, as before those were checked.
    if (endsInString(line)) return 'cutInString';
    // A list envelope that opened its records array (or whose brackets show
    // one, the mistake before it) and broke on this line, left open: the
    // first line of a document on several lines, refused naming its place.
    // Taken for NDJSON whenever the next line parsed, it was one invalid
    // record a line ("Unexpected token", then each record's own complaint).
    // Read loosely, past its mistakes: an event's `id` after its own broken
    // "results" keeps it one broken record.
    return looselyOpensRecords(line) ? 'opensRecords' : 'other';
  }
  if (splitter.endsInString) return 'cutInString';
  try {
    splitter.end();
    return 'whole';
  } catch {
    return splitter.foundTarget ? 'opensRecords' : 'other';
  }
}

/** Whether `line` ends inside a string, its strings read from its first quote on. */
function endsInString(line: string): boolean {
  for (let start = line.indexOf('"'); start !== -1; ) {
    const end = stringEnd(line, start);
    // stringEnd gives the line's length both for a string the last
    // character closes and for one left open: the last character tells.
    if (end === line.length) {
      const closed =
        end - 1 > start &&
        line.charCodeAt(end - 1) === QUOTE &&
        trailingBackslashes(line, end - 1, start + 1) % 2 === 0;
      return !closed;
    }
    start = line.indexOf('"', end);
  }
  return false;
}

/** Whether `line` is one bracketed value by its brackets and strings alone, commas and colons unchecked. */
function bracketsCloseIt(line: string): boolean {
  const start = skipSpace(line, 0);
  const c = line.charCodeAt(start);
  if (c !== OPEN_OBJECT && c !== OPEN_ARRAY) return false;
  // valueEnd gives the line's length for a value left open as for one its
  // last character closes: one more character tells them apart.
  const end = valueEnd(`${line} `, start);
  return end <= line.length && skipSpace(line, end) === line.length;
}

/**
 * Whether a line is one JSON object (not several appended) without an
 * event's `id` or `eventTypeName` at its root: a list envelope, the API's
 * error answer, or no list at all. One whose commas or colons are wrong
 * is a list envelope too once its records array has opened, or when its
 * brackets show one (the mistake before that array): read as NDJSON, the
 * whole file was one invalid record, where pretty-printed the same mistake
 * is refused naming its place.
 */
function isLoneNonEvent(line: string): boolean {
  const splitter = new JsonArraySplitter();
  splitter.push(line);
  try {
    splitter.end();
  } catch (error) {
    if (!(error instanceof JsonPunctuationError) || splitter.rootIsEvent) return false;
    return splitter.foundTarget || looselyOpensRecords(line);
  }
  return !splitter.rootIsEvent;
}

/** Whether the start of a long first line is a list envelope that opened its records array. */
function firstLinePrefixOpensRecords(prefix: string): boolean {
  const splitter = new JsonArraySplitter();
  splitter.push(prefix);
  return !splitter.failed && splitter.foundTarget;
}

function parses(line: string | undefined): boolean {
  if (line === undefined) return false;
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

function readFailure(source: ImportSource, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const name = typeof source === 'string' ? source : 'the input';
  if (code === 'ENOENT') return `Cannot read ${name}: no such file`;
  if (code === 'EISDIR') return `Cannot read ${name}: it is a directory`;
  if (code === 'EACCES') return `Cannot read ${name}: permission denied`;
  return `Cannot read ${name}: ${errorMessage(error)}`;
}
