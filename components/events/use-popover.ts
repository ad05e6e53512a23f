'use client';

import { type KeyboardEvent, useCallback, useEffect, useRef, useState } from 'react';

/**
 * Open/close state of a toolbar popover: closes on a pointer down outside its
 * anchor and on Escape (without letting Escape reach the page, where it would
 * close the event panel too), returning focus to the button that opened it.
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
    const onPointerDown = (event: PointerEvent) => {
      if (!anchorRef.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open]);

  /** For the anchor element: Escape anywhere in it (button or popover) closes. */
  const onKeyDown = useCallback(
    (event: KeyboardEvent<HTMLElement>) => {
      if (event.key !== 'Escape' || !open) return;
      event.stopPropagation();
      event.nativeEvent.stopImmediatePropagation();
      close();
    },
    [close, open],
  );

  return { open, setOpen, close, anchorRef, buttonRef, onKeyDown };
}
