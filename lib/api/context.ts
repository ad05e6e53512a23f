import { canReadOrgEvents, type Principal } from '@/lib/auth/principal';
import type { Config } from '@/lib/config';
import { isObjectId } from '@/lib/domain/object-id';
import type { EventStore, Org } from '@/lib/store/types';
import { malformedPath, orgNotFound, userUnauthorized } from '@/lib/domain/errors';
import type { QueryParam } from './params';
import type { ApiRequest, ResponseFormat, StreamingBody } from './types';

/** What a route handler gets: an authenticated caller and the parsed request. */
export type RouteContext = {
  request: ApiRequest;
  /** The request path, without query. */
  path: string;
  params: readonly QueryParam[];
  format: ResponseFormat;
  principal: Principal;
  store: EventStore;
  config: Config;
  /** Scheme and host for links, e.g. https://ops.example.com:8443 */
  base: string;
};

/** What reading an org's events needs once the caller is authorized (also the admin CLI's). */
export type ReadContext = Pick<RouteContext, 'path' | 'params' | 'store' | 'config' | 'base'>;

/**
 * A handler's answer: finished JSON (before envelope/pretty) and whether it
 * is a list, or a streamed body with its own headers (pretty and envelope do
 * not apply to it).
 */
export type RouteResult =
  | { json: string; shape: 'object' | 'list' }
  | { stream: StreamingBody; headers: [string, string][] };

// Organizations are never deleted or renamed through the store, so a found
// org can be remembered: one query less on every request. Per store, bounded.
const ORG_CACHE_KEY = Symbol.for('org-events.api-org-cache');
type OrgCacheHolder = { [ORG_CACHE_KEY]?: WeakMap<EventStore, Map<string, Org>> };
const MAX_CACHED_ORGS = 10_000;

async function findOrg(store: EventStore, orgId: string): Promise<Org | null> {
  const holder = globalThis as OrgCacheHolder;
  const caches = (holder[ORG_CACHE_KEY] ??= new WeakMap<EventStore, Map<string, Org>>());
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map<string, Org>()));
  const cached = cache.get(orgId);
  if (cached) return cached;
  const org = await store.getOrg(orgId);
  if (org) {
    if (cache.size >= MAX_CACHED_ORGS) cache.clear();
    cache.set(orgId, org);
  }
  return org;
}

/**
 * The organization, if the caller may read its events. In this order: a
 * malformed id is a 400, an unknown org a 404, and an org where the key
 * holds no reader role a 401 USER_UNAUTHORIZED, as the real service answers.
 */
export async function requireReadableOrg(ctx: RouteContext, orgId: string): Promise<Org> {
  if (!isObjectId(orgId)) throw malformedPath(ctx.path);
  const org = await findOrg(ctx.store, orgId);
  if (!org) throw orgNotFound(orgId);
  if (!(await canReadOrgEvents(ctx.store, ctx.principal, orgId))) throw userUnauthorized();
  return org;
}
