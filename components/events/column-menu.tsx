'use client';

import {
  COLUMN_LABELS,
  type Density,
  type MovableColumn,
  type TablePrefs,
  moveColumn,
} from '@/lib/client/table-prefs';
import { ToolbarPopover } from './toolbar-popover';
import { usePopover } from './use-popover';

type Props = { prefs: TablePrefs; onChange: (prefs: TablePrefs) => void };

/** Show, hide and reorder the table's columns, and pick its density. */
export function ColumnMenu({ prefs, onChange }: Props) {
  const popover = usePopover();
  const { close } = popover;
  const hidden = new Set(prefs.hidden);

  const toggle = (column: MovableColumn) =>
    onChange({
      ...prefs,
      hidden: hidden.has(column)
        ? prefs.hidden.filter((c) => c !== column)
        : [...prefs.hidden, column],
    });
  const move = (column: MovableColumn, by: -1 | 1) =>
    onChange({ ...prefs, order: moveColumn(prefs.order, column, by) });
  const setDensity = (density: Density) => onChange({ ...prefs, density });

  return (
    <ToolbarPopover popover={popover} trigger="Columns ▾" label="Table columns">
      {(popoverId) => (
        <>
          <div className="popover-body">
            <p className="hint">Time always comes first. Kept in this browser for this key.</p>
            <ul className="column-list">
              {prefs.order.map((column, index) => (
                <li key={column}>
                  <label>
                    <input
                      type="checkbox"
                      checked={!hidden.has(column)}
                      onChange={() => toggle(column)}
                    />{' '}
                    {COLUMN_LABELS[column]}
                  </label>
                  <span className="column-moves">
                    <button
                      type="button"
                      className="button small"
                      aria-label={`Move ${COLUMN_LABELS[column]} left`}
                      disabled={index === 0}
                      onClick={() => move(column, -1)}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="button small"
                      aria-label={`Move ${COLUMN_LABELS[column]} right`}
                      disabled={index === prefs.order.length - 1}
                      onClick={() => move(column, 1)}
                    >
                      ↓
                    </button>
                  </span>
                </li>
              ))}
            </ul>
            <fieldset className="density">
              <legend className="label">Density</legend>
              {(['comfortable', 'compact'] as const).map((density) => (
                <label key={density}>
                  <input
                    type="radio"
                    name={`${popoverId}-density`}
                    checked={prefs.density === density}
                    onChange={() => setDensity(density)}
                  />{' '}
                  {density === 'comfortable' ? 'Comfortable' : 'Compact'}
                </label>
              ))}
            </fieldset>
          </div>
          <footer>
            <button
              type="button"
              className="button small"
              onClick={() =>
                onChange({
                  ...prefs,
                  order: [...COLUMN_ORDER_RESET],
                  hidden: [],
                  density: 'comfortable',
                })
              }
            >
              Reset
            </button>
            <button type="button" className="button small primary" onClick={() => close()}>
              Done
            </button>
          </footer>
        </>
      )}
    </ToolbarPopover>
  );
}

const COLUMN_ORDER_RESET = Object.keys(COLUMN_LABELS) as MovableColumn[];
