'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useRef, useState } from 'react';
import { useModalFocus } from '@/components/use-modal-focus';
import { eventSourceQueryOptions } from '@/lib/client/api-client';
import { compareDocuments } from '@/lib/client/compare';
import { type ApiEvent, eventLabel } from '@/lib/client/present';
import { formatTimestamp, parseApiDateTime, zoneName } from '@/lib/domain/dates';
import type { JsonSource } from '@/lib/domain/json-text';

type Props = {
  orgId: string;
  ids: readonly [string, string];
  zone: string;
  onClose: () => void;
};

/** The event as written, without its links (each event's own; always different). */
function comparable(event: JsonSource): JsonSource {
  if (event.kind !== 'object') return event;
  return { ...event, members: event.members.filter((member) => member.key !== 'links') };
}

/** A source query with its document parsed (for headings: id, type, created), memoized. */
function useParsed<Q extends { data: JsonSource | undefined }>(query: Q) {
  const data = useMemo(
    () => (query.data ? (JSON.parse(query.data.text) as ApiEvent) : undefined),
    [query.data],
  );
  return { ...query, data };
}

function Heading({ event, zone }: { event: ApiEvent | undefined; zone: string }) {
  if (!event) return <span className="muted">Loading…</span>;
  const millis = parseApiDateTime(event.created);
  return (
    <>
      <strong>{eventLabel(event)}</strong>
      <span className="hint mono">
        {millis === null ? event.created : `${formatTimestamp(millis, zone)} ${zoneName(zone)}`}
      </span>
      <span className="hint mono">{event.id}</span>
    </>
  );
}

/**
 * Two events side by side: every field of either (raw documents included),
 * aligned by name, with the fields that differ marked. A modal dialog; Esc
 * or Close returns to the table.
 */
export function CompareDialog({ orgId, ids, zone, onClose }: Props) {
  // Source trees: raw documents compared as written (compare.ts).
  const leftSource = useQuery(eventSourceQueryOptions(orgId, ids[0]));
  const rightSource = useQuery(eventSourceQueryOptions(orgId, ids[1]));
  const left = useParsed(leftSource);
  const right = useParsed(rightSource);
  const [onlyDifferences, setOnlyDifferences] = useState(false);
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);

  // Focus moves into the dialog, stays in it (the page behind is covered),
  // and goes back to the Compare button when it closes, by Escape or Close.
  useModalFocus(ref, true, onClose);

  const rows = useMemo(
    () =>
      leftSource.data && rightSource.data
        ? compareDocuments(comparable(leftSource.data), comparable(rightSource.data))
        : [],
    [leftSource.data, rightSource.data],
  );
  const fields = rows.filter((row) => !row.path.startsWith('raw.') && row.path !== 'raw');
  const raw = rows.filter((row) => row.path.startsWith('raw.') || row.path === 'raw');
  const differing = rows.filter((row) => row.differs).length;
  const failed = left.error ?? right.error;

  const section = (title: string, list: typeof rows) => {
    const shown = onlyDifferences ? list.filter((row) => row.differs) : list;
    return (
      <section>
        <h3>{title}</h3>
        {shown.length === 0 ? (
          <p className="muted">{list.length === 0 ? 'None.' : 'No differences.'}</p>
        ) : (
          <div className="compare-scroll">
            <table className="compare" aria-label={title}>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">A</th>
                  <th scope="col">B</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((row) => (
                  <tr key={row.path} data-path={row.path} data-differs={row.differs || undefined}>
                    <th scope="row" className="mono">
                      {row.differs ? (
                        <span className="diff-mark" aria-label="differs" title="Differs">
                          ≠{' '}
                        </span>
                      ) : null}
                      {row.path}
                    </th>
                    <td className="mono">{row.left ?? <span className="muted">—</span>}</td>
                    <td className="mono">{row.right ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    );
  };

  return (
    <div className="sheet-backdrop">
      <div
        ref={ref}
        className="compare-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        data-testid="compare-dialog"
      >
        <header>
          <h2 id={titleId}>Compare two events</h2>
          <button
            type="button"
            className="button small"
            onClick={onClose}
            aria-label="Close comparison"
          >
            ✕ Close
          </button>
        </header>
        <div className="compare-body">
          <div className="compare-heads">
            <div>
              <span className="label">A</span>
              <Heading event={left.data} zone={zone} />
            </div>
            <div>
              <span className="label">B</span>
              <Heading event={right.data} zone={zone} />
            </div>
          </div>
          {failed ? (
            <p className="alert" role="alert">
              {failed.message}
            </p>
          ) : left.data && right.data ? (
            <>
              <p className="results-bar" role="status" data-testid="compare-summary">
                <span>
                  <strong>{differing}</strong> of {rows.length} fields differ
                </span>
                <label className="hint">
                  <input
                    type="checkbox"
                    checked={onlyDifferences}
                    onChange={(event) => setOnlyDifferences(event.target.checked)}
                  />{' '}
                  Only differences
                </label>
              </p>
              {section('Fields', fields)}
              {section('Raw documents', raw)}
            </>
          ) : (
            <p className="muted" role="status">
              Loading both events…
            </p>
          )}
        </div>
      </div>
    </div>
  );
}
