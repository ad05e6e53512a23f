'use client';

import { useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react';
import { LOCAL_ZONE_COOKIE, detectLocalZone, zoneFor } from '@/lib/format/date';
import { type EventsView, eventsViewHref, parseEventsView } from '@/lib/events/search-params';

const subscribeNever = () => () => {};

/**
 * The browser's zone. The server renders with the zone the browser reported
 * last time (a cookie), hydration uses the same value, and the real one takes
 * over right after, so local times never mismatch between the two renders.
 */
export function useLocalZone(serverZone: string): string {
  const zone = useSyncExternalStore(subscribeNever, detectLocalZone, () => serverZone);
  useEffect(() => {
    if (zone !== serverZone) {
      document.cookie = `${LOCAL_ZONE_COOKIE}=${encodeURIComponent(zone)}; Path=/; Max-Age=31536000; SameSite=Strict`;
    }
  }, [zone, serverZone]);
  return zone;
}

export type NavigateMode = 'push' | 'replace';

/**
 * The view in the URL and the way to change it. Changes go through the
 * History API, which Next's router observes: the URL (and back/forward) stay
 * the source of truth, and no server round trip happens for a filter change.
 */
export function useEventsView(orgId: string, localZone: string) {
  const searchParams = useSearchParams();
  const view = useMemo(
    () => parseEventsView(new URLSearchParams(searchParams.toString()), localZone),
    [searchParams, localZone],
  );
  const zone = zoneFor(view.tz, localZone);

  const navigate = useCallback(
    (next: EventsView, mode: NavigateMode = 'push') => {
      const href = eventsViewHref(orgId, next, localZone);
      const current = window.location.pathname + window.location.search;
      if (href === current) return;
      if (mode === 'push') window.history.pushState(null, '', href);
      else window.history.replaceState(null, '', href);
    },
    [orgId, localZone],
  );

  return { view, zone, navigate };
}
