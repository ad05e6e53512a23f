/**
 * The query pair that marks the outage page's own reload
 * (lib/dashboard/page-load.ts reads it: a document load of a marked address
 * is not the user's activity unless the browser says so). Browser code
 * removes it once a page is shown, or it stays in the address bar: the events
 * list would remember it, the event page link back with it, a bookmark keep
 * it, and in Safari (no Sec-Fetch-User) the user's own reload of it would not
 * count.
 */
export const AUTOMATIC_RELOAD = 'reload=auto';

/** `search` (`?…` or '') without the marker pair; every other pair as written. */
export function withoutAutomaticReload(search: string): string {
  if (search === '') return search;
  const kept = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== AUTOMATIC_RELOAD);
  return kept.length ? `?${kept.join('&')}` : '';
}

/**
 * Removes the marker from the window's address, in place (no history entry).
 * Called with History's own method and Next's entry state, as the events page
 * writes its URL (components/events/use-events-view.ts): Next's patched one
 * would route the change through its router.
 */
export function dropAutomaticReload(window: Window): void {
  const { pathname, search, hash } = window.location;
  const cleaned = withoutAutomaticReload(search);
  if (cleaned === search) return;
  History.prototype.replaceState.call(
    window.history,
    window.history.state,
    '',
    pathname + cleaned + hash,
  );
}
