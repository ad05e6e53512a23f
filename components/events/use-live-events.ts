'use client';

import { useEffect, useState, useSyncExternalStore } from 'react';
import { type EventList, fetchApi } from '@/lib/client/api-client';
import type { ApiEvent } from '@/lib/client/present';
import { type EventsListParams, apiNewerPath } from '@/lib/client/url-state';
import { parseApiDateTime } from '@/lib/domain/dates';

/** How often the page asks for newer events while the tab is visible, and while hidden. */
export const LIVE_POLL_MS = 5_000;
export const LIVE_POLL_HIDDEN_MS = 30_000;

function subscribeVisibility(listener: () => void): () => void {
  document.addEventListener('visibilitychange', listener);
  return () => document.removeEventListener('visibilitychange', listener);
}

/** Whether the tab is visible (true on the server). */
export function usePageVisible(): boolean {
  return useSyncExternalStore(
    subscribeVisibility,
    () => document.visibilityState !== 'hidden',
    () => true,
  );
}

/**
 * How many events matching the list's filters are newer than the newest one
 * shown. Asks the API for the count of events at or after that event's
 * `created` (one row, includeCount) every few seconds, slower while the tab
 * is hidden, and subtracts the shown events sharing that instant. Nothing is
 * fetched until the first interval has passed, so a page change costs no
 * extra request. `events` are the rows on screen, newest first.
 */
export function useNewerCount(
  params: EventsListParams,
  events: readonly ApiEvent[],
  enabled: boolean,
): number {
  const newest = events[0];
  const since = newest ? parseApiDateTime(newest.created) : null;
  const sameInstant =
    since === null ? 0 : events.filter((event) => event.created === newest!.created).length;
  const path = enabled && since !== null ? apiNewerPath(params, since) : null;
  const [result, setResult] = useState<{ path: string; total: number } | null>(null);

  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const list = await fetchApi<EventList>(path, controller.signal);
        setResult({ path, total: list.totalCount });
      } catch {
        // A missed poll is retried at the next one.
      }
      if (!controller.signal.aborted) schedule();
    };
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(
        () => void tick(),
        document.visibilityState === 'hidden' ? LIVE_POLL_HIDDEN_MS : LIVE_POLL_MS,
      );
    };
    // Back to the tab: ask now rather than at the end of a hidden interval.
    const onVisibility = () => {
      if (document.visibilityState === 'visible') {
        clearTimeout(timer);
        void tick();
      }
    };
    schedule();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      controller.abort();
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [path]);

  if (path === null || result?.path !== path) return 0;
  return Math.max(0, result.total - sameInstant);
}
