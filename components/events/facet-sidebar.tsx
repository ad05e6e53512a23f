'use client';

import { memo, useId, useRef } from 'react';
import { useModalFocus } from '@/components/use-modal-focus';
import type { FacetValue, FacetsResponse } from '@/lib/client/api-client';
import { isFilterableValue } from '@/lib/client/pivots';
import {
  type ChipKey,
  type InvestigationFilters,
  chipKeyOfFacet,
  chipValues,
} from '@/lib/client/query-syntax';
import { FACET_FIELDS, type FacetField } from '@/lib/domain/filters';

const NUMBER = new Intl.NumberFormat('en-US');

const noClose = () => undefined;

export const FACET_TITLES: Record<FacetField, string> = {
  eventTypeName: 'Event type',
  actor: 'Actor',
  targetUsername: 'Target user',
  groupId: 'Project',
  clusterName: 'Cluster',
  hostname: 'Host',
  remoteAddress: 'Remote address',
  opType: 'Data Explorer operation',
};

type Props = {
  facets: FacetsResponse | undefined;
  filters: InvestigationFilters;
  /** The facets are being refetched for new filters (the old counts stay, dimmed). */
  busy: boolean;
  failed: boolean;
  collapsed: readonly FacetField[];
  onCollapse: (field: FacetField, collapsed: boolean) => void;
  onToggle: (key: ChipKey, value: string) => void;
  /** Leaves an event type out, or takes it back in (the API excludes types only). */
  onToggleExclude: (type: string) => void;
  typeLabel: (type: string) => string;
  onClose?: () => void;
};

/**
 * Chosen or left-out values outside the top ones listed above them, at
 * most: a category left out in the type picker put its 78 types there,
 * crossed out, 4,000 px of them before the counts (the bar above names
 * them all, and removes them).
 */
export const PINNED_VALUES_SHOWN = 5;

/** The values to list: the top ones, plus the first chosen values the top ones do not include. */
function listedValues(values: readonly FacetValue[], chosen: readonly string[]) {
  const listed = new Set(values.map((item) => item.value));
  const missing = chosen.filter((value) => !listed.has(value));
  return {
    rows: [
      ...missing.slice(0, PINNED_VALUES_SHOWN).map((value) => ({ value, count: null })),
      ...values.map((item) => ({ value: item.value, count: item.count as number | null })),
    ],
    notShown: Math.max(0, missing.length - PINNED_VALUES_SHOWN),
  };
}

/**
 * Counts per value of eight fields under the current filters (each field's
 * counts leave out that field's own filter, so the alternatives stay in
 * view). A click on a value includes it; for event types a second control
 * leaves it out. Sections fold; the choice is remembered with the table's.
 */
export const FacetSidebar = memo(function FacetSidebar({
  facets,
  filters,
  busy,
  failed,
  collapsed,
  onCollapse,
  onToggle,
  onToggleExclude,
  typeLabel,
  onClose,
}: Props) {
  const baseId = useId();
  // On a narrow screen the facets are a sheet over the page (`onClose`
  // given): a modal dialog, which keeps the keyboard to itself; Tab went on
  // to the controls it covers, and Escape left it open.
  const sheet = onClose !== undefined;
  const ref = useRef<HTMLElement>(null);
  useModalFocus(ref, sheet, onClose ?? noClose);
  const Container = sheet ? 'section' : 'aside';
  return (
    <Container
      ref={ref}
      className="facets"
      aria-label="Facets"
      aria-busy={busy}
      data-stale={busy || undefined}
      {...(sheet ? { role: 'dialog', 'aria-modal': true, tabIndex: -1 } : {})}
    >
      <div className="facets-head">
        <h2>Facets</h2>
        {onClose ? (
          <button type="button" className="button small ghost facets-close" onClick={onClose}>
            Done
          </button>
        ) : null}
      </div>
      {failed && !facets ? <p className="muted small">Counts could not be loaded.</p> : null}
      {FACET_FIELDS.map((field) => {
        const key = chipKeyOfFacet(field);
        const isCollapsed = collapsed.includes(field);
        const sectionId = `${baseId}-${field}`;
        const counted = facets?.facets[field];
        const values = counted ?? [];
        const chosen = chipValues(filters, key);
        const excluded = chipValues(filters, key, true);
        const { rows: listed, notShown } = listedValues(values, [...chosen, ...excluded]);
        return (
          <section key={field} className="facet" data-field={field}>
            <h3>
              <button
                type="button"
                className="facet-toggle"
                aria-expanded={!isCollapsed}
                aria-controls={sectionId}
                onClick={() => onCollapse(field, !isCollapsed)}
              >
                <span aria-hidden="true">{isCollapsed ? '▸' : '▾'}</span> {FACET_TITLES[field]}
              </button>
            </h3>
            <ul id={sectionId} hidden={isCollapsed}>
              {counted && listed.length === 0 ? <li className="muted small">No values</li> : null}
              {!counted && !failed ? <li className="muted small">Counting…</li> : null}
              {listed.map(({ value, count }) => {
                const isChosen = chosen.includes(value);
                const isExcluded = excluded.includes(value);
                const label = field === 'eventTypeName' ? typeLabel(value) : value;
                return (
                  <li key={value} className="facet-row" data-excluded={isExcluded || undefined}>
                    <button
                      type="button"
                      className="facet-value"
                      aria-pressed={isChosen}
                      // The label and the count are read as one word without it
                      // ("Outside metric threshold629"); the look stays.
                      aria-label={
                        count === null
                          ? undefined
                          : `${label}, ${NUMBER.format(count)} ${count === 1 ? 'event' : 'events'}`
                      }
                      title={
                        field === 'eventTypeName'
                          ? `${label} (${value})`
                          : isFilterableValue(value)
                            ? value
                            : `${value}: a value with spaces around it cannot be a filter`
                      }
                      // Chosen already (from the URL), it can still be taken out.
                      disabled={!isChosen && !isFilterableValue(value)}
                      onClick={() => onToggle(key, value)}
                    >
                      <span className="facet-check" aria-hidden="true">
                        {isChosen ? '☑' : '☐'}
                      </span>
                      <span className="facet-label">{label}</span>
                      {/* A space, not drawn in the flex row: without it the button's text
                          ran the label and the count together ("Data explorer137"), a word
                          its name does not hold, where the name must hold the words it
                          shows (WCAG 2.5.3, label in name). */}{' '}
                      <span className="count">{count === null ? '' : NUMBER.format(count)}</span>
                    </button>
                    {field === 'eventTypeName' ? (
                      <button
                        type="button"
                        className="facet-exclude"
                        aria-pressed={isExcluded}
                        aria-label={`${isExcluded ? 'Include again' : 'Exclude'} event type ${label}`}
                        title={isExcluded ? 'Include again' : 'Exclude'}
                        onClick={() => onToggleExclude(value)}
                      >
                        −
                      </button>
                    ) : null}
                  </li>
                );
              })}
              {notShown > 0 ? (
                <li className="muted small" data-testid="facet-not-shown">
                  {NUMBER.format(notShown)} more chosen or left out: see the filter bar
                </li>
              ) : null}
            </ul>
          </section>
        );
      })}
    </Container>
  );
});
