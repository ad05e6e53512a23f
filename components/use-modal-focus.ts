'use client';

import { type RefObject, useEffect, useRef } from 'react';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(container: HTMLElement): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (element) => element.getClientRects().length > 0,
  );
}

/**
 * The modals active now, the latest last: only it keeps focus. Two at once
 * (the facet sheet open when Forward opens the event panel's sheet) each
 * pulled focus back from the other, without end (the stack overflowed).
 */
const activeModals: HTMLElement[] = [];
const isTopModal = (container: HTMLElement) => activeModals.at(-1) === container;

/**
 * Keyboard focus for a modal (a dialog, or a sheet over the page) while
 * `active`: it moves in when it opens (to the container, which must take
 * focus: tabIndex -1), Tab and Shift+Tab go round inside it
 * and never reach the page behind (which the modal covers), Escape closes it
 * wherever focus is, and focus goes back to what opened it when it closes
 * (it fell to <body>). `onClose` is read when called, so it may change.
 * `returnFocus` false leaves that to the caller: the event panel gives focus
 * to the row of the event it shows last (j/k change it), and a panel that
 * stops being a sheet (the window widened) keeps focus where it is.
 */
export function useModalFocus(
  ref: RefObject<HTMLElement | null>,
  active: boolean,
  onClose: () => void,
  returnFocus = true,
): void {
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    const container = ref.current;
    if (!active || !container) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    activeModals.push(container);
    // The modal itself (named by its title, which a screen reader then reads).
    container.focus();
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isTopModal(container)) return;
      if (event.key === 'Escape') {
        // Before the page's own Escape (which closes the event panel).
        event.preventDefault();
        event.stopImmediatePropagation();
        close.current();
        return;
      }
      if (event.key !== 'Tab') return;
      const inside = focusables(container);
      if (inside.length === 0) {
        event.preventDefault();
        container.focus();
        return;
      }
      const first = inside[0]!;
      const last = inside[inside.length - 1]!;
      const current = document.activeElement;
      const within = current instanceof Node && container.contains(current);
      if (event.shiftKey && (!within || current === first || current === container)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (!within || current === last)) {
        event.preventDefault();
        first.focus();
      }
    };
    // Focus moved out another way (a click behind a transparent part, a
    // script): brought back in.
    const onFocusIn = (event: FocusEvent) => {
      if (
        isTopModal(container) &&
        event.target instanceof Node &&
        !container.contains(event.target)
      ) {
        (focusables(container)[0] ?? container).focus();
      }
    };
    document.addEventListener('keydown', onKeyDown, true);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      document.removeEventListener('keydown', onKeyDown, true);
      document.removeEventListener('focusin', onFocusIn);
      activeModals.splice(activeModals.indexOf(container), 1);
      if (returnFocus && opener?.isConnected) opener.focus({ preventScroll: true });
    };
  }, [active, ref, returnFocus]);
}
