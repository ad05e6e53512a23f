/**
 * The one error model of the service: the API, the dashboard's sign-in and
 * the transport adapters all fail through ApiError, and every error body is
 * the real service's `{detail, error, errorCode, parameters, reason}`
 * (compact, keys in alphabetical order), built by `errorObject` alone. Codes
 * are the real service's where one exists for the situation; the list below
 * is also the OpenAPI document's list (kept open there: the real one grows).
 */
export const ERROR_STATUS = {
  /** A query parameter has a value of the wrong type, syntax or range. */
  INVALID_QUERY_PARAMETER: 400,
  /** An eventType value that names no event type of this service. */
  INVALID_ENUM_VALUE: 400,
  /** A malformed orgId or eventId in the path. */
  PATH_PARAM_PARSE_ERROR: 400,
  /** Authenticated, but the key holds no reader role in the organization. */
  USER_UNAUTHORIZED: 401,
  ORG_NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** Too many failed sign-in attempts for the key or the client address. */
  RATE_LIMITED: 429,
  /** As many exports as the instance streams at once are under way (EXPORT_MAX_CONCURRENT). */
  TOO_MANY_EXPORTS: 429,
  UNEXPECTED_ERROR: 500,
  /**
   * State every instance must agree on (replay and throttle counters, session
   * revocations: Redis) cannot be reached, so a request that might be a
   * replay is refused rather than guessed about. Retry-After says when to retry.
   */
  SERVICE_UNAVAILABLE: 503,
  /** Dashboard sign-in: a public or private key field left empty. */
  MISSING_CREDENTIALS: 400,
  /** Dashboard sign-in: the key pair is wrong, unknown or disabled. */
  INVALID_CREDENTIALS: 401,
  /** Dashboard sign-in posted from another site. */
  CROSS_SITE_REQUEST: 403,
  /**
   * Dashboard sign-in from a plain-http page on a host other than loopback
   * while the session cookie is Secure: the browser would drop it.
   */
  HTTPS_REQUIRED: 403,
  /** A dashboard request body (a saved view) with a missing or malformed attribute. */
  INVALID_ATTRIBUTE: 400,
  // Requests Node's HTTP parser refused before any route saw them (lib/http/client-error.ts).
  MALFORMED_REQUEST: 400,
  REQUEST_TIMEOUT: 408,
  CONTENT_TOO_LARGE: 413,
  /**
   * A dashboard request body not sent as what the route reads (JSON; sign-in
   * also a form): a text/plain one is what a cross-site form can post.
   */
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
} as const;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ApiErrorCode[];

export type ApiErrorCode = keyof typeof ERROR_STATUS;

/** Marks ApiErrors from every copy of this module (see Symbol.hasInstance below). */
const API_ERROR_BRAND = Symbol.for('org-events.api-error');

export class ApiError extends Error {
  readonly status: number;

  /**
   * `instanceof ApiError` holds for an ApiError made by any copy of this
   * module: the custom server and Next's bundle load separate copies but
   * share per-process state (e.g. the Redis client on globalThis), so an
   * error thrown by one copy's code may be caught by the other's.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && API_ERROR_BRAND in value;
  }

  constructor(
    readonly code: ApiErrorCode,
    readonly detail: string,
    readonly parameters: readonly string[] = [],
    readonly headers: readonly [string, string][] = [],
  ) {
    super(detail);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    Object.defineProperty(this, API_ERROR_BRAND, { value: true });
  }
}

/** The reason phrases of the statuses above (node:http's names; this module also runs in browsers). */
const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function reasonPhrase(status: number): string {
  return REASON_PHRASES[status] ?? 'Error';
}

/** The error body object, keys in the real service's (alphabetical) order. */
export function errorObject(error: ApiError): Record<string, unknown> {
  return {
    detail: error.detail,
    error: error.status,
    errorCode: error.code,
    parameters: error.parameters,
    reason: reasonPhrase(error.status),
  };
}

// ---- the failures, one constructor each ------------------------------------

export function invalidQueryParameter(name: string, value: string, rule: string): ApiError {
  return new ApiError(
    'INVALID_QUERY_PARAMETER',
    `Invalid value ${JSON.stringify(value)} for query parameter ${name}: ${rule}.`,
    [name, value],
  );
}

export function invalidEventType(value: string): ApiError {
  return new ApiError(
    'INVALID_ENUM_VALUE',
    `An invalid enumeration value ${value} was specified for eventType.`,
    [value],
  );
}

export function malformedPath(path: string): ApiError {
  return new ApiError(
    'PATH_PARAM_PARSE_ERROR',
    `One or more path parameter in the request URI ${path} is malformed.`,
    [path],
  );
}

export function orgNotFound(orgId: string): ApiError {
  return new ApiError('ORG_NOT_FOUND', `No organization with ID ${orgId} exists.`, [orgId]);
}

export function eventNotFound(eventId: string): ApiError {
  const resource = `Event with id ${eventId}`;
  return new ApiError('RESOURCE_NOT_FOUND', `Cannot find resource ${resource}.`, [resource]);
}

export function routeNotFound(path: string): ApiError {
  return new ApiError('RESOURCE_NOT_FOUND', `Cannot find resource ${path}.`, [path]);
}

export function userUnauthorized(): ApiError {
  return new ApiError(
    'USER_UNAUTHORIZED',
    'Current user is not authorized to perform this action.',
  );
}

export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    'METHOD_NOT_ALLOWED',
    `HTTP method ${method} is not allowed; this API is read-only (GET, HEAD).`,
    [method],
    [['Allow', 'GET, HEAD']],
  );
}

/** A dashboard route asked with a method it does not serve (`allowed`: those it does). */
export function methodNotAllowedHere(method: string, allowed: readonly string[]): ApiError {
  return new ApiError(
    'METHOD_NOT_ALLOWED',
    `HTTP method ${method} is not allowed here; this resource answers ${allowed.join(', ')}.`,
    [method],
    [['Allow', allowed.join(', ')]],
  );
}

/**
 * A method no route of this server serves on any path (TRACE, PROPFIND): refused
 * before routing. Allow names what some route here serves;
 * an OPTIONS request to the path says which of them that path does.
 */
export function methodNeverServed(method: string): ApiError {
  return new ApiError(
    'METHOD_NOT_ALLOWED',
    `HTTP method ${method} is not served by this server.`,
    [method],
    [['Allow', 'GET, HEAD, POST, PATCH, DELETE']],
  );
}

export function rateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'RATE_LIMITED',
    `Too many failed authentication attempts. Retry in ${retryAfterSeconds} seconds.`,
    [String(retryAfterSeconds)],
    [['Retry-After', String(retryAfterSeconds)]],
  );
}

export function tooManyExports(limit: number, retryAfterSeconds: number): ApiError {
  return new ApiError(
    'TOO_MANY_EXPORTS',
    `This instance is streaming ${limit} exports already, its limit. Retry in ${retryAfterSeconds} seconds.`,
    [String(limit)],
    [['Retry-After', String(retryAfterSeconds)]],
  );
}

export function unexpectedError(): ApiError {
  return new ApiError('UNEXPECTED_ERROR', 'Unexpected error.');
}

export function serviceUnavailable(what: string, retryAfterSeconds: number): ApiError {
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    `The service is temporarily unavailable (${what}). Retry in ${retryAfterSeconds} seconds.`,
    [],
    [['Retry-After', String(retryAfterSeconds)]],
  );
}

export function missingCredentials(): ApiError {
  return new ApiError('MISSING_CREDENTIALS', 'Enter both the public key and the private key.');
}

export function invalidCredentials(): ApiError {
  return new ApiError('INVALID_CREDENTIALS', 'The public key or private key is not correct.');
}

export function crossSiteRequest(): ApiError {
  return new ApiError('CROSS_SITE_REQUEST', 'Sign-in must come from this site.');
}

export function httpsRequired(httpsOrigin: string): ApiError {
  return new ApiError(
    'HTTPS_REQUIRED',
    `This dashboard's session cookie is sent over HTTPS only, and your browser drops it on a plain-http page. Open the dashboard at ${httpsOrigin} to sign in.`,
    [httpsOrigin],
  );
}

export function signInRateLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'RATE_LIMITED',
    `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`,
    [],
    [['Retry-After', String(retryAfterSeconds)]],
  );
}

export function invalidAttribute(name: string, rule: string): ApiError {
  return new ApiError('INVALID_ATTRIBUTE', `Invalid attribute ${name}: ${rule}.`, [name]);
}

export function unsupportedMediaType(accepted: readonly string[]): ApiError {
  return new ApiError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Send the request body as ${accepted.join(' or ')} (its Content-Type).`,
    ['Content-Type'],
  );
}

export function savedViewNotFound(id: string): ApiError {
  const resource = `Saved view with id ${id}`;
  return new ApiError('RESOURCE_NOT_FOUND', `Cannot find resource ${resource}.`, [resource]);
}

/**
 * A request Node's HTTP parser refused (its error code: HPE_HEADER_OVERFLOW,
 * ERR_HTTP_REQUEST_TIMEOUT, ...), with the status Node itself would answer.
 * `headerLimit`: the bytes the request line and headers may take.
 */
/** A request body over what its route could ever take. */
export function bodyTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'CONTENT_TOO_LARGE',
    `The request body is larger than ${maxBytes / 1024} KB.`,
  );
}

export function unreadableRequest(parserCode: string | undefined, headerLimit: number): ApiError {
  switch (parserCode) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'REQUEST_HEADER_FIELDS_TOO_LARGE',
        `The request line and headers together are larger than ${headerLimit / 1024} KB.`,
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new ApiError(
        'CONTENT_TOO_LARGE',
        'A chunk extension of the request body is too large.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('REQUEST_TIMEOUT', 'The request did not arrive in time.');
    default:
      return new ApiError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1.');
  }
}

/** The error body as JSON text: what every transport sends. */
export function errorJson(error: ApiError): string {
  return JSON.stringify(errorObject(error));
}

/**
 * Any thrown value as an ApiError: ours pass through, a store outage (the
 * store's StoreUnavailableError, known by name: lib/domain imports no
 * engine; unreachable, a statement the server gave up on, or its disk full) is a 503 with
 * Retry-After, and anything else is a bug that
 * becomes a bare 500. Logging it is the caller's job: the request's own log
 * line carries the error and its stack under the request id.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Error && error.name === 'StoreUnavailableError') {
    const { retryAfterSeconds, timedOut, diskFull } = error as Error & {
      retryAfterSeconds?: unknown;
      timedOut?: unknown;
      diskFull?: unknown;
    };
    const seconds =
      typeof retryAfterSeconds === 'number' && retryAfterSeconds > 0 ? retryAfterSeconds : 5;
    // Never the engine's own text: it names files (PostgreSQL's "could not
    // extend file "base/…"", an SQLite path).
    const what =
      timedOut === true
        ? 'database query timed out'
        : diskFull === true
          ? "the database's disk is full"
          : 'database unreachable';
    return serviceUnavailable(what, Math.ceil(seconds));
  }
  return unexpectedError();
}

// ---- the 401 challenge body ---------------------------------------------------

/**
 * The body of the Digest challenge, byte for byte as the real service sends
 * it: Jackson's pretty printer (`"key" : value`), keys not sorted, no
 * trailing newline, errorCode UNEXPECTED_ERROR (sic).
 */
export const CHALLENGE_BODY = [
  '{',
  '  "error" : 401,',
  '  "reason" : "Unauthorized",',
  '  "detail" : "You are not authorized for this resource.",',
  '  "errorCode" : "UNEXPECTED_ERROR"',
  '}',
].join('\n');

export const CHALLENGE_CONTENT_TYPE = 'application/json;charset=ISO-8859-1';

/**
 * What an error caught as `unknown` says, for a message or a log: an
 * Error's message; a thrown object's own `message` (an error passed between
 * threads may arrive as a plain object, which String() made "[object
 * Object]"); anything else as a string.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null) {
    const { message } = error as { message?: unknown };
    if (typeof message === 'string') return message;
  }
  return String(error);
}
