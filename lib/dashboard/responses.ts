import { type ApiError, errorJson, methodNotAllowedHere, routeNotFound } from '@/lib/domain/errors';

/** Dashboard answers name a session's data: never cached. */
export const NO_STORE = { 'Cache-Control': 'no-store' };

/** A dashboard route's error: the service's one error body (lib/domain/errors.ts), JSON. */
export function errorResponse(error: ApiError, setCookie?: string): Response {
  const headers = new Headers({ 'Content-Type': 'application/json', ...NO_STORE });
  for (const [name, value] of error.headers) headers.set(name, value);
  if (setCookie) headers.append('Set-Cookie', setCookie);
  return new Response(errorJson(error), { status: error.status, headers });
}

/**
 * The handler of the methods a route does not serve: a JSON 405 naming those
 * it does (Allow). Without it Next answers 405 with an empty body.
 */
export function refuseMethod(allowed: readonly string[]): (request: Request) => Response {
  return (request) => errorResponse(methodNotAllowedHere(request.method, allowed));
}

/** Any /api/ path no route serves: the JSON 404, not Next's HTML page. */
export function unknownRoute(request: Request): Response {
  return errorResponse(routeNotFound(new URL(request.url).pathname));
}
