'use client';

import { useId } from 'react';
import { type TimeZoneMode } from '@/lib/domain/dates';

type Props = {
  mode: TimeZoneMode;
  localZone: string;
  onChange: (mode: TimeZoneMode) => void;
};

/** One explicit choice, used by the table, the date inputs and the URL alike. */
export function TimeZoneSwitch({ mode, localZone, onChange }: Props) {
  const labelId = useId();
  return (
    <div className="group">
      <span className="label" id={labelId}>
        Time zone
      </span>
      <div className="segmented" role="group" aria-labelledby={labelId}>
        <button
          type="button"
          className="button"
          aria-pressed={mode === 'utc'}
          onClick={() => onChange('utc')}
        >
          UTC
        </button>
        <button
          type="button"
          className="button"
          aria-pressed={mode === 'local'}
          onClick={() => onChange('local')}
          title={`Times in your browser’s zone, ${localZone}`}
        >
          Local ({localZone})
        </button>
      </div>
    </div>
  );
}
