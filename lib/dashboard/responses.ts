import {
  ApiError,
  errorJson,
  methodNotAllowedHere,
  routeNotFound,
  toApiError,
} from '@/lib/domain/errors';
import { wireFactsFromHeaders } from '@/lib/http/front-door';
import { splitTarget } from '@/lib/http/request-target';
import { getLogger } from '@/lib/ops/log';

/** Dashboard answers name a session's data: never cached. */
export const NO_STORE = { 'Cache-Control': 'no-store' };

/** A dashboard route's error: the service's one error body (lib/domain/errors.ts), JSON, and its code in X-Error-Code as the API's. */
export function errorResponse(error: ApiError, setCookies: readonly string[] = []): Response {
  const headers = new Headers({
    'Content-Type': 'application/json',
    ...NO_STORE,
    'X-Error-Code': error.code,
  });
  for (const [name, value] of error.headers) headers.set(name, value);
  for (const cookie of setCookies) headers.append('Set-Cookie', cookie);
  return new Response(errorJson(error), { status: error.status, headers });
}

/**
 * The handler of the methods a route does not serve: a JSON 405 naming those
 * it does (Allow). Without it Next answers 405 with an empty body.
 */
export function refuseMethod(allowed: readonly string[]): (request: Request) => Response {
  return (request) => errorResponse(methodNotAllowedHere(request.method, allowed));
}

/**
 * Any /api/ path no route serves: the JSON 404, not Next's HTML page. It
 * names the path as the client sent it: a miscased one (`/API/…`) reaches
 * this route as `/api` (lib/api/routes.ts nextRoutingTarget).
 */
export function unknownRoute(request: Request): Response {
  const wire = wireFactsFromHeaders(request.headers);
  const path = wire ? splitTarget(wire.target).path : new URL(request.url).pathname;
  return errorResponse(routeNotFound(path));
}

/**
 * A dashboard route's failure in the error model: the store or Redis away
 * is its 503 with Retry-After (it was a 500 from Next for sign-in); anything
 * else a 500 whose cause goes to the log, never to the client. The store's
 * 503 is logged with its cause too, as a warning: the request's own line
 * (written on the other thread) says only "service unavailable", and a
 * full disk refusing saved views left no trace of why.
 */
export function failureResponse(error: unknown, what: string): Response {
  const mapped = toApiError(error);
  if (mapped.status >= 500 && mapped.status !== 503) getLogger().error({ err: error }, what);
  // Redis away is our own ApiError, its detail already the answer's.
  else if (mapped.status === 503 && !(error instanceof ApiError)) {
    getLogger().warn({ err: error }, what);
  }
  return errorResponse(mapped);
}
