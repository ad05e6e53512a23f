'use client';

import { type KeyboardEvent, memo, useId, useMemo, useRef, useState } from 'react';
import {
  type Chip,
  type CompletionSource,
  type InvestigationFilters,
  applyQuery,
  completions,
  currentToken,
  filterChips,
  NO_FILTERS,
  removeChip,
  resolveChipKey,
  tokenize,
} from '@/lib/client/query-syntax';

type Props = {
  filters: InvestigationFilters;
  onChange: (filters: InvestigationFilters) => void;
  /** Every event type name, for `type:CLUSTER_*`. */
  knownTypes: readonly string[];
  /** Values to complete a chip's value with (facets, the type catalogue). */
  source: CompletionSource;
  typeLabel: (type: string) => string;
  /** The box got focus: suggestions will be wanted. */
  onFocus?: () => void;
};

function chipName(chip: Chip, typeLabel: (type: string) => string): string {
  if (chip.types) {
    return `${chip.negate ? 'excluded ' : ''}${chip.types.length} ${chip.value} event types`;
  }
  if (chip.key === 'eventType') {
    return `${chip.negate ? 'excluded ' : ''}event type ${typeLabel(chip.value)}`;
  }
  return chip.text;
}

/**
 * The one filter bar: the filters as removable chips, and a box that reads
 * `field:value` chips and free text (lib/client/query-syntax.ts), completing
 * field names and then values from the facets. Enter applies; Backspace in
 * an empty box removes the last chip.
 */
export const QueryBar = memo(function QueryBar({
  filters,
  onChange,
  knownTypes,
  source,
  typeLabel,
  onFocus,
}: Props) {
  const [input, setInput] = useState('');
  const [problems, setProblems] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  // Enter takes a suggestion once the arrows reached it; otherwise it applies
  // what was typed (a typed value is not swapped for a longer match), unless
  // that would be refused and one suggestion completes it.
  const [navigated, setNavigated] = useState(false);
  const [open, setOpen] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const problemId = useId();
  const chips = useMemo(() => filterChips(filters), [filters]);
  const token = currentToken(input);
  const options = useMemo(
    () => (open ? completions(token.text, source) : []),
    [open, token.text, source],
  );
  const showList = options.length > 0;

  const apply = (text: string) => {
    if (!text.trim()) return;
    const result = applyQuery(filters, text, knownTypes);
    setProblems(result.problems);
    // What was refused stays in the box, to be fixed; the rest became chips.
    setInput(result.refused);
    setOpen(false);
    if (result.filters !== filters) onChange(result.filters);
  };

  const choose = (index: number) => {
    const option = options[index];
    if (!option) return;
    const next = `${input.slice(0, token.start)}${option.insert}`;
    setNavigated(false);
    if (option.isValue) apply(next);
    else {
      setInput(next);
      setActive(0);
      inputRef.current?.focus();
    }
  };

  // An event type typed in part (`type:joined_o`) would be refused as it
  // is: when one suggestion completes it, Enter takes that one. Not other
  // fields: `ip:70.197` completed to one address of the top ten filtered on
  // one host where a network was meant.
  const onlySuggestionNeeded = () => {
    const typed = tokenize(token.text)[0];
    return (
      options.length === 1 &&
      options[0]!.isValue &&
      typed?.kind === 'field' &&
      resolveChipKey(typed.name) === 'eventType' &&
      applyQuery(filters, token.text, knownTypes).problems.length > 0
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!showList) {
        setOpen(true);
        return;
      }
      event.preventDefault();
      const by = event.key === 'ArrowDown' ? 1 : -1;
      setNavigated(true);
      setActive((current) =>
        navigated
          ? (current + by + options.length) % options.length
          : by > 0
            ? 0
            : options.length - 1,
      );
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (showList && navigated && active < options.length && token.text) choose(active);
      else if (onlySuggestionNeeded()) choose(0);
      else apply(input);
    } else if (event.key === 'Tab' && showList && token.text) {
      event.preventDefault();
      choose(active);
    } else if (event.key === 'Escape') {
      if (showList || input) {
        // The bar's own Escape: the page's (closing the panel) waits for the next one.
        event.stopPropagation();
        event.nativeEvent.stopImmediatePropagation();
        if (showList) setOpen(false);
        else setInput('');
      }
    } else if (event.key === 'Backspace' && input === '' && chips.length > 0) {
      event.preventDefault();
      onChange(removeChip(filters, chips[chips.length - 1]!));
    }
  };

  const activeOption = showList && navigated ? Math.min(active, options.length - 1) : -1;

  return (
    <div className="query-bar-wrap">
      <div className="query-bar" onClick={() => inputRef.current?.focus()}>
        <span className="query-icon" aria-hidden="true">
          ⌕
        </span>
        <ul className="query-chips" aria-label="Filters">
          {chips.map((chip) => (
            <li
              key={chip.id}
              className="query-chip"
              data-negate={chip.negate || undefined}
              data-testid="query-chip"
              title={chip.types?.map(typeLabel).join(', ')}
            >
              <span className="mono">{chip.text}</span>
              <button
                type="button"
                aria-label={`Remove ${chipName(chip, typeLabel)}`}
                onClick={(event) => {
                  event.stopPropagation();
                  onChange(removeChip(filters, chip));
                  inputRef.current?.focus();
                }}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
        <input
          ref={inputRef}
          className="query-input"
          type="text"
          role="combobox"
          aria-label="Filter events: field:value or free text"
          aria-autocomplete="list"
          aria-expanded={showList}
          aria-controls={listId}
          aria-activedescendant={activeOption >= 0 ? `${listId}-${activeOption}` : undefined}
          aria-describedby={problems.length ? problemId : undefined}
          placeholder={
            chips.length
              ? 'Add a filter…'
              : 'actor:alice@example.com  type:CLUSTER_*  ip:10.0.0.0/8  free text'
          }
          autoComplete="off"
          spellCheck={false}
          value={input}
          onChange={(event) => {
            setInput(event.target.value);
            setActive(0);
            setNavigated(false);
            setOpen(true);
          }}
          onFocus={() => {
            setOpen(true);
            onFocus?.();
          }}
          onBlur={() => setOpen(false)}
          onKeyDown={onKeyDown}
        />
        {chips.length ? (
          <button
            type="button"
            className="button small ghost"
            onClick={(event) => {
              event.stopPropagation();
              setProblems([]);
              onChange(NO_FILTERS);
              // The button goes away with the chips: focus stays in the bar.
              inputRef.current?.focus();
            }}
          >
            Clear
          </button>
        ) : null}
      </div>
      <ul
        id={listId}
        role="listbox"
        className="query-completions"
        hidden={!showList}
        aria-label="Suggestions"
      >
        {options.map((option, index) => (
          <li
            key={option.insert}
            id={`${listId}-${index}`}
            role="option"
            aria-selected={index === activeOption}
            // Chosen on pointer down, before the input's blur closes the list.
            onPointerDown={(event) => {
              event.preventDefault();
              choose(index);
            }}
          >
            <span className="mono">{option.label}</span>
            {option.count !== undefined ? (
              <span className="count">{option.count.toLocaleString('en-US')}</span>
            ) : null}
          </li>
        ))}
      </ul>
      {problems.length ? (
        <p id={problemId} className="query-problems" role="alert">
          {problems.join('; ')}
        </p>
      ) : null}
    </div>
  );
});
