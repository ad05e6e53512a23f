import { authenticate } from '@/lib/auth/authenticate';
import { parseAuthorization } from '@/lib/auth/digest';
import { getConfig } from '@/lib/config';
import { clientAddress } from '@/lib/http/client-address';
import { originForm, splitTarget } from '@/lib/http/request-target';
import { recordRequest, type RequestRecord } from '@/lib/ops/access-log';
import { REQUEST_ID_HEADER, requestIdFor } from '@/lib/ops/request-id';
import { isObjectId } from '@/lib/domain/object-id';
import { getStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import type { RouteContext, RouteResult } from './context';
import {
  ApiError,
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
import { parseFormat, parseQuery, type QueryParam, variantTakesParameter } from './params';
import { matchRoute, serveOperation } from './routes';
import { formatBody } from './serialize';
import {
  ClientStalledError,
  PLAIN_FORMAT,
  type ApiRequest,
  type ApiResponse,
  type ResponseFormat,
  type StreamingBody,
} from './types';
import {
  DASHBOARD_CLIENT_HEADER,
  DASHBOARD_CLIENT_VALUE,
  PUBLIC_KEY_PATTERN,
} from '@/lib/domain/limits';

export type { ApiRequest, ApiResponse } from './types';

function success(result: RouteResult, format: ResponseFormat): ApiResponse {
  if ('stream' in result) {
    // The stream's own headers win over the service's (its Content-Type).
    const own = new Set(result.headers.map(([name]) => name.toLowerCase()));
    return {
      status: 200,
      headers: [
        ...serviceHeaders().filter(([name]) => !own.has(name.toLowerCase())),
        ...result.headers,
      ],
      body: '',
      stream: result.stream,
    };
  }
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

/** The challenge body's members, compact, in its own (not alphabetical) order. */
const CHALLENGE_JSON = JSON.stringify(JSON.parse(CHALLENGE_BODY));

function challengeResponse(
  request: ApiRequest,
  wwwAuthenticate: string,
  format: ResponseFormat,
): ApiResponse {
  const headers: [string, string][] = [
    ['Vary', 'Accept-Encoding'],
    ['Content-Type', CHALLENGE_CONTENT_TYPE],
  ];
  // The dashboard renders its own sign-in page; a WWW-Authenticate: Digest
  // would make the browser pop up its native credential dialog instead.
  if (request.headers.get(DASHBOARD_CLIENT_HEADER)?.toLowerCase() !== DASHBOARD_CLIENT_VALUE) {
    headers.unshift(['WWW-Authenticate', wwwAuthenticate]);
  }
  // The spec reports the status in the body under envelope=true, and says so
  // of its one listed error, this 401. Without envelope the body stays the
  // real one byte for byte: already pretty, so pretty changes nothing.
  const body = format.envelope ? formatBody(CHALLENGE_JSON, 401, format, 'object') : CHALLENGE_BODY;
  return { status: 401, headers, body };
}

/**
 * The format for answers given before the query is checked (404, 405, the
 * challenge, 429, a store failure), and for the 400 of a malformed one:
 * envelope and pretty as asked, so a client that reads the status from the
 * body gets it there too. Each is read on its own, a malformed one as absent
 * (`envelope=true&pretty=yes` is answered enveloped: the malformed pretty
 * took the envelope with it).
 */
function formatAsAsked(params: readonly QueryParam[]): ResponseFormat {
  const flag = (name: keyof ResponseFormat): boolean => {
    try {
      return parseFormat(params.filter((param) => param.name === name))[name];
    } catch {
      return PLAIN_FORMAT[name];
    }
  };
  return { pretty: flag('pretty'), envelope: flag('envelope') };
}

/**
 * The query as this variant knows it (variantTakesParameter). Dropped here,
 * before any route reads the query (so every events endpoint, export
 * included), a parameter the variant does not take is ignored as an unknown
 * one is, except that a list's `self` link, which repeats an unknown one,
 * leaves it out.
 */
function variantParams(params: QueryParam[]): QueryParam[] {
  const variant = getConfig().EVENTS_VARIANT;
  const takes = (param: QueryParam) => variantTakesParameter(variant, param.name);
  return params.every(takes) ? params : params.filter(takes);
}

export type ApiHandler = (request: ApiRequest) => Promise<ApiResponse>;

/** What the handler learned about a request on its way to an answer: the log line's fields. */
type Facts = Pick<RequestRecord, 'route' | 'orgId' | 'publicKey' | 'auth' | 'err'>;

/**
 * The Digest username of a refused request, for the log, when it has a
 * public key's shape: credentials given the wrong way round (`-u PRIVATE:PUBLIC`)
 * put the private key there, and it must never reach a log (as sign-in).
 */
function claimedPublicKey(request: ApiRequest): string | undefined {
  const parsed = parseAuthorization(request.headers.get('authorization'));
  const username = parsed.scheme === 'digest' ? parsed.credentials?.username : undefined;
  return username && PUBLIC_KEY_PATTERN.test(username) ? username : undefined;
}

/**
 * The whole API as one function from request to response, with no
 * framework in sight. Order of checks: route (404) and method (405), then
 * authentication (401 challenge / 429), then the route's own checks
 * (malformed id 400, unknown org 404, no role 401, parameters 400), then
 * data. Nothing escapes: unexpected failures become a logged 500.
 *
 * Every answer carries X-Request-Id (the client's or proxy's when sane, else
 * a new one) and is written to the log as one line and counted in the
 * metrics (lib/ops), the same through both front doors.
 */
export function createApiHandler(options: { store?: () => Promise<EventStore> } = {}): ApiHandler {
  const openStore = options.store ?? getStore;

  const answer = async (request: ApiRequest, facts: Facts): Promise<ApiResponse> => {
    const { path, search } = splitTarget(request.url);
    const params = variantParams(parseQuery(search));
    let format = formatAsAsked(params);
    try {
      const route = matchRoute(path);
      if (!route) throw routeNotFound(path);
      facts.route = route.operation;
      if (route.params.orgId && isObjectId(route.params.orgId)) facts.orgId = route.params.orgId;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        throw methodNotAllowed(request.method);
      }
      if (route.operation === 'getOpenApiDocument') {
        format = parseFormat(params);
        return success({ json: openApiJson(baseUrl(request)), shape: 'object' }, format);
      }

      const store = await openStore();
      // A Digest `uri` is the origin form whether the request came through a
      // proxy in absolute form or not: the origin form is what it must match.
      const auth = await authenticate({ ...request, url: originForm(request.url) }, store);
      if ('challenge' in auth) {
        const { reason, stale } = auth.challenge;
        facts.auth = { outcome: 'challenge', reason, stale };
        facts.publicKey = claimedPublicKey(request);
        return challengeResponse(request, auth.challenge.wwwAuthenticate, format);
      }
      if ('throttled' in auth) {
        facts.auth = { outcome: 'lockout', retryAfterSeconds: auth.throttled.retryAfterSeconds };
        facts.publicKey = claimedPublicKey(request);
        throw rateLimited(auth.throttled.retryAfterSeconds);
      }
      facts.publicKey = auth.principal.publicKey;

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
      if (error instanceof ApiError) return errorResponse(error, format);
      // Not one of ours (a bug, or the store unreachable): the request's log
      // line carries it, with its stack, under this request's id.
      facts.err = error;
      return errorResponse(toApiError(error), format);
    }
  };

  return async (request) => {
    const started = performance.now();
    const requestId = request.requestId ?? requestIdFor(request.headers.get(REQUEST_ID_HEADER));
    const facts: Facts = { route: 'unmatched' };
    const response = await answer(request, facts);
    response.headers.push([REQUEST_ID_HEADER, requestId]);
    const record = (status: number) =>
      recordRequest({
        requestId,
        method: request.method.slice(0, 16),
        ...facts,
        status,
        durationMs: performance.now() - started,
        clientAddress: clientAddress(request),
      });
    // A streamed body (an export) is logged when it ends, so its duration is
    // the whole transfer rather than the time to its first byte.
    if (response.stream && request.method !== 'HEAD') {
      response.stream = loggedAtEnd(response.stream, response.status, facts, record);
    } else record(response.status);
    return response;
  };
}

/**
 * The stream, writing its request's log line once, when it ends: read out
 * (the response's status), cancelled first (499, as the front door logs a
 * response cut short: the client went away), ended for a client that took
 * nothing for too long (408), or failed (503 for a store outage, else 500,
 * with the error; the client saw a cut connection).
 */
function loggedAtEnd(
  stream: StreamingBody,
  status: number,
  facts: Facts,
  record: (status: number) => void,
): StreamingBody {
  let logged = false;
  const once = (final: number) => {
    if (logged) return;
    logged = true;
    record(final);
  };
  return {
    async read() {
      try {
        const chunk = await stream.read();
        if (chunk === null) once(status);
        return chunk;
      } catch (error) {
        if (error instanceof ClientStalledError) once(408);
        else {
          facts.err = error;
          // The database gone mid-body is logged as the outage it is (503),
          // anything else as a bug (500); the client sees a cut connection.
          once(toApiError(error).status);
        }
        throw error;
      }
    },
    async cancel() {
      once(499);
      await stream.cancel();
    },
    ...(stream.stalled && { stalled: stream.stalled }),
  };
}

const defaultHandler = createApiHandler();

/** Serves every route under /api/public/v1.0 over the process's store. */
export function handleApiRequest(request: ApiRequest): Promise<ApiResponse> {
  return defaultHandler(request);
}
