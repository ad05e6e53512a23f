import { API_PREFIX } from './types';

/** Every resource of the API, matched from a request path. */
export type Route =
  | { kind: 'openapi' }
  | { kind: 'orgs' }
  | { kind: 'org'; orgId: string }
  | { kind: 'events'; orgId: string }
  | { kind: 'event'; orgId: string; eventId: string }
  | { kind: 'eventTypes'; orgId: string };

/**
 * Matches a path (no query) to a route, or null. Segments are
 * percent-decoded; ids are only checked later (a malformed id is a 400, not
 * a 404, and only after authentication). One trailing slash is tolerated.
 */
export function matchRoute(path: string): Route | null {
  if (!path.startsWith(`${API_PREFIX}/`)) return null;
  let rest = path.slice(API_PREFIX.length + 1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  let segments: string[];
  try {
    segments = rest.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  const [first, orgId, child, eventId, ...extra] = segments;
  if (extra.length > 0) return null;
  if (first === 'openapi.json' && orgId === undefined) return { kind: 'openapi' };
  if (first !== 'orgs') return null;
  if (orgId === undefined) return { kind: 'orgs' };
  if (child === undefined) return { kind: 'org', orgId };
  if (child === 'events') {
    return eventId === undefined ? { kind: 'events', orgId } : { kind: 'event', orgId, eventId };
  }
  if (child === 'eventTypes' && eventId === undefined) return { kind: 'eventTypes', orgId };
  return null;
}

/** Splits a request-target into path and query (without '?'); tolerates the absolute form. */
export function splitTarget(target: string): { path: string; search: string } {
  let url = target;
  if (/^https?:\/\//i.test(url)) {
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    url = pathStart === -1 ? '/' : url.slice(pathStart);
  }
  const hash = url.indexOf('#');
  if (hash !== -1) url = url.slice(0, hash);
  const q = url.indexOf('?');
  return q === -1 ? { path: url, search: '' } : { path: url.slice(0, q), search: url.slice(q + 1) };
}

/** Whether a request-target belongs to the API (the custom server's fast path). */
export function isApiTarget(target: string | undefined): boolean {
  if (!target) return false;
  const { path } = splitTarget(target);
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}
