import { authenticate } from '@/lib/auth/authenticate';
import { getConfig } from '@/lib/config';
import { originForm } from '@/lib/http/front-door';
import { getStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import type { RouteContext, RouteResult } from './context';
import {
  type ApiError,
  CHALLENGE_BODY,
  CHALLENGE_CONTENT_TYPE,
  errorObject,
  methodNotAllowed,
  rateLimited,
  routeNotFound,
  toApiError,
} from '@/lib/domain/errors';
import { serviceHeaders } from './headers';
import { baseUrl } from './links';
import { openApiJson } from './openapi';
import { parseFormat, parseQuery } from './params';
import { matchRoute, serveOperation, splitTarget } from './routes';
import { formatBody } from './serialize';
import { PLAIN_FORMAT, type ApiRequest, type ApiResponse, type ResponseFormat } from './types';

export type { ApiRequest, ApiResponse } from './types';

/** Sent by the dashboard: its 401s must not trigger the browser's own Digest prompt. */
export const DASHBOARD_CLIENT_HEADER = 'x-org-events-client';

function success(result: RouteResult, format: ResponseFormat): ApiResponse {
  return {
    status: 200,
    headers: [...serviceHeaders()],
    body: formatBody(result.json, 200, format, result.shape),
  };
}

export function errorResponse(error: ApiError, format: ResponseFormat): ApiResponse {
  return {
    status: error.status,
    headers: [...serviceHeaders(), ['X-Error-Code', error.code], ...error.headers],
    body: formatBody(JSON.stringify(errorObject(error)), error.status, format, 'object'),
  };
}

function challengeResponse(request: ApiRequest, wwwAuthenticate: string): ApiResponse {
  const headers: [string, string][] = [['Content-Type', CHALLENGE_CONTENT_TYPE]];
  // The dashboard renders its own sign-in page; a WWW-Authenticate: Digest
  // would make the browser pop up its native credential dialog instead.
  if (request.headers.get(DASHBOARD_CLIENT_HEADER)?.toLowerCase() !== 'dashboard') {
    headers.unshift(['WWW-Authenticate', wwwAuthenticate]);
  }
  return { status: 401, headers, body: CHALLENGE_BODY };
}

export type ApiHandler = (request: ApiRequest) => Promise<ApiResponse>;

/**
 * The whole API as one function from request to response, with no
 * framework in sight. Order of checks: route (404) and method (405), then
 * authentication (401 challenge / 429), then the route's own checks
 * (malformed id 400, unknown org 404, no role 401, parameters 400), then
 * data. Nothing escapes: unexpected failures become a logged 500.
 */
export function createApiHandler(options: { store?: () => Promise<EventStore> } = {}): ApiHandler {
  const openStore = options.store ?? getStore;
  return async (request) => {
    let format: ResponseFormat = PLAIN_FORMAT;
    const { path, search } = splitTarget(request.url);
    try {
      const route = matchRoute(path);
      if (!route) throw routeNotFound(path);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        throw methodNotAllowed(request.method);
      }
      const params = parseQuery(search);
      if (route.operation === 'getOpenApiDocument') {
        format = parseFormat(params);
        return success({ json: openApiJson(baseUrl(request)), shape: 'object' }, format);
      }

      const store = await openStore();
      // A Digest `uri` is the origin form whether the request came through a
      // proxy in absolute form or not: the origin form is what it must match.
      const auth = await authenticate({ ...request, url: originForm(request.url) }, store);
      if ('challenge' in auth) return challengeResponse(request, auth.challenge.wwwAuthenticate);
      if ('throttled' in auth) throw rateLimited(auth.throttled.retryAfterSeconds);

      format = parseFormat(params);
      const ctx: RouteContext = {
        request,
        path,
        params,
        format,
        principal: auth.principal,
        store,
        config: getConfig(),
        base: baseUrl(request),
      };
      return success(await serveOperation(route, ctx), format);
    } catch (error) {
      return errorResponse(toApiError(error, `${request.method} ${path}`), format);
    }
  };
}

const defaultHandler = createApiHandler();

/** Serves every route under /api/public/v1.0 over the process's store. */
export function handleApiRequest(request: ApiRequest): Promise<ApiResponse> {
  return defaultHandler(request);
}
