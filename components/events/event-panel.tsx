'use client';

import { type ReactNode, useEffect, useLayoutEffect, useRef } from 'react';
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
  useLayoutEffect(() => {
    if (!ref.current || window.matchMedia(SHEET_QUERY).matches) return;
    return startWhereTheListDoes(ref.current);
  }, [sheet]);

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

/**
 * Beside the list (from 1400 px) the panel starts where the list does, below
 * the toolbar and the search box, which keep the whole width and stay usable
 * (from the header down, the panel covered their right end: Columns to Live
 * at 1400 px, Live still at 1920); never above the header. Its top follows
 * the list as the page scrolls (a short window) and as what is above the
 * list grows (the search box taking a second line). Set here, not by CSS
 * anchor positioning: an anchored fixed box is placed once and then moves
 * with the page, so scrolled it rose over the header and left a gap below
 * it. Not the toolbar wrapping beside the panel instead: its extra line
 * moved the table down 67 px as the panel opened.
 */
function startWhereTheListDoes(panel: HTMLElement): (() => void) | undefined {
  const list = panel.parentElement?.querySelector<HTMLElement>(':scope > .investigate');
  if (!list) return undefined;
  const place = () => {
    const header = parseFloat(getComputedStyle(panel).getPropertyValue('--header-height'));
    panel.style.top = `${Math.max(header || 0, list.getBoundingClientRect().top)}px`;
  };
  place();
  // Scroll events and resize observations both come before the frame is painted.
  window.addEventListener('scroll', place, { passive: true });
  const resized = new ResizeObserver(place);
  resized.observe(list.parentElement ?? list);
  resized.observe(list);
  return () => {
    window.removeEventListener('scroll', place);
    resized.disconnect();
    panel.style.top = '';
  };
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
