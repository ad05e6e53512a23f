'use client';

import { useEffect, useRef, useState } from 'react';
import { ApiRequestError, type EventList, fetchApiDated } from '@/lib/client/api-client';
import { previewExport, startBrowserDownload } from '@/lib/client/export-download';
import { sendToSignInOnExpiredSession } from '@/lib/client/query-client';
import {
  apiExportPath,
  apiListPath,
  type EventsListParams,
  exportEnd,
  listBounds,
} from '@/lib/client/url-state';
import { parseApiDateTime } from '@/lib/domain/dates';
import type { ExportFormat } from '@/lib/domain/query';
import { ToolbarPopover } from './toolbar-popover';
import { usePopover } from './use-popover';

const NUMBER = new Intl.NumberFormat('en-US');

type State =
  | { step: 'idle' }
  | { step: 'checking' }
  | { step: 'started'; totalCount: number; fileName: string }
  /** Cancelled while it was being checked: the download had not started, so nothing was written. */
  | { step: 'cancelled' }
  | { step: 'failed'; message: string };

/**
 * The export's path for exactly the table's filters. An open end is pinned
 * (apiExportPath) where it leaves out nothing the table shows: the later of
 * the server's present and the newest matching event, which one light
 * request (its first row, no count) tells; an event dated in the future is
 * in the table, so in the file.
 */
async function exportPath(
  params: EventsListParams,
  options: { format: ExportFormat; includeRaw: boolean },
  signal: AbortSignal,
): Promise<string> {
  const now = Date.now();
  if (listBounds(params, now).max !== null) return apiExportPath(params, options, now);
  const newestPath = apiListPath({ ...params, page: 1, size: 1 }, now, { includeCount: false });
  const { body, date } = await fetchApiDated<EventList>(newestPath, signal);
  const newest = body.results[0] ? parseApiDateTime(body.results[0].created) : null;
  return apiExportPath(params, options, now, exportEnd(date ?? Date.now(), newest));
}

/**
 * Export ▾: the whole set under exactly the table's current filters, as
 * NDJSON or CSV, with or without raw documents. Shows how many events that
 * is before it starts (the export's own count), then hands the export's URL
 * to the browser's download manager, which streams it to disk (flat memory
 * at any size), shows its progress and cancels it, ending the query on the
 * server.
 */
export function ExportControl({ params }: { params: EventsListParams }) {
  const popover = usePopover();
  const [format, setFormat] = useState<ExportFormat>('ndjson');
  const [includeRaw, setIncludeRaw] = useState(false);
  const [count, setCount] = useState<number | null>(null);
  /**
   * Why there is no count yet: it failed, or it is asked again in `retryIn`
   * seconds, while the server streams all the exports it allows.
   */
  const [uncounted, setUncounted] = useState<'failed' | { retryIn: number } | null>(null);
  const [countAttempt, setCountAttempt] = useState(0);
  const [state, setState] = useState<State>({ step: 'idle' });
  const checking = useRef<AbortController | null>(null);
  const { open } = popover;

  // The count of exactly these filters, whenever the dialog opens or they change.
  useEffect(() => {
    if (!open) return;
    const abort = new AbortController();
    let again: ReturnType<typeof setTimeout> | undefined;
    setCount(null);
    setUncounted(null);
    exportPath(params, { format: 'ndjson', includeRaw: false }, abort.signal)
      .then((path) => previewExport(path, 'ndjson', abort.signal))
      .then(
        (preview) => setCount(preview.totalCount),
        (error: unknown) => {
          if (abort.signal.aborted) return;
          // The count is the export's own, so it waits its turn as an export
          // does (429 TOO_MANY_EXPORTS): asked again when the server says.
          if (error instanceof ApiRequestError && error.status === 429) {
            const seconds = error.retryAfterSeconds ?? 5;
            setUncounted({ retryIn: seconds });
            again = setTimeout(() => setCountAttempt((n) => n + 1), seconds * 1000);
            return;
          }
          // An ended session signs in again; anything else says the count is unknown.
          sendToSignInOnExpiredSession(error);
          setUncounted('failed');
        },
      );
    return () => {
      abort.abort();
      clearTimeout(again);
    };
  }, [open, params, countAttempt]);

  // Leaving the page drops a check under way.
  useEffect(() => () => checking.current?.abort(), []);

  const start = async () => {
    const abort = new AbortController();
    checking.current = abort;
    setState({ step: 'checking' });
    // One path for the check and the download: a relative range ends at the same instant.
    try {
      const path = await exportPath(params, { format, includeRaw }, abort.signal);
      const preview = await previewExport(path, format, abort.signal);
      startBrowserDownload(path, preview.fileName);
      setCount(preview.totalCount);
      setState({ step: 'started', ...preview });
    } catch (error) {
      // Cancel export (or leaving the page, where no one reads it) stopped the check.
      if (abort.signal.aborted) setState({ step: 'cancelled' });
      else {
        sendToSignInOnExpiredSession(error);
        setState({
          step: 'failed',
          message:
            error instanceof ApiRequestError ? error.message : 'The server could not be reached.',
        });
      }
    } finally {
      checking.current = null;
    }
  };

  return (
    <ToolbarPopover popover={popover} trigger="Export ▾" label="Export events">
      {() => (
        <div className="popover-body export-control">
          <p data-testid="export-count">
            {count !== null
              ? `${NUMBER.format(count)} ${count === 1 ? 'event' : 'events'} under the current filters.`
              : uncounted === 'failed'
                ? 'The events under the current filters could not be counted.'
                : uncounted !== null
                  ? `The server is streaming as many exports as it allows: counting again in ${uncounted.retryIn} s…`
                  : 'Counting the events under the current filters…'}
          </p>
          <fieldset disabled={state.step === 'checking'}>
            <legend className="label">Format</legend>
            <label>
              <input
                type="radio"
                name="export-format"
                checked={format === 'ndjson'}
                onChange={() => setFormat('ndjson')}
              />{' '}
              NDJSON (one event per line, as the API returns it)
            </label>
            <label>
              <input
                type="radio"
                name="export-format"
                checked={format === 'csv'}
                onChange={() => setFormat('csv')}
              />{' '}
              CSV (one column per field)
            </label>
            <label>
              <input
                type="checkbox"
                checked={includeRaw}
                onChange={(event) => setIncludeRaw(event.target.checked)}
              />{' '}
              Include raw documents
            </label>
          </fieldset>
          <div className="row">
            {state.step === 'checking' ? (
              <button
                type="button"
                className="button small"
                onClick={() => checking.current?.abort()}
              >
                Cancel export
              </button>
            ) : (
              <button
                type="button"
                className="button primary small"
                // Nothing to export: an empty file is no answer (the count above says why).
                disabled={count === 0}
                onClick={() => void start()}
              >
                {count === null
                  ? 'Export events'
                  : count === 0
                    ? 'Nothing to export'
                    : `Export ${NUMBER.format(count)} ${count === 1 ? 'event' : 'events'}`}
              </button>
            )}
          </div>
          <p className="hint" role="status" data-testid="export-status">
            {state.step === 'checking'
              ? 'Starting the export…'
              : state.step === 'started'
                ? `Downloading ${NUMBER.format(state.totalCount)} events as ${state.fileName}: your browser's downloads show its progress and can cancel it.`
                : state.step === 'failed'
                  ? `Export failed: ${state.message}`
                  : state.step === 'cancelled'
                    ? 'Export cancelled before the download started: nothing was written.'
                    : ''}
          </p>
        </div>
      )}
    </ToolbarPopover>
  );
}
