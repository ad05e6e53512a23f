import { canReadOrgEvents, type Principal } from '@/lib/auth/principal';
import type { Config } from '@/lib/config';
import { isObjectId } from '@/lib/events/object-id';
import type { EventStore, Org } from '@/lib/store/types';
import { malformedPath, orgNotFound, userUnauthorized } from './errors';
import type { QueryParam } from './params';
import type { ApiRequest, ResponseFormat } from './types';

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

/** A handler's answer: finished JSON (before envelope/pretty) and whether it is a list. */
export type RouteResult = { json: string; shape: 'object' | 'list' };

/**
 * The organization, if the caller may read its events. In this order: a
 * malformed id is a 400, an unknown org a 404, and an org where the key
 * holds no reader role a 401 USER_UNAUTHORIZED, as the real service answers.
 */
export async function requireReadableOrg(ctx: RouteContext, orgId: string): Promise<Org> {
  if (!isObjectId(orgId)) throw malformedPath(ctx.path);
  const org = await ctx.store.getOrg(orgId);
  if (!org) throw orgNotFound(orgId);
  if (!(await canReadOrgEvents(ctx.store, ctx.principal, orgId))) throw userUnauthorized();
  return org;
}
