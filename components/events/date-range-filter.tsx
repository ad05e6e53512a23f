'use client';

import { type FormEvent, useId, useState } from 'react';
import {
  DATE_INPUT_FORMAT,
  parseDateTime,
  parseEndBound,
  skippedWallTime,
  toDateTimeInputValue,
  toEndInputValue,
  zoneName,
} from '@/lib/domain/dates';
import { RANGE_PRESETS, type RangePreset } from '@/lib/client/url-state';
import { usePopover } from './use-popover';

type Range = { range: RangePreset | null; from: number | null; to: number | null };

type Props = Range & {
  /** The zone the inputs are read and written in: the same one the table shows. */
  zone: string;
  onChange: (next: Range) => void;
};

const SHORT: Record<RangePreset, string> = {
  '1h': '1 hour',
  '24h': '24 hours',
  '7d': '7 days',
  '30d': '30 days',
};

/**
 * Presets (last hour … 30 days), any time, or custom bounds typed in the
 * chosen time zone in the table's own format (yyyy-MM-dd HH:mm:ss; seconds,
 * or the whole time, may be left out). A "to" includes all of the day,
 * minute or second it names. The custom bounds open in a popover, so the toolbar keeps
 * its place. The API receives them as UTC minDate/maxDate.
 */
export function DateRangeFilter({ range, from, to, zone, onChange }: Props) {
  const isCustom = range === null && (from !== null || to !== null);
  /** What is wrong with the typed range, and the fields it is about (marked aria-invalid). */
  const [error, setError] = useState<{
    message: string;
    fields: readonly ('from' | 'to')[];
  } | null>(null);
  /** Typed times the clocks skip, as they were read: said before they are applied. */
  const [moved, setMoved] = useState<string | null>(null);
  const legendId = useId();
  const errorId = useId();
  const movedId = useId();
  const popoverId = useId();
  // The custom bounds' popover. Closed from inside (Escape, Cancel, Apply),
  // focus goes back to Custom…, which opened it: the form is gone, and focus
  // would fall to <body>.
  const {
    open: editing,
    setOpen: setEditing,
    close: closeEditor,
    anchorRef,
    buttonRef: customRef,
  } = usePopover();
  const zoneLabel = zoneName(zone);
  const describedBy =
    [error ? errorId : null, moved !== null ? movedId : null].filter(Boolean).join(' ') ||
    undefined;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setMoved(null);
    const form = new FormData(event.currentTarget);
    const fromText = formText(form, 'from');
    const toText = formText(form, 'to');
    const fromValue = fromText ? parseDateTime(fromText, zone) : null;
    // The last millisecond of what "to" names: "to 2026-01-31" the whole day,
    // "to 11:30" the minute, "to 11:30:00" that second.
    const toValue = toText ? parseEndBound(toText, zone) : null;
    const unreadable = [
      ...(fromText && fromValue === null ? ['from' as const] : []),
      ...(toText && toValue === null ? ['to' as const] : []),
    ];
    if (unreadable.length > 0) {
      setError({
        message: `Enter dates as ${DATE_INPUT_FORMAT} (${zoneLabel}), e.g. 2026-01-31 23:59:00.`,
        fields: unreadable,
      });
      return;
    }
    // A time the clocks skip is read at the offset before they jump (02:30
    // as 03:30 where 02:00 becomes 03:00), the rule every reader keeps.
    // Applied at once, the events from 03:00 to 03:30 fell outside "from
    // 02:30" unsaid: the first Apply says so and writes each such field as
    // it was read (so "from 02:30 to 03:15" is not refused as backwards
    // unexplained); the next Apply takes them.
    const notes: string[] = [];
    for (const [name, text] of [
      ['from', fromText],
      ['to', toText],
    ] as const) {
      const read = text ? skippedWallTime(text, zone) : null;
      if (read === null) continue;
      // Written as typed, to the minute or the second, so the next Apply
      // reads the same span: "to 02:30" rewritten "03:30:00" became that
      // second alone.
      const shown =
        name === 'from' ? toDateTimeInputValue(read, zone) : toEndInputValue(toValue!, zone);
      notes.push(
        `${text.trim()} does not exist in ${zoneLabel} (the clocks go forward): read as ${shown}.`,
      );
      const input = event.currentTarget.elements.namedItem(name);
      if (input instanceof HTMLInputElement) input.value = shown;
    }
    if (notes.length > 0) {
      setError(null);
      setMoved(`${notes.join(' ')} Apply again to use ${notes.length === 1 ? 'it' : 'them'}.`);
      return;
    }
    if (fromValue !== null && toValue !== null && fromValue > toValue) {
      setError({ message: 'The start must be before the end.', fields: ['from', 'to'] });
      return;
    }
    setError(null);
    closeEditor();
    onChange({ range: null, from: fromValue, to: toValue });
  };

  return (
    <div className="group popover-anchor" role="group" aria-labelledby={legendId} ref={anchorRef}>
      <span className="label" id={legendId}>
        Date range
      </span>
      <div className="segmented">
        <button
          type="button"
          className="button"
          aria-pressed={range === null && !isCustom}
          onClick={() => {
            setEditing(false);
            onChange({ range: null, from: null, to: null });
          }}
        >
          Any time
        </button>
        {RANGE_PRESETS.map((preset) => (
          <button
            key={preset}
            type="button"
            className="button"
            aria-pressed={range === preset}
            aria-label={`Last ${SHORT[preset]}`}
            onClick={() => {
              setEditing(false);
              onChange({ range: preset, from: null, to: null });
            }}
          >
            {SHORT[preset]}
          </button>
        ))}
        <button
          ref={customRef}
          type="button"
          className="button"
          aria-pressed={isCustom}
          aria-expanded={editing}
          aria-controls={editing ? popoverId : undefined}
          onClick={() => {
            setError(null);
            setMoved(null);
            setEditing(true);
          }}
        >
          Custom…
        </button>
      </div>
      {editing ? (
        <form
          id={popoverId}
          className="custom-range popover"
          onSubmit={onSubmit}
          key={`${from}-${to}-${zone}`}
          aria-label="Custom date range"
        >
          <DateTimeField
            name="from"
            label={`From (${zoneLabel})`}
            value={from}
            zone={zone}
            describedBy={describedBy}
            invalid={error?.fields.includes('from') ?? false}
          />
          <DateTimeField
            name="to"
            label={`To (${zoneLabel})`}
            value={to}
            zone={zone}
            describedBy={describedBy}
            invalid={error?.fields.includes('to') ?? false}
          />
          <p className="hint">
            Format {DATE_INPUT_FORMAT}, 24-hour, in {zoneLabel}; seconds or the time may be left
            out. “To” includes the whole day, minute or second it names.
          </p>
          {error ? (
            <span id={errorId} className="alert" role="alert">
              {error.message}
            </span>
          ) : null}
          {moved !== null ? (
            <span id={movedId} className="moved-time" role="status">
              {moved}
            </span>
          ) : null}
          <div className="actions">
            <button type="button" className="button small" onClick={() => closeEditor()}>
              Cancel
            </button>
            <button type="submit" className="button primary">
              Apply dates
            </button>
          </div>
        </form>
      ) : null}
    </div>
  );
}

/** A text field's value; a file input would give a File, which is never a date. */
function formText(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}

/** One bound of the custom range, shown and typed in the chosen zone. */
function DateTimeField({
  name,
  label,
  value,
  zone,
  describedBy,
  invalid,
}: {
  name: 'from' | 'to';
  label: string;
  /** The bound; for "to", the last millisecond it covers (parseEndBound). */
  value: number | null;
  zone: string;
  /** The ids of the form's message about the fields, if any. */
  describedBy: string | undefined;
  invalid: boolean;
}) {
  const id = useId();
  const hintId = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        spellCheck={false}
        className="input mono"
        placeholder={DATE_INPUT_FORMAT}
        defaultValue={
          value === null
            ? ''
            : name === 'to'
              ? toEndInputValue(value, zone)
              : toDateTimeInputValue(value, zone)
        }
        aria-describedby={describedBy ? `${hintId} ${describedBy}` : hintId}
        aria-invalid={invalid || undefined}
      />
      <span id={hintId} className="visually-hidden">
        Format {DATE_INPUT_FORMAT}
      </span>
    </div>
  );
}
