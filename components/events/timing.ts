'use client';

import { useEffect, useState } from 'react';

/** `value`, but turning true only once it has stayed true for `delayMs`. */
export function useDelayedFlag(value: boolean, delayMs: number): boolean {
  const [delayed, setDelayed] = useState(false);
  useEffect(() => {
    if (!value) return;
    const timer = setTimeout(() => setDelayed(true), delayMs);
    return () => {
      clearTimeout(timer);
      setDelayed(false);
    };
  }, [value, delayMs]);
  return value && delayed;
}

/** Runs work when the browser is idle (or soon, where it has no idle callback). */
export function whenIdle(work: () => void): () => void {
  if (typeof window.requestIdleCallback === 'function') {
    const handle = window.requestIdleCallback(work, { timeout: 500 });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = window.setTimeout(work, 50);
  return () => window.clearTimeout(handle);
}
