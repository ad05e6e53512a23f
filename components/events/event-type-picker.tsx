'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { categoryOf, eventTypeLabel } from '@/lib/domain/catalog';
import { type EventTypeSummary, eventTypesQueryOptions } from '@/lib/client/api-client';
import type { EventsFilterParams } from '@/lib/client/url-state';
import { PopoverLoadState, ToolbarPopover } from './toolbar-popover';
import { usePopover } from './use-popover';

type Props = {
  orgId: string;
  /** The filters and dates the counts are under (their types apart). */
  params: EventsFilterParams;
  selected: readonly string[];
  /** Types left out (the API's excludeEventType, the bar's `-type:` chips). */
  excluded: readonly string[];
  onApply: (choice: { types: string[]; excludeTypes: string[] }) => void;
};

const NUMBER = new Intl.NumberFormat('en-US');

type Group = { name: string; types: EventTypeSummary[] };

/** The org's event types grouped by category, plus any selected type it lacks. */
function groupTypes(
  results: EventTypeSummary[],
  selected: readonly string[],
  search: string,
  includeEmpty: boolean,
): Group[] {
  const known = new Set(results.map((type) => type.eventTypeName));
  const chosen = new Set(selected);
  const all = [
    // The catalogue has hundreds of types; by default only those with events (or chosen).
    ...results.filter((type) => includeEmpty || type.count > 0 || chosen.has(type.eventTypeName)),
    ...selected
      .filter((type) => !known.has(type))
      .map((type) => ({
        eventTypeName: type,
        label: eventTypeLabel(type),
        category: categoryOf(type)?.name ?? 'Other',
        count: 0,
      })),
  ];
  const needle = search.trim().toLowerCase();
  const groups = new Map<string, EventTypeSummary[]>();
  for (const type of all) {
    if (
      needle &&
      !type.eventTypeName.toLowerCase().includes(needle) &&
      !type.label.toLowerCase().includes(needle) &&
      !type.category.toLowerCase().includes(needle)
    ) {
      continue;
    }
    const list = groups.get(type.category) ?? [];
    list.push(type);
    groups.set(type.category, list);
  }
  return [...groups.entries()]
    .map(([name, types]) => ({
      name,
      types: types.sort((a, b) => a.label.localeCompare(b.label)),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Multi-select of event types: grouped by category, searchable, with counts;
 * a whole category can be chosen or left out. Choices are staged and applied
 * together, so picking five types makes one history entry and one request,
 * not five.
 */
export function EventTypePicker({ orgId, params, selected, excluded, onApply }: Props) {
  const popover = usePopover();
  const { open, close } = popover;
  const [draft, setDraft] = useState<Set<string>>(() => new Set(selected));
  const [draftExcluded, setDraftExcluded] = useState<Set<string>>(() => new Set(excluded));
  const [search, setSearch] = useState('');
  const [includeEmpty, setIncludeEmpty] = useState(false);
  const queryClient = useQueryClient();
  const types = useQuery({ ...eventTypesQueryOptions(orgId, params), enabled: open });
  const searchId = useId();

  const groups = useMemo(
    () => groupTypes(types.data?.results ?? [], selected, search, includeEmpty),
    [types.data, selected, search, includeEmpty],
  );
  // Every type the picker offers (whatever the search), to pin the chosen
  // ones on top.
  const offered = useMemo(
    () => groupTypes(types.data?.results ?? [], selected, '', includeEmpty).flatMap((g) => g.types),
    [types.data, selected, includeEmpty],
  );
  const pinned = useMemo(
    () =>
      [...draft]
        .map(
          (name) =>
            offered.find((type) => type.eventTypeName === name) ?? {
              eventTypeName: name,
              label: eventTypeLabel(name),
              category: categoryOf(name)?.name ?? 'Other',
              count: 0,
            },
        )
        .sort((a, b) => a.label.localeCompare(b.label)),
    [draft, offered],
  );

  /** Every type of the category, added to the choice (and no longer left out). */
  const selectCategory = (group: Group) => {
    const types = group.types.map((t) => t.eventTypeName);
    setDraft((current) => new Set([...current, ...types]));
    setDraftExcluded((current) => new Set([...current].filter((t) => !types.includes(t))));
  };
  /**
   * The category's types as listed (under the search, those it matches, as
   * "All" chooses them) left out, as the type facet's "−" does: a few
   * `-type:` chips, where listing every other type made hundreds and left out
   * any type that appeared later. Types the search hid stay in: excluding
   * after searching "access list" left out "API key created" too, unseen.
   */
  const excludeCategory = (group: Group) => {
    const types = group.types.map((t) => t.eventTypeName);
    setDraft((current) => new Set([...current].filter((t) => !types.includes(t))));
    setDraftExcluded((current) => new Set([...current, ...types]));
  };

  // Each opening starts from what is applied, with an empty search.
  const resetDraft = () => {
    setDraft(new Set(selected));
    setDraftExcluded(new Set(excluded));
    setSearch('');
  };

  const toggle = (type: string) => {
    setDraft((current) => {
      const next = new Set(current);
      if (next.has(type)) next.delete(type);
      else next.add(type);
      return next;
    });
    // A type ticked is no longer left out.
    setDraftExcluded((current) => {
      if (!current.has(type)) return current;
      const next = new Set(current);
      next.delete(type);
      return next;
    });
  };

  const includeAgain = (type: string) =>
    setDraftExcluded((current) => {
      const next = new Set(current);
      next.delete(type);
      return next;
    });

  const apply = () => {
    onApply({ types: [...draft].sort(), excludeTypes: [...draftExcluded].sort() });
    close();
  };

  const label =
    selected.length === 1
      ? eventTypeLabel(selected[0]!)
      : selected.length > 1
        ? `${selected.length} event types`
        : excluded.length === 0
          ? 'All event types'
          : `All but ${excluded.length} event ${excluded.length === 1 ? 'type' : 'types'}`;
  const excludedList = [...draftExcluded].sort((a, b) =>
    eventTypeLabel(a).localeCompare(eventTypeLabel(b)),
  );
  const draftSummary = [
    draft.size === 0 ? 'All types' : `${draft.size} selected`,
    ...(draftExcluded.size ? [`${draftExcluded.size} left out`] : []),
  ].join(', ');

  return (
    <ToolbarPopover
      popover={popover}
      trigger={`${label} ▾`}
      triggerLabel={`Event types: ${label}`}
      label="Filter by event type"
      align="left"
      onOpen={resetDraft}
      onInterest={() => void queryClient.prefetchQuery(eventTypesQueryOptions(orgId, params))}
    >
      {(popoverId) => (
        <>
          <header>
            <label htmlFor={searchId} className="label">
              Search event types
            </label>
            <input
              id={searchId}
              className="input"
              type="search"
              placeholder="Name, code or category"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Enter') {
                  event.preventDefault();
                  apply();
                }
              }}
            />
            <label className="hint">
              <input
                type="checkbox"
                checked={includeEmpty}
                onChange={(event) => setIncludeEmpty(event.target.checked)}
              />{' '}
              Include catalogued types with no events
            </label>
          </header>
          <div className="popover-body">
            {types.isPending || types.isError ? (
              <PopoverLoadState
                what="event types"
                isPending={types.isPending}
                isError={types.isError}
                onRetry={() => void types.refetch()}
              />
            ) : (
              <>
                {pinned.length ? (
                  <fieldset className="type-group pinned" data-testid="picker-selected">
                    <legend>Selected ({pinned.length})</legend>
                    {pinned.map((type) => (
                      <label key={type.eventTypeName} className="type-option">
                        <input
                          type="checkbox"
                          checked
                          onChange={() => toggle(type.eventTypeName)}
                          aria-label={`${type.label} (selected) ${type.eventTypeName}`}
                        />
                        <span>{type.label}</span>
                        <span className="type-count" aria-hidden="true">
                          {NUMBER.format(type.count)}
                        </span>
                        <span className="type-code">{type.eventTypeName}</span>
                      </label>
                    ))}
                  </fieldset>
                ) : null}
                {excludedList.length ? (
                  <fieldset className="type-group pinned" data-testid="picker-excluded">
                    <legend>Left out ({excludedList.length})</legend>
                    {excludedList.map((type) => (
                      <label key={type} className="type-option">
                        <input
                          type="checkbox"
                          checked
                          onChange={() => includeAgain(type)}
                          aria-label={`${eventTypeLabel(type)} (left out) ${type}`}
                        />
                        <span>{eventTypeLabel(type)}</span>
                        <span className="type-code">{type}</span>
                      </label>
                    ))}
                  </fieldset>
                ) : null}
                {groups.length === 0 ? (
                  <p className="muted">No event type matches “{search}”.</p>
                ) : null}
                {groups.map((group) => (
                  <fieldset key={group.name} className="type-group">
                    <legend>
                      <span>{group.name}</span>
                      <span className="category-actions">
                        <button
                          type="button"
                          className="button small ghost"
                          aria-label={`Select all of ${group.name}`}
                          onClick={() => selectCategory(group)}
                        >
                          All
                        </button>
                        <button
                          type="button"
                          className="button small ghost"
                          aria-label={`Exclude ${group.name}`}
                          title="Leave out this category's types"
                          onClick={() => excludeCategory(group)}
                        >
                          Exclude
                        </button>
                      </span>
                    </legend>
                    {group.types.map((type) => (
                      <label key={type.eventTypeName} className="type-option">
                        <input
                          type="checkbox"
                          checked={draft.has(type.eventTypeName)}
                          onChange={() => toggle(type.eventTypeName)}
                          aria-describedby={`${popoverId}-${type.eventTypeName}`}
                        />
                        <span>{type.label}</span>
                        <span className="type-count" aria-label={`${type.count} events`}>
                          {NUMBER.format(type.count)}
                        </span>
                        <span className="type-code" id={`${popoverId}-${type.eventTypeName}`}>
                          {type.eventTypeName}
                        </span>
                      </label>
                    ))}
                  </fieldset>
                ))}
              </>
            )}
          </div>
          <footer>
            <span className="count" aria-live="polite">
              {draftSummary}
            </span>
            <button
              type="button"
              className="button small"
              onClick={() => {
                setDraft(new Set());
                setDraftExcluded(new Set());
              }}
            >
              Clear
            </button>
            <button type="button" className="button small" onClick={() => close()}>
              Cancel
            </button>
            <button type="button" className="button small primary" onClick={apply}>
              Apply
            </button>
          </footer>
        </>
      )}
    </ToolbarPopover>
  );
}
