'use client';

import { useEffect, useState, useSyncExternalStore } from 'react';
import { useNow } from '@/components/use-now';
import { type EventList, fetchApiDated } from '@/lib/client/api-client';
import { sendToSignInOnExpiredSession } from '@/lib/client/query-client';
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
 * The shown row a live check counts from, and the instant it asks from
 * (`minDate`, inclusive): the newest row not after `present` (the server's
 * clock where known). A row dated in the future (a source with a wrong
 * clock) sorts above everything arriving now, so counting only what is
 * newer than the top row would never notice them; the rows above the
 * reference are on screen, and are not new. With every row in the future:
 * on a full page, the oldest of them (what arrives now lands on later pages,
 * and only another future one would be shown); else the whole list is on
 * screen, and the check counts all of it (index -1, from the epoch). Null
 * with no rows. `events` are the rows on screen, newest first.
 */
export function liveReference(
  events: readonly ApiEvent[],
  present: number,
  pageSize: number,
): { index: number; since: number } | null {
  if (events.length === 0) return null;
  const created = events.map((event) => parseApiDateTime(event.created));
  const index = created.findIndex((at) => at !== null && at <= present);
  if (index >= 0) return { index, since: created[index]! };
  const last = created[created.length - 1];
  if (events.length >= pageSize && last !== null && last !== undefined) {
    return { index: events.length - 1, since: last };
  }
  return { index: -1, since: 0 };
}

/**
 * Of the events a live check counts (those whose sort key is at or after
 * `since`, the reference row's `created` as served: `minDate` is inclusive),
 * how many are on screen, when the screen tells: the rows above the
 * reference, and every event of its second, wherever it sorts. The key is
 * the stored `created`, which within a second served whole can be any of its
 * milliseconds (import and mirror spread a second's events over them).
 * Counted events lead the list: when a row not counted is on screen, or the
 * list ends on this page, all of them are on screen. A full page of counted
 * rows may have more on later pages, which are not new either (null).
 * `events` are the rows on screen, newest first.
 */
export function seenOnScreen(
  events: readonly ApiEvent[],
  pageSize: number,
  since: number,
): number | null {
  const counted = events.filter((event) => (parseApiDateTime(event.created) ?? 0) >= since).length;
  return counted < events.length || events.length < pageSize ? counted : null;
}

/**
 * The events not on screen among those a live check counts, from its
 * answer: its count and the ids of its rows, newest first. `referenceId` is
 * the reference row (liveReference; null when there is none), `above` the
 * rows shown above it, and `seen` (seenOnScreen, or learned before) how many
 * counted events are not new. Where the rows include the reference, the rows
 * before it not shown are the new ones, and tell `seen` from then on; where
 * they hold every counted event, so do those not shown; where neither tells,
 * the rows not shown are new, and at least that many are.
 */
export function newerThanShown(
  answer: { totalCount: number; ids: readonly string[] },
  referenceId: string | null,
  seen: number | null,
  above: readonly string[] = [],
): { newer: number; seen: number | null } {
  const shown = new Set(above);
  if (referenceId !== null) shown.add(referenceId);
  const fresh = (ids: readonly string[]) => ids.filter((id) => !shown.has(id)).length;
  const at = referenceId === null ? -1 : answer.ids.indexOf(referenceId);
  if (at >= 0) {
    const newer = fresh(answer.ids.slice(0, at));
    return { newer, seen: answer.totalCount - newer };
  }
  if (seen !== null) return { newer: Math.max(0, answer.totalCount - seen), seen };
  const newer = fresh(answer.ids);
  return { newer, seen: answer.ids.length >= answer.totalCount ? answer.totalCount - newer : null };
}

/**
 * How many events matching the list's filters are new: not on screen, and
 * sorting above the reference row (liveReference), the newest shown not
 * after the present. Asks the API for the events at or after that row's
 * `created`, with the count, every few seconds, slower while the tab is
 * hidden: one row once it is known how many of them are on screen, else
 * LIVE_FIND_ROWS to learn it (newerThanShown). The present is the browser's
 * clock corrected by the server's (the answers' `Date` header). Nothing is
 * fetched until the first interval has passed, so a page change costs no
 * extra request. `events` are the rows on screen, newest first.
 */
export function useNewerCount(
  params: EventsListParams,
  events: readonly ApiEvent[],
  enabled: boolean,
): number {
  const clock = useNow();
  // Server clock minus the browser's, cut down to whole seconds (the header's).
  const [skew, setSkew] = useState(0);
  const reference =
    enabled && clock !== null ? liveReference(events, clock + skew, params.size) : null;
  const referenceId = reference && reference.index >= 0 ? events[reference.index]!.id : null;
  const aboveKey = reference
    ? events
        .slice(0, reference.index < 0 ? events.length : reference.index)
        .map((event) => event.id)
        .join(' ')
    : '';
  // What is learned holds for this check and these rows, whatever rows it asks for.
  const key =
    reference === null
      ? null
      : `${apiNewerPath(params, reference.since)} ${referenceId} ${aboveKey}`;
  const [result, setResult] = useState<{
    key: string;
    newer: number;
    seen: number | null;
  } | null>(null);
  const learned = result?.key === key ? result : null;
  const seen =
    reference === null
      ? null
      : (seenOnScreen(events, params.size, reference.since) ?? learned?.seen ?? null);
  const path =
    reference === null
      ? null
      : apiNewerPath(params, reference.since, seen === null ? LIVE_FIND_ROWS : 1);

  useEffect(() => {
    if (path === null || key === null) return;
    const above = aboveKey ? aboveKey.split(' ') : [];
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        // Asked by the page, not the user: it keeps no session from its idle timeout.
        const { body: list, date } = await fetchApiDated<EventList>(path, controller.signal, {
          background: true,
        });
        if (date !== null) setSkew(Math.floor((date - Date.now()) / 1000) * 1000);
        const ids = list.results.map((event) => event.id);
        setResult({
          key,
          ...newerThanShown({ totalCount: list.totalCount, ids }, referenceId, seen, above),
        });
      } catch (error) {
        // A missed poll is retried at the next one; an ended session (401)
        // goes to sign-in, as a query's does, rather than asking on forever.
        sendToSignInOnExpiredSession(error);
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
  }, [path, key, referenceId, aboveKey, seen]);

  return learned?.newer ?? 0;
}
