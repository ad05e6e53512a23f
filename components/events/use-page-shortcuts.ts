'use client';

import { useEffect, useRef } from 'react';

/** Whether a key's target lies inside an element matching `selector` (the window lies in none). */
function within(target: EventTarget | null, selector: string): boolean {
  return (target as HTMLElement | null)?.closest?.(selector) != null;
}

function isTypingTarget(target: EventTarget | null): boolean {
  const element = target as HTMLElement | null;
  if (!element || !element.tagName) return false;
  return (
    element.isContentEditable ||
    ['INPUT', 'TEXTAREA', 'SELECT'].includes(element.tagName) ||
    within(element, '.popover')
  );
}

type Shortcuts = {
  /** Move the selection by one row; `focusRow` is false when focus is in the panel. */
  moveBy: (delta: number, focusRow: boolean) => void;
  closePanel: () => void;
  panelOpen: boolean;
};

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
      // A modal (the comparison, the facet sheet) has the keyboard to itself;
      // the event panel, modal where it is a sheet, keeps j/k and Esc.
      if (within(event.target, '[aria-modal="true"]:not(.panel)')) return;
      if (event.key === 'Escape' && latest.current.panelOpen) {
        if (within(event.target, '.popover')) return;
        event.preventDefault();
        latest.current.closePanel();
        return;
      }
      // Where j/k move rows: the table and the event panel, nowhere else.
      if (isTypingTarget(event.target) || !within(event.target, 'table.events, .panel')) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        latest.current.moveBy(event.key === 'j' ? 1 : -1, !within(event.target, '.panel'));
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}
