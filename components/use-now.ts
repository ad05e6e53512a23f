'use client';

import { useSyncExternalStore } from 'react';

/**
 * The current time for relative labels ("5 minutes ago"), refreshed every
 * 30 seconds. Null on the server and during hydration, so server and client
 * markup always match; relative labels appear right after.
 */
const TICK_MS = 30_000;
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  now = Date.now();
  timer ??= setInterval(() => {
    now = Date.now();
    listeners.forEach((notify) => notify());
  }, TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

export function useNow(): number | null {
  return useSyncExternalStore<number | null>(
    subscribe,
    () => now,
    () => null,
  );
}
