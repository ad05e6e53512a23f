import type { SessionUse } from '@/lib/auth/session';
import { AUTOMATIC_RELOAD } from '@/lib/client/automatic-reload';
import { type HeaderReader, safeNextPath } from '@/lib/http/request';
import { splitTarget } from '@/lib/http/request-target';

/**
 * Whose a dashboard page load is: the user's activity, which keeps the
 * session from the idle timeout (lib/auth/session-activity.ts), or the
 * browser's own, which only checks it. The browser loads pages by itself
 * in two ways: the router's prefetch of links in view, and the outage
 * page's reload every Retry-After seconds (app/unavailable.tsx), which
 * would otherwise keep a tab left on it signed in for as long as the
 * outage lasts.
 *
 * That reload is a meta refresh, and its address carries a marker,
 * `reload=auto`: fetch metadata alone cannot tell it apart in every
 * browser. Chromium (as tried) and Firefox (as the spec says) send
 * `Sec-Fetch-User: ?1` for the user's navigations (typed, clicked, the
 * reload button) and none for a meta refresh, unless the user touched the
 * page in the 5 s before it; Safari sends it for none. So a load of a
 * marked address that says it is the user's is activity; in Safari, a
 * reload of the outage page is not (the page's own calls to the API still
 * are). Once a page is back, the browser drops the marker from the address
 * (app/providers.tsx), so the user's reloads, bookmarks and links from there
 * go unmarked.
 */

/** Next's cache key on a client navigation's request for a page (a fetch, not a document). */
const RSC_PARAM = /^_rsc(=|$)/;

/** The session use of a page load with these headers, to the request-target as received. */
export function pageLoadUse(headers: HeaderReader, target: string | undefined): SessionUse {
  if (
    headers.get('next-router-prefetch') !== null ||
    headers.get('next-router-segment-prefetch') !== null
  ) {
    return 'background';
  }
  const automatic =
    target !== undefined &&
    isDocumentLoad(headers) &&
    queryPairs(target).includes(AUTOMATIC_RELOAD) &&
    headers.get('sec-fetch-user') !== '?1';
  return automatic ? 'background' : 'activity';
}

/**
 * Whether the browser is loading the address as a document, as a meta
 * refresh does, and not the router fetching a page for a client navigation
 * (a click on a link): that fetch never carries Sec-Fetch-User, and a link
 * can still carry the marker (one copied, or a list remembered, before the
 * page dropped it from the address). A browser without fetch metadata sends
 * no mode.
 */
function isDocumentLoad(headers: HeaderReader): boolean {
  const mode = headers.get('sec-fetch-mode');
  return headers.get('rsc') === null && (mode === null || mode === 'navigate');
}

/**
 * For the outage page at `target` (the request-target as received): the
 * address its automatic reload goes to, the same marked, and the one its
 * "Try again" link goes to, the same unmarked. Without a target (the front
 * door did not see the request: one that came while `next start` was still
 * booting), or with one that is no plain path on this site, the page
 * reloads itself as it is, and that reload is activity.
 */
export function automaticReloadHrefs(target: string | undefined): {
  reload: string | undefined;
  retry: string;
} {
  const itself = { reload: undefined, retry: '' };
  if (target === undefined) return itself;
  const { path } = splitTarget(target);
  // Only a path on this site (a target of `//elsewhere` is no address to send the browser to).
  if (safeNextPath(path) !== path) return itself;
  const kept = queryPairs(target).filter(
    (pair) => pair !== AUTOMATIC_RELOAD && !RSC_PARAM.test(pair),
  );
  const withQuery = (pairs: string[]) => (pairs.length ? `${path}?${pairs.join('&')}` : path);
  const reload = withQuery([...kept, AUTOMATIC_RELOAD]);
  // The query as sent, checked whole as the path was: only an address on this site, as written.
  if (safeNextPath(reload) !== reload) return itself;
  return { reload, retry: withQuery(kept) };
}

/** The query's `name=value` pairs as sent (not decoded: the address the user sees stays as it was). */
function queryPairs(target: string): string[] {
  return splitTarget(target)
    .search.split('&')
    .filter((pair) => pair !== '');
}
