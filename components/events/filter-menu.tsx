'use client';

import { type KeyboardEvent, useEffect, useLayoutEffect, useRef } from 'react';
import type { Pivot } from '@/lib/client/pivots';

export type FilterMenuRequest = {
  pivots: Pivot[];
  /** The element it opened from: it is placed beside it, and focus returns to it. */
  anchor: HTMLElement;
};

type Props = FilterMenuRequest & {
  onPick: (pivot: Pivot, exclude: boolean) => void;
  onClose: () => void;
};

/**
 * Click-to-filter, as Datadog and Grafana do it from a value: a small menu of
 * "only this" (and, for event types, "leave this out"). Arrow keys move,
 * Enter picks, Escape or Tab closes and returns focus where it came from.
 */
export function FilterMenu({ pivots, anchor, onPick, onClose }: Props) {
  const menuRef = useRef<HTMLDivElement>(null);

  // Placed beside its anchor once its own size is known (before paint).
  useLayoutEffect(() => {
    const menu = menuRef.current;
    if (!menu) return;
    const box = anchor.getBoundingClientRect();
    const below = box.bottom + 4;
    const top =
      below + menu.offsetHeight > window.innerHeight
        ? Math.max(4, box.top - menu.offsetHeight - 4)
        : below;
    const left = Math.min(Math.max(4, box.left), window.innerWidth - menu.offsetWidth - 4);
    menu.style.top = `${top}px`;
    menu.style.left = `${Math.max(4, left)}px`;
    menu.style.visibility = 'visible';
    menu.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [anchor]);

  useEffect(() => {
    const onPointerDown = (event: PointerEvent) => {
      if (!menuRef.current?.contains(event.target as Node)) onClose();
    };
    const onScroll = (event: Event) => {
      if (!menuRef.current?.contains(event.target as Node)) onClose();
    };
    document.addEventListener('pointerdown', onPointerDown);
    window.addEventListener('scroll', onScroll, true);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      window.removeEventListener('scroll', onScroll, true);
    };
  }, [onClose]);

  const close = () => {
    onClose();
    if (anchor.isConnected) anchor.focus({ preventScroll: true });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const items = [...(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const index = items.indexOf(document.activeElement as HTMLElement);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const by = event.key === 'ArrowDown' ? 1 : -1;
      items[(index + by + items.length) % items.length]?.focus();
    } else if (event.key === 'Home' || event.key === 'End') {
      event.preventDefault();
      items[event.key === 'Home' ? 0 : items.length - 1]?.focus();
    } else if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
    // Keys stay in the menu: the table's row keys must not act behind it.
    event.stopPropagation();
  };

  return (
    <div
      ref={menuRef}
      className="filter-menu"
      role="menu"
      aria-label="Filter on this value"
      style={{ visibility: 'hidden' }}
      onKeyDown={onKeyDown}
    >
      {pivots.length === 0 ? <p className="muted small">Nothing to filter on here.</p> : null}
      {pivots.map((pivot) => (
        <div key={`${pivot.key}:${pivot.value}`} className="filter-menu-group">
          <button type="button" role="menuitem" tabIndex={-1} onClick={() => onPick(pivot, false)}>
            <span aria-hidden="true">+</span> Only {pivot.label}
          </button>
          {pivot.canExclude ? (
            <button type="button" role="menuitem" tabIndex={-1} onClick={() => onPick(pivot, true)}>
              <span aria-hidden="true">−</span> Leave out {pivot.label}
            </button>
          ) : null}
        </div>
      ))}
    </div>
  );
}
