import { withoutAutomaticReload } from './automatic-reload';

/**
 * The query of the events list last shown for an org, in this tab
 * (sessionStorage): an event's own page links back to the list as it was
 * (its filters, page and open panel), not to the whole unfiltered list.
 * Storage that refuses (a privacy mode, a full quota) leaves the plain link.
 */
const keyOf = (orgId: string) => `org-events:list:${orgId}`;

export function rememberListSearch(orgId: string, search: string): void {
  try {
    // The list's effect runs before the one that drops the outage page's
    // marker from the address (app/providers.tsx: a child's effects run first).
    window.sessionStorage.setItem(keyOf(orgId), withoutAutomaticReload(search));
  } catch {
    // Not remembered: the event page links to the whole list.
  }
}

/** The remembered query (`?…`, or '' for the whole list); null when none is. */
export function lastListSearch(orgId: string): string | null {
  try {
    const search = window.sessionStorage.getItem(keyOf(orgId));
    return search === null || search === '' || search.startsWith('?') ? search : null;
  } catch {
    return null;
  }
}
