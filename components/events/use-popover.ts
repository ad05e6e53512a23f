'use client';

import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Open/close state of a toolbar popover: closes on a pointer down outside its
 * anchor, when focus moves outside it (Tab past its last control: left open,
 * it covered the table the keyboard went on to), and on Escape (without
 * letting Escape reach the page, where it would close the event panel too),
 * returning focus to the button that opened it.
 */
export function usePopover() {
  const [open, setOpen] = useState(false);
  const anchorRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  const close = useCallback((restoreFocus = true) => {
    setOpen(false);
    if (restoreFocus) buttonRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    // Focus moves into the popover, so the keyboard continues there.
    anchorRef.current
      ?.querySelector<HTMLElement>('.popover input, .popover button, .popover select')
      ?.focus();
    const closeIfOutside = (event: Event) => {
      if (!anchorRef.current?.contains(event.target as Node)) setOpen(false);
    };
    // Escape closes it wherever focus is (a renamed item's field may have
    // just gone), before the page's own Escape (closing the panel) sees it.
    const onEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener('pointerdown', closeIfOutside);
    document.addEventListener('focusin', closeIfOutside);
    document.addEventListener('keydown', onEscape, true);
    return () => {
      document.removeEventListener('pointerdown', closeIfOutside);
      document.removeEventListener('focusin', closeIfOutside);
      document.removeEventListener('keydown', onEscape, true);
    };
  }, [open]);

  return { open, setOpen, close, anchorRef, buttonRef };
}
