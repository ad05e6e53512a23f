'use client';

import { useEffect, useRef, useState } from 'react';
import { ApiRequestError } from '@/lib/client/api-client';
import { apiExportPath, downloadExport, exportCount } from '@/lib/client/export-download';
import type { EventsListParams } from '@/lib/client/url-state';
import type { ExportFormat } from '@/lib/domain/query';
import { ToolbarPopover } from './toolbar-popover';
import { usePopover } from './use-popover';

const NUMBER = new Intl.NumberFormat('en-US');

type State =
  | { step: 'idle' }
  | { step: 'running'; totalCount: number; bytes: number }
  | { step: 'done'; totalCount: number; fileName: string }
  | { step: 'cancelled' }
  | { step: 'failed'; message: string };

function megabytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

/** Saves a file through a temporary link (the browser's own download). */
function save(file: File): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Export ▾: the whole set under exactly the table's current filters, as
 * NDJSON or CSV, with or without raw documents. Shows how many events that
 * is before it starts (the export's own count), its progress while it runs,
 * and cancels on request (ending the query on the server).
 */
export function ExportControl({ params }: { params: EventsListParams }) {
  const popover = usePopover();
  const [format, setFormat] = useState<ExportFormat>('ndjson');
  const [includeRaw, setIncludeRaw] = useState(false);
  const [count, setCount] = useState<number | null>(null);
  const [state, setState] = useState<State>({ step: 'idle' });
  const running = useRef<AbortController | null>(null);
  const { open } = popover;

  // The count of exactly these filters, whenever the dialog opens or they change.
  useEffect(() => {
    if (!open) return;
    const abort = new AbortController();
    setCount(null);
    exportCount(apiExportPath(params, { format: 'ndjson', includeRaw: false }), abort.signal).then(
      setCount,
      () => undefined,
    );
    return () => abort.abort();
  }, [open, params]);

  // Leaving the page cancels an export under way.
  useEffect(() => () => running.current?.abort(), []);

  const start = async () => {
    const abort = new AbortController();
    running.current = abort;
    setState({ step: 'running', totalCount: count ?? 0, bytes: 0 });
    try {
      const { file, totalCount } = await downloadExport(
        apiExportPath(params, { format, includeRaw }),
        format,
        (progress) => setState({ step: 'running', ...progress }),
        abort.signal,
      );
      save(file);
      setState({ step: 'done', totalCount, fileName: file.name });
    } catch (error) {
      if (abort.signal.aborted) setState({ step: 'cancelled' });
      else {
        setState({
          step: 'failed',
          message:
            error instanceof ApiRequestError ? error.message : 'The export stopped before its end.',
        });
      }
    } finally {
      running.current = null;
    }
  };

  return (
    <ToolbarPopover popover={popover} trigger="Export ▾" label="Export events">
      {() => (
        <div className="popover-body export-control">
          <p data-testid="export-count">
            {count === null
              ? 'Counting the events under the current filters…'
              : `${NUMBER.format(count)} ${count === 1 ? 'event' : 'events'} under the current filters.`}
          </p>
          <fieldset disabled={state.step === 'running'}>
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
            {state.step === 'running' ? (
              <button
                type="button"
                className="button small"
                onClick={() => running.current?.abort()}
              >
                Cancel export
              </button>
            ) : (
              <button type="button" className="button primary small" onClick={() => void start()}>
                Export {count === null ? '' : NUMBER.format(count)} events
              </button>
            )}
          </div>
          <p className="hint" role="status" data-testid="export-status">
            {state.step === 'running'
              ? `Exporting ${NUMBER.format(state.totalCount)} events… ${megabytes(state.bytes)} received`
              : state.step === 'done'
                ? `Saved ${NUMBER.format(state.totalCount)} events as ${state.fileName}.`
                : state.step === 'cancelled'
                  ? 'Export cancelled.'
                  : state.step === 'failed'
                    ? `Export failed: ${state.message}`
                    : ''}
          </p>
        </div>
      )}
    </ToolbarPopover>
  );
}
