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
 * Rows a live check asks for while it is not known how many of the events it
 * counts are the newest row shown or sort below it: enough to find that row
 * among what arrived in one interval, and so learn it.
 */
export const LIVE_FIND_ROWS = 50;

/**
 * Of the events a live check counts (those whose sort key is at or after the
 * newest row's `created` as served: `minDate` is inclusive), how many are that
 * row or sort below it, when the screen tells. The key is the stored
 * `created`, which within a second served whole can be any of its
 * milliseconds (import and mirror spread a second's events over them), so
 * every event of that second counts, wherever it sorts. Counted events lead
 * the list: when a row not counted is on screen, or the list ends on this
 * page, all of them are on screen. A full page of counted rows may have more
 * on later pages, which are not new either (null). `events` are the rows on
 * screen, newest first.
 */
export function seenOnScreen(events: readonly ApiEvent[], pageSize: number): number | null {
  const since = events[0] ? parseApiDateTime(events[0].created) : null;
  if (since === null) return null;
  const counted = events.filter((event) => (parseApiDateTime(event.created) ?? 0) >= since).length;
  return counted < events.length || events.length < pageSize ? counted : null;
}

/**
 * The events newer than the newest row shown (`newestId`), from a live
 * check's answer: its count and the ids of its rows, newest first. `seen`
 * (seenOnScreen, or learned before) is how many counted events are not newer.
 * Where the rows include the newest shown, its place is the count, and tells
 * `seen` from then on; where neither tells, all the rows are newer, and at
 * least that many are shown.
 */
export function newerThanShown(
  answer: { totalCount: number; ids: readonly string[] },
  newestId: string,
  seen: number | null,
): { newer: number; seen: number | null } {
  const at = answer.ids.indexOf(newestId);
  if (at >= 0) return { newer: at, seen: answer.totalCount - at };
  if (seen !== null) return { newer: Math.max(0, answer.totalCount - seen), seen };
  return { newer: answer.ids.length, seen: null };
}

/**
 * How many events matching the list's filters are newer than the newest one
 * shown. Asks the API for the events at or after that event's `created`, with
 * the count, every few seconds, slower while the tab is hidden: one row once
 * it is known how many of them are not newer, else LIVE_FIND_ROWS to learn it
 * (newerThanShown). Nothing is fetched until the first interval has passed,
 * so a page change costs no extra request. `events` are the rows on screen,
 * newest first.
 */
export function useNewerCount(
  params: EventsListParams,
  events: readonly ApiEvent[],
  enabled: boolean,
): number {
  const newest = events[0];
  const newestId = newest?.id;
  const since = newest ? parseApiDateTime(newest.created) : null;
  const base = enabled && since !== null ? apiNewerPath(params, since) : null;
  // What is learned holds for this check and this newest row, whatever rows it asks for.
  const key = base === null ? null : `${base} ${newestId}`;
  const [result, setResult] = useState<{
    key: string;
    newer: number;
    seen: number | null;
  } | null>(null);
  const learned = result?.key === key ? result : null;
  const seen = seenOnScreen(events, params.size) ?? learned?.seen ?? null;
  const path =
    base === null
      ? null
      : base.replace(/([?&]itemsPerPage=)1(?=&|$)/, `$1${seen === null ? LIVE_FIND_ROWS : 1}`);

  useEffect(() => {
    if (path === null || key === null || newestId === undefined) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const list = await fetchApi<EventList>(path, controller.signal);
        const ids = list.results.map((event) => event.id);
        setResult({ key, ...newerThanShown({ totalCount: list.totalCount, ids }, newestId, seen) });
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
  }, [path, key, newestId, seen]);

  return learned?.newer ?? 0;
}
