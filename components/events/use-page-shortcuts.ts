'use client';

import { useEffect, useRef } from 'react';

function isTypingTarget(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || !element.tagName) return false;
  return (
    element.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName) ||
    element.closest('.popover') !== null
  );
}

type Shortcuts = {
  /** Move the selection by one row; `focusRow` is false when focus is in the panel. */
  moveBy: (delta: number, focusRow: boolean) => void;
  closePanel: () => void;
  panelOpen: boolean;
};

/** Where j/k move rows: the table and the event panel, and nowhere else on the page. */
function inRowsOrPanel(target: EventTarget | null): boolean {
  return (target as HTMLElement | null)?.closest?.('table.events, .panel') != null;
}

/**
 * Page keys: j/k move between rows while focus is in the table or the event
 * panel (except while typing), Esc closes the event panel (a popover's own Esc
 * comes first). Single-letter keys act only there (WCAG 2.1.4): from any other
 * control, a speech-input user's dictated "j" or a stray key press moved the
 * selection and the open panel. Registered once; the latest handlers are read
 * through a ref.
 */
export function usePageShortcuts(shortcuts: Shortcuts): void {
  const latest = useRef(shortcuts);
  useEffect(() => {
    latest.current = shortcuts;
  });
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      // A modal (the comparison, the facet sheet) has the keyboard to itself.
      if ((event.target as HTMLElement | null)?.closest?.('[aria-modal="true"]')) return;
      if (event.key === 'Escape' && latest.current.panelOpen) {
        if ((event.target as HTMLElement | null)?.closest?.('.popover')) return;
        event.preventDefault();
        latest.current.closePanel();
        return;
      }
      if (isTypingTarget(event.target) || !inRowsOrPanel(event.target)) return;
      if (event.key === 'j' || event.key === 'k') {
        const inPanel = (event.target as HTMLElement | null)?.closest?.('.panel') != null;
        event.preventDefault();
        latest.current.moveBy(event.key === 'j' ? 1 : -1, !inPanel);
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}
