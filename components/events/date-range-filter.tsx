'use client';

import { type FormEvent, useId, useState } from 'react';
import { parseDateTime, toDateTimeInputValue, zoneName } from '@/lib/domain/dates';
import { RANGE_PRESETS, type RangePreset } from '@/lib/client/url-state';

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
 * chosen time zone. The API receives them as UTC minDate/maxDate.
 */
export function DateRangeFilter({ range, from, to, zone, onChange }: Props) {
  const isCustom = range === null && (from !== null || to !== null);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const legendId = useId();
  const errorId = useId();
  const zoneLabel = zoneName(zone);
  const showCustom = editing || isCustom;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const fromText = formText(form, 'from');
    const toText = formText(form, 'to');
    const fromValue = fromText ? parseDateTime(fromText, zone) : null;
    const toValue = toText ? parseDateTime(toText, zone) : null;
    if ((fromText && fromValue === null) || (toText && toValue === null)) {
      setError('Enter dates as YYYY-MM-DD HH:mm.');
      return;
    }
    if (fromValue !== null && toValue !== null && fromValue > toValue) {
      setError('The start must be before the end.');
      return;
    }
    setError(null);
    setEditing(false);
    onChange({ range: null, from: fromValue, to: toValue });
  };

  return (
    <div className="group" role="group" aria-labelledby={legendId}>
      <span className="label" id={legendId}>
        Date range
      </span>
      <div className="segmented">
        <button
          type="button"
          className="button"
          aria-pressed={range === null && !showCustom}
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
          type="button"
          className="button"
          aria-pressed={showCustom}
          aria-expanded={showCustom}
          onClick={() => setEditing(true)}
        >
          Custom…
        </button>
      </div>
      {showCustom ? (
        <form className="custom-range" onSubmit={onSubmit} key={`${from}-${to}-${zone}`}>
          <DateTimeField
            name="from"
            label={`From (${zoneLabel})`}
            value={from}
            zone={zone}
            errorId={error ? errorId : undefined}
          />
          <DateTimeField
            name="to"
            label={`To (${zoneLabel})`}
            value={to}
            zone={zone}
            errorId={error ? errorId : undefined}
          />
          <button type="submit" className="button primary">
            Apply dates
          </button>
          {error ? (
            <span id={errorId} className="alert" role="alert">
              {error}
            </span>
          ) : null}
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
  errorId,
}: {
  name: 'from' | 'to';
  label: string;
  value: number | null;
  zone: string;
  errorId: string | undefined;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="datetime-local"
        className="input"
        step={1}
        defaultValue={value !== null ? toDateTimeInputValue(value, zone) : ''}
        aria-describedby={errorId}
      />
    </div>
  );
}
