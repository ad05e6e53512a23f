'use client';

import { type ReactNode, type RefObject, useId, useLayoutEffect, useRef } from 'react';
import type { usePopover } from './use-popover';

/** The least room left between a dialog and the window's edges. */
const EDGE = 8;

/**
 * Keeps an open dialog inside the window: lined up with its button's chosen
 * edge where it fits, else moved along until it does. The toolbar wraps
 * (a long "Local (Europe/Berlin)" button moves the View group to the left
 * edge at 1280 px), so a dialog lined up with its button's right edge could
 * open hundreds of pixels off the left of the window. Placed before paint,
 * and again when the window's size changes.
 */
function useInsideWindow(
  open: boolean,
  align: 'left' | 'right',
  anchorRef: RefObject<HTMLDivElement | null>,
  dialogRef: RefObject<HTMLDivElement | null>,
) {
  useLayoutEffect(() => {
    if (!open) return;
    const place = () => {
      const dialog = dialogRef.current;
      const anchor = anchorRef.current;
      if (!dialog || !anchor) return;
      dialog.style.left = '';
      dialog.style.right = '';
      // On a phone the stylesheet makes it a sheet fixed along the bottom.
      if (getComputedStyle(dialog).position !== 'absolute') return;
      const anchorBox = anchor.getBoundingClientRect();
      const width = dialog.offsetWidth;
      const windowWidth = document.documentElement.clientWidth;
      const wanted = align === 'right' ? anchorBox.right - width : anchorBox.left;
      const left = Math.max(EDGE, Math.min(wanted, windowWidth - width - EDGE));
      dialog.style.left = `${left - anchorBox.left}px`;
      dialog.style.right = 'auto';
    };
    place();
    window.addEventListener('resize', place);
    return () => window.removeEventListener('resize', place);
  }, [open, align, anchorRef, dialogRef]);
}

/**
 * A toolbar button that opens a small dialog beside it (columns, saved
 * views): the anchor, the button with its ARIA state, and the dialog.
 * `popover` is the caller's usePopover(), so its handlers can close it.
 */
export function ToolbarPopover({
  popover,
  trigger,
  triggerLabel,
  label,
  align = 'right',
  onOpen,
  onInterest,
  children,
}: {
  popover: ReturnType<typeof usePopover>;
  trigger: ReactNode;
  /** The button's accessible name, when its text alone does not say enough. */
  triggerLabel?: string;
  /** The dialog's accessible name. */
  label: string;
  /** Which edge of the button the dialog lines up with, where the window leaves room. */
  align?: 'left' | 'right';
  /** Runs just before the dialog opens (to reset a draft). */
  onOpen?: () => void;
  /** The pointer or focus reached the button: a good moment to prefetch. */
  onInterest?: () => void;
  children: (popoverId: string) => ReactNode;
}) {
  const popoverId = useId();
  const { open, setOpen, close, anchorRef, buttonRef } = popover;
  const dialogRef = useRef<HTMLDivElement>(null);
  useInsideWindow(open, align, anchorRef, dialogRef);
  return (
    <div className="popover-anchor" ref={anchorRef}>
      <button
        ref={buttonRef}
        type="button"
        className="button"
        aria-haspopup="dialog"
        aria-label={triggerLabel}
        aria-expanded={open}
        aria-controls={open ? popoverId : undefined}
        onClick={() => {
          if (open) return close();
          onOpen?.();
          setOpen(true);
        }}
        onPointerEnter={onInterest}
        onFocus={onInterest}
      >
        {trigger}
      </button>
      {open ? (
        <div
          ref={dialogRef}
          id={popoverId}
          className={align === 'right' ? 'popover popover-right' : 'popover'}
          role="dialog"
          aria-label={label}
        >
          {children(popoverId)}
        </div>
      ) : null}
    </div>
  );
}

/** What a popover shows while its data loads or after it failed, with a retry. */
export function PopoverLoadState({
  what,
  isPending,
  isError,
  onRetry,
}: {
  /** "event types", "saved views". */
  what: string;
  isPending: boolean;
  isError: boolean;
  onRetry: () => void;
}) {
  if (isPending) {
    return (
      <p className="muted" role="status">
        Loading {what}…
      </p>
    );
  }
  if (!isError) return null;
  return (
    <p className="alert" role="alert">
      {what[0]!.toUpperCase() + what.slice(1)} could not be loaded.{' '}
      <button type="button" className="button small" onClick={onRetry}>
        Retry
      </button>
    </p>
  );
}
