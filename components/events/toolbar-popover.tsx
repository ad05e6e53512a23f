'use client';

import { type ReactNode, useId } from 'react';
import type { usePopover } from './use-popover';

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
  /** Which edge of the button the dialog lines up with. */
  align?: 'left' | 'right';
  /** Runs just before the dialog opens (to reset a draft). */
  onOpen?: () => void;
  /** The pointer or focus reached the button: a good moment to prefetch. */
  onInterest?: () => void;
  children: (popoverId: string) => ReactNode;
}) {
  const popoverId = useId();
  const { open, setOpen, close, anchorRef, buttonRef } = popover;
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
