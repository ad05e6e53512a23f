/**
 * A request-target read as the server reads it (RFC 9112 §3.2): pure, so
 * the router, the front door and the Digest check (which the mirror's
 * client shares) read one way.
 */

import { API_PREFIX } from '@/lib/domain/limits';

/**
 * `http://host:80/a?b` (absolute form, as sent to a proxy) -> `/a?b`;
 * anything else unchanged. The authority ends at the first `/`, `?` or `#`:
 * in `http://h#/a` the `/a` is the fragment's, and the target is h's root.
 */
export function originForm(target: string): string {
  const absolute = /^https?:\/\/[^/?#]*/i.exec(target);
  if (!absolute) return target;
  const rest = target.slice(absolute[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/** A target's path and query (without `?`), in either form; a fragment dropped. */
export function splitTarget(target: string): { path: string; search: string } {
  let url = originForm(target);
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
