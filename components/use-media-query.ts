'use client';

import { useCallback, useSyncExternalStore } from 'react';

/**
 * Whether the media query matches now, followed as the window changes. False
 * on the server and during hydration, so both renders match; the real answer
 * takes over right after.
 */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (listener: () => void) => {
      const list = window.matchMedia(query);
      list.addEventListener('change', listener);
      return () => list.removeEventListener('change', listener);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => window.matchMedia(query).matches,
    () => false,
  );
}
