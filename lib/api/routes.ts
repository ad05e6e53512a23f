import type { RouteContext, RouteResult } from './context';
import { listEventTypes } from './event-types';
import { eventFacets, eventHistogram, getEvent, listEvents } from './events';
import { exportEvents } from './export';
import { getOrg, listOrgs } from './orgs';
import { API_PREFIX } from './types';
import { isApiTarget, splitTarget } from '@/lib/http/request-target';

// Written in request-target.ts, which the front door reads without loading
// the API's handlers; still offered here beside the table it routes by.
export { isApiTarget };

/** `{orgId}` and `{eventId}` of a path pattern, as an object type. */
type PathParams<Pattern extends string> = Pattern extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name]: string } & PathParams<Rest>
  : unknown;

type Operation = {
  /** Under API_PREFIX, `{name}` for one path segment. */
  path: string;
  /** Null for the one public operation (the API's own description), answered by handler.ts. */
  serve:
    | ((ctx: RouteContext, params: Readonly<Record<string, string>>) => Promise<RouteResult>)
    | null;
};

/** An authenticated operation; its handler gets the pattern's `{name}` segments, typed. */
function operation<Pattern extends string>(
  path: Pattern,
  serve: (ctx: RouteContext, params: PathParams<Pattern>) => Promise<RouteResult>,
): Operation {
  // matchRoute binds exactly the pattern's names, so the record has the shape serve expects.
  return { path, serve: (ctx, params) => serve(ctx, params as PathParams<Pattern>) };
}

/**
 * The route table: every operation of the API, GET (and HEAD) only, by its
 * OpenAPI operationId (the official schema's where it has one: listOrgEvents,
 * getOrgEvent). Both front doors go through it:
 * handler.ts matches the request-target here (server.ts's fast path and the
 * Next route handlers alike), and each file under app/api/public/v1.0 names
 * the operation its folder serves (routes.test.ts checks the folders against
 * these paths).
 */
export const OPERATIONS = {
  getOpenApiDocument: { path: '/openapi.json', serve: null },
  listOrgs: operation('/orgs', (ctx) => listOrgs(ctx)),
  getOrg: operation('/orgs/{orgId}', (ctx, { orgId }) => getOrg(ctx, orgId)),
  listOrgEvents: operation('/orgs/{orgId}/events', (ctx, { orgId }) => listEvents(ctx, orgId)),
  getOrgEventFacets: operation('/orgs/{orgId}/events/facets', (ctx, { orgId }) =>
    eventFacets(ctx, orgId),
  ),
  getOrgEventHistogram: operation('/orgs/{orgId}/events/histogram', (ctx, { orgId }) =>
    eventHistogram(ctx, orgId),
  ),
  exportOrgEvents: operation('/orgs/{orgId}/events/export', (ctx, { orgId }) =>
    exportEvents(ctx, orgId),
  ),
  getOrgEvent: operation('/orgs/{orgId}/events/{eventId}', (ctx, { orgId, eventId }) =>
    getEvent(ctx, orgId, eventId),
  ),
  listOrgEventTypes: operation('/orgs/{orgId}/eventTypes', (ctx, { orgId }) =>
    listEventTypes(ctx, orgId),
  ),
} satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

export const OPERATION_NAMES = Object.keys(OPERATIONS) as OperationName[];

/** A request path matched to its operation, with the path's `{name}` segments decoded. */
export type RouteMatch = { operation: OperationName; params: Record<string, string> };

/**
 * Patterns with more literal segments first, so `/events/facets` is never
 * taken for an event id whatever the table's order (ids are 24 hex digits).
 */
const PATTERNS = OPERATION_NAMES.map((name) => ({
  name,
  segments: OPERATIONS[name].path.slice(1).split('/'),
})).sort(
  (a, b) =>
    b.segments.filter((s) => !s.startsWith('{')).length -
    a.segments.filter((s) => !s.startsWith('{')).length,
);

/**
 * Matches a path (no query) to an operation, or null. Segments are
 * percent-decoded before they are compared or bound; ids are only checked
 * later (a malformed id is a 400, not a 404, and only after authentication).
 * One trailing slash is tolerated.
 */
export function matchRoute(path: string): RouteMatch | null {
  if (!path.startsWith(`${API_PREFIX}/`)) return null;
  let rest = path.slice(API_PREFIX.length + 1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  let segments: string[];
  try {
    segments = rest.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  for (const pattern of PATTERNS) {
    if (pattern.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.segments.every((expected, i) => {
      const actual = segments[i]!;
      if (expected.startsWith('{')) {
        params[expected.slice(1, -1)] = actual;
        return true;
      }
      return expected === actual;
    });
    if (matches) return { operation: pattern.name, params };
  }
  return null;
}

/**
 * Where Next should route an API request so that the route file of the
 * table's operation runs (the catch-all when the table has none). Next
 * answers `//`, a backslash or a trailing slash with its own 308 before any
 * route file runs, and may trip over encodings the table accepts; the file
 * Next picks only has to be the right one, since the handler matches the
 * request-target as received (lib/http/front-door.ts keeps it) against this
 * table, exactly as server.ts's fast path does. Other targets are unchanged.
 */
export function nextRoutingTarget(target: string): string {
  const { path, search } = splitTarget(target);
  // The dashboard's /api catch-all (app/api/[[...path]]) answers the JSON 404.
  if (isMiscasedApiPath(path)) return '/api';
  if (!isApiTarget(path)) return target;
  const match = matchRoute(path);
  // An empty or dot segment cannot reach a dynamic route file (Next would
  // redirect or resolve it away): the catch-all answers those.
  const routable = (value: string) => value !== '' && value !== '.' && value !== '..';
  const routed =
    match && Object.values(match.params).every(routable)
      ? `${API_PREFIX}${OPERATIONS[match.operation].path.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeURIComponent(match.params[name]!),
        )}`
      : API_PREFIX;
  return search ? `${routed}?${search}` : routed;
}

/**
 * `/API/…`, `/Api`, `/%41PI/…`: the /api namespace with its first segment in
 * another case. Next matches route folders by case, so such a path (an API
 * client's typo) got the dashboard's HTML not-found page where `/api/…` gets
 * the JSON 404 of the service's error body. Next decodes the path before
 * matching, so the segment is compared decoded (escape by escape: only ASCII
 * spells api, and a `%` that begins no escape stays as it is).
 */
function isMiscasedApiPath(path: string): boolean {
  const first = path
    .split('/', 2)[1]
    ?.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return first !== undefined && first !== 'api' && first.toLowerCase() === 'api';
}

/** Runs an authenticated operation (every one but the public OpenAPI document). */
export function serveOperation(match: RouteMatch, ctx: RouteContext): Promise<RouteResult> {
  const { serve } = OPERATIONS[match.operation];
  if (!serve) throw new Error(`${match.operation} is not an authenticated operation`);
  return serve(ctx, match.params);
}
