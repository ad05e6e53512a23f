'use client';

import { useCallback, useEffect, useLayoutEffect, useMemo, useSyncExternalStore } from 'react';
import { LOCAL_ZONE_COOKIE, detectLocalZone, zoneFor } from '@/lib/domain/dates';
import { rememberListSearch } from '@/lib/client/last-list';
import {
  type EventsView,
  eventsPath,
  eventsViewHref,
  parseEventsView,
} from '@/lib/client/url-state';

/** For a value read once from the browser, which never changes while the page shows. */
export const subscribeNever = () => () => {};

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

// The query string as a tiny external store. Our own changes notify it
// synchronously, so the table re-renders in the same task as the click
// instead of waiting for the router's transition; back/forward arrive as
// popstate.
const searchListeners = new Set<() => void>();

function subscribeToSearch(listener: () => void): () => void {
  searchListeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    searchListeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/**
 * Writes the history entry with the browser's own History methods. Next's
 * router patches pushState/replaceState to mirror every URL change into its
 * state, which re-renders the whole app in a transition and rewrites history
 * again: on this page that doubled the cost of a page change. The events page
 * reads its state from the URL itself, so it bypasses that, carrying Next's
 * entry state along so back/forward are still restored by Next's router.
 */
function writeHistory(mode: NavigateMode, href: string): void {
  // History.prototype's own methods, not window.history's patched ones.
  const state: unknown = window.history.state;
  if (mode === 'push') History.prototype.pushState.call(window.history, state, '', href);
  else History.prototype.replaceState.call(window.history, state, '', href);
}

/**
 * The view in the URL and the way to change it. Changes go through the
 * History API, so the URL and back/forward stay the source of truth and a
 * filter or page change never costs a server round trip for the page itself.
 *
 * `serverSearch` is the query the server rendered, used until hydration ends.
 */
export function useEventsView(orgId: string, localZone: string, serverSearch: string) {
  // While a link from another page (the event page's way back) renders this
  // one, the URL is still the old page's until Next writes it: the search the
  // server rendered for the link stands in, or the old page's query would be
  // fetched (and dropped) first.
  const currentSearch = useCallback(
    () => (window.location.pathname === eventsPath(orgId) ? window.location.search : serverSearch),
    [orgId, serverSearch],
  );
  const search = useSyncExternalStore(subscribeToSearch, currentSearch, () => serverSearch);
  const view = useMemo(
    () => parseEventsView(new URLSearchParams(search), localZone),
    [search, localZone],
  );
  const zone = zoneFor(view.tz, localZone);
  // A link of Next's own to this page (the header's organization link) renders
  // before Next writes its URL, and tells no listener once it has: read the
  // URL again after every commit, or the table keeps showing the old view.
  useLayoutEffect(() => {
    if (currentSearch() !== search) searchListeners.forEach((notify) => notify());
  });
  // For the event page's way back (lib/client/last-list.ts).
  useEffect(() => rememberListSearch(orgId, search), [orgId, search]);

  const navigate = useCallback(
    (next: EventsView, mode: NavigateMode = 'push') => {
      const href = eventsViewHref(orgId, next, localZone);
      const current = window.location.pathname + window.location.search;
      if (href === current) return;
      writeHistory(mode, href);
      searchListeners.forEach((notify) => notify());
    },
    [orgId, localZone],
  );

  return { view, search, zone, navigate };
}
