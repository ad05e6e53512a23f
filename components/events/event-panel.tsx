'use client';

import { type ReactNode, useEffect, useRef } from 'react';

type Props = {
  titleId: string;
  children: ReactNode;
  onClose: () => void;
  onPrevious: (() => void) | null;
  onNext: (() => void) | null;
};

/**
 * The side panel over the table: a labelled dialog that takes focus when it
 * opens. It is not modal, so the table stays usable beside it; Esc (handled
 * by the page) closes it and returns focus to the row.
 */
export function EventPanel({ titleId, children, onClose, onPrevious, onNext }: Props) {
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    ref.current?.focus();
  }, []);

  return (
    <div
      ref={ref}
      className="panel"
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid="event-panel"
    >
      <header>
        <span className="hint" style={{ flex: 1, alignSelf: 'center' }}>
          Event details · <kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>Esc</kbd> close
        </span>
        <PanelButton label="Previous event" onClick={onPrevious}>
          ↑
        </PanelButton>
        <PanelButton label="Next event" onClick={onNext}>
          ↓
        </PanelButton>
        <PanelButton label="Close event details" onClick={onClose}>
          ✕
        </PanelButton>
      </header>
      <div className="panel-body">{children}</div>
    </div>
  );
}

/** A small icon button of the panel's header; disabled when there is nothing to do. */
function PanelButton({
  label,
  onClick,
  children,
}: {
  label: string;
  onClick: (() => void) | null | undefined;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className="button small"
      onClick={onClick ?? undefined}
      disabled={!onClick}
      aria-label={label}
    >
      {children}
    </button>
  );
}
