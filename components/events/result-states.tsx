'use client';

import { ErrorNoticeFrame, RetryButton, loadFailureText } from '@/components/notices';
import {
  type CloseValues,
  type InvestigationFilters,
  NO_FILTERS,
  chipKeyName,
  replaceWithClose,
} from '@/lib/client/query-syntax';
import { type EventsView, RANGE_PRESET_LABELS, hasFilters } from '@/lib/client/url-state';
import { describeFiltersPhrase, widerRange } from './describe-view';

const NUMBER = new Intl.NumberFormat('en-US');

/** A failed load, said plainly, with a retry. */
export function LoadErrorNotice({ error, onRetry }: { error: Error; onRetry: () => void }) {
  return (
    <ErrorNoticeFrame
      title="Events could not be loaded"
      actions={<RetryButton onRetry={onRetry} primary />}
    >
      {loadFailureText(error)}
    </ErrorNoticeFrame>
  );
}

type EmptyProps = {
  view: EventsView;
  zone: string;
  totalCount: number;
  lastPage: number;
  onUpdate: (patch: Partial<EventsView>) => void;
  onGoToPage: (page: number) => void;
  /** Field filter values that matched nothing, with existing values like them. */
  closeValues: readonly CloseValues[];
  onFilters: (filters: InvestigationFilters) => void;
};

/**
 * No rows: past the last page, filtered to nothing (named, with ways to
 * widen), or an organization with no events at all.
 */
export function EmptyResults({
  view,
  zone,
  totalCount,
  lastPage,
  onUpdate,
  onGoToPage,
  closeValues,
  onFilters,
}: EmptyProps) {
  if (totalCount > 0 && view.page > lastPage) {
    return (
      <div className="notice" data-testid="empty-state">
        <h2>This page is past the end</h2>
        <p>
          Page {NUMBER.format(view.page)} is beyond the last page ({NUMBER.format(lastPage)}) of{' '}
          {NUMBER.format(totalCount)} events.
        </p>
        <div className="actions">
          <button type="button" className="button primary" onClick={() => onGoToPage(lastPage)}>
            Go to the last page
          </button>
        </div>
      </div>
    );
  }
  if (!hasFilters(view)) {
    return (
      <div className="notice" data-testid="empty-state">
        <h2>No events yet</h2>
        <p>This organization has no recorded events.</p>
      </div>
    );
  }
  const wider = view.range ? widerRange(view.range) : null;
  const hasDates = view.range !== null || view.from !== null || view.to !== null;
  return (
    <div className="notice" data-testid="empty-state">
      <h2>No events match these filters</h2>
      <p>No events {describeFiltersPhrase(view, zone)}.</p>
      {closeValues.map((close) => {
        const typed = `${chipKeyName(close.key)}:${close.typed}`;
        return (
          <div
            key={`${close.key}:${close.typed}`}
            className="close-values"
            role="group"
            aria-label={`Values of ${chipKeyName(close.key)} like ${close.typed}`}
          >
            <p>
              No event has exactly <code>{typed}</code> here; values that contain it:
            </p>
            <div className="actions">
              {close.values.map(({ value, count }) => (
                <button
                  key={value}
                  type="button"
                  className="button"
                  title={`Replace ${typed} by this value`}
                  onClick={() => onFilters(replaceWithClose(view, close, value))}
                >
                  {value}
                  {count !== undefined ? (
                    <span className="count"> {NUMBER.format(count)}</span>
                  ) : null}
                </button>
              ))}
            </div>
          </div>
        );
      })}
      <div className="actions">
        {wider ? (
          <button type="button" className="button" onClick={() => onUpdate({ range: wider })}>
            Widen to {RANGE_PRESET_LABELS[wider].toLowerCase()}
          </button>
        ) : null}
        {hasDates ? (
          <button
            type="button"
            className="button"
            onClick={() => onUpdate({ range: null, from: null, to: null })}
          >
            Any time
          </button>
        ) : null}
        {view.types.length ? (
          <button type="button" className="button" onClick={() => onUpdate({ types: [] })}>
            All event types
          </button>
        ) : null}
        <button
          type="button"
          className="button primary"
          onClick={() => onUpdate({ ...NO_FILTERS, range: null, from: null, to: null })}
        >
          Clear all filters
        </button>
      </div>
    </div>
  );
}
