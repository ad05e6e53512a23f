'use client';

import { type ReactNode, useEffect, useRef } from 'react';
import { useMediaQuery } from '@/components/use-media-query';
import { useModalFocus } from '@/components/use-modal-focus';

type Props = {
  titleId: string;
  children: ReactNode;
  onClose: () => void;
  onPrevious: (() => void) | null;
  onNext: (() => void) | null;
};

/**
 * Where the panel is a full-width sheet over the list: the same query as its
 * width in globals.css (`.panel`, max-width 1399px; `--panel-width` gives
 * way down to it) and the list's reserve for it in investigate.css (min-width
 * 1400px); change them together.
 */
const SHEET_QUERY = '(max-width: 1399px)';

/**
 * The side panel over the table: a labelled dialog that takes focus when it
 * opens. From 1400 px it is not modal, so the table stays usable beside it;
 * below, it covers the list as a sheet and is modal (Tab went on to the rows
 * hidden under it), keeping focus inside. Esc or Close (handled by the page)
 * closes it and returns focus to the row of the event it shows.
 */
export function EventPanel({ titleId, children, onClose, onPrevious, onNext }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const sheet = useMediaQuery(SHEET_QUERY);

  useEffect(() => {
    ref.current?.focus();
  }, []);
  // Focus back to the row is the page's (the row j/k moved to, not the one that opened it).
  useModalFocus(ref, sheet, onClose, false);

  return (
    <div
      ref={ref}
      className="panel"
      role="dialog"
      aria-modal={sheet}
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
