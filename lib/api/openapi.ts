import * as z from 'zod';
import { getConfig, type Variant } from '@/lib/config';
import { ERROR_CODES } from '@/lib/domain/errors';
import { METRIC_UNITS, eventInputSchema } from '@/lib/domain/event';
import { API_PREFIX, EVENT_TYPE_PATTERN, OBJECT_ID_PATTERN } from '@/lib/domain/limits';
import { TOTAL_COUNT_HEADER } from './export';
import { variantTakesParameter } from './params';
import { OPERATIONS, type OperationName } from './routes';
import { HOSTED_ONLY_FIELDS } from './serialize';
import { FACET_FIELDS, HISTOGRAM_INTERVALS, MAX_FILTER_VALUES } from '@/lib/domain/filters';
import {
  REPEATABLE_QUERY_PARAMETERS,
  exportEventsParameters,
  facetsParameters,
  filterParameters,
  formatParameters,
  getEventParameters,
  histogramParameters,
  listEventsParameters,
  pagingParameters,
  queryParameters,
  type QueryParameterName,
} from '@/lib/domain/query';

/**
 * The OpenAPI 3.0 description of exactly this API, served at
 * /api/public/v1.0/openapi.json. Every schema in it is generated from the
 * zod schemas the code runs on: the query parameters from lib/domain/query.ts
 * (the parser's own schemas), the event from lib/domain/event.ts (the import's
 * schema) plus what responses add, the bodies below. Only prose, paths and
 * the wiring of responses are written here. tests/api validates live
 * responses against it and `npm run lint:openapi` lints it with Redocly.
 */

// ---- bodies ---------------------------------------------------------------

/** Named schemas: each becomes components.schemas.<id> and is referenced, not repeated. */
const components = z.registry<{ id: string }>();

/** A path item keyed by the route table's own path for the operation, so the two cannot drift. */
function operationPath(
  name: OperationName,
  item: Record<string, unknown>,
): Record<string, unknown> {
  return { [OPERATIONS[name].path]: item };
}

function component<Schema extends z.ZodType>(id: string, schema: Schema): Schema {
  components.add(schema, { id });
  return schema;
}

const objectId = z.string().regex(OBJECT_ID_PATTERN);
const eventTypeName = z.string().regex(EVENT_TYPE_PATTERN);
const httpStatus = z.int().min(100).max(599);

const link = component(
  'Link',
  z.object({ href: z.url(), rel: z.enum(['self', 'next', 'previous']) }),
);
const links = z.array(link).min(1);

/** The principal nests through onBehalfOf: a named schema, so the recursion is a $ref. */
component('Principal', eventInputSchema.shape.delegatePrincipal.unwrap().unwrap());

const event = component(
  'Event',
  z
    .looseObject({
      ...eventInputSchema.shape,
      created: z.string().meta({
        format: 'date-time',
        description: 'UTC, second precision unless the event carries milliseconds.',
      }),
      // Always the owning organization: the import overrides whatever the input said.
      orgId: objectId.optional(),
      // Open: the real catalogue of units grows; the known ones are listed, not enforced.
      currentValue: z
        .object({
          number: z.number().optional(),
          units: z
            .string()
            .meta({
              description: `Known units: ${METRIC_UNITS.join(', ')}; others may appear.`,
              example: METRIC_UNITS[2],
            })
            .optional(),
        })
        .optional(),
      invoiceId: z.string().meta({ description: 'Hosted variant only.' }).optional(),
      paymentId: z.string().meta({ description: 'Hosted variant only.' }).optional(),
      raw: z
        .looseObject({})
        .meta({ description: 'Only with includeRaw=true, for events that have one.' })
        .optional(),
      links,
    })
    .meta({
      description: [
        'One event. Only the fields that apply appear. Imported events keep fields beyond these',
        '(hence additional properties). apiKeyId/userId and publicKey/username are mutually',
        'exclusive. invoiceId and paymentId never appear in the self-hosted variant.',
        'isGlobalAdmin: hosted, whether the user is an employee of the service operator;',
        'self-hosted, whether the user holds the global monitoring administrator role.',
      ].join('\n'),
    }),
);

/** `{status, content}`: one object wrapped by envelope=true. */
const envelopeOf = (content: z.ZodType) => z.object({ status: httpStatus, content });

/** The list body `{links, results, totalCount}` (+ `status` with envelope=true). */
function listOf(
  item: z.ZodType,
  totalCount: z.ZodType = z.int().min(0),
  extra: Record<string, z.ZodType> = {},
) {
  return z.object({
    links,
    results: z.array(item),
    ...extra,
    totalCount,
    status: httpStatus.meta({ description: 'Only with envelope=true.' }).optional(),
  });
}

component('EventEnvelope', envelopeOf(event));
component(
  'EventList',
  listOf(
    event,
    z
      .int()
      .min(0)
      .meta({ description: 'Events matching the filters, exact; 0 when includeCount=false.' }),
  ),
);

const org = component('Org', z.object({ id: objectId, links, name: z.string() }));
component('OrgEnvelope', envelopeOf(org));
component('OrgList', listOf(org));

component(
  'EventTypeList',
  listOf(
    z.object({
      eventTypeName,
      label: z.string().meta({ description: 'e.g. "API key created".' }),
      category: z.string().meta({ description: 'Catalogue category, or "Other".' }),
      count: z.int().min(0),
    }),
    z.int().min(0).meta({ description: 'Number of results.' }),
    { categories: z.array(z.object({ name: z.string(), types: z.array(z.string()) })) },
  ),
);

const facetCount = z.object({ value: z.string(), count: z.int().min(1) });
component(
  'EventFacets',
  z.object({
    totalCount: z.int().min(0).meta({ description: 'Events matching every filter, exact.' }),
    facets: z
      .object(Object.fromEntries(FACET_FIELDS.map((f) => [f, z.array(facetCount).optional()])))
      .meta({
        description: [
          'Per requested field, its most frequent values (count descending, then value), each',
          "counted under every filter except the field's own. `actor` is the username, or the",
          'public key for API key events.',
        ].join('\n'),
      }),
  }),
);
component(
  'EventHistogram',
  z.object({
    interval: z.enum(HISTOGRAM_INTERVALS),
    totalCount: z
      .int()
      .min(0)
      .meta({ description: "The buckets' sum: events matching the filters." }),
    buckets: z.array(
      z.object({
        start: z
          .string()
          .meta({ format: 'date-time', description: 'Start of the bucket, written in UTC.' }),
        count: z.int().min(0),
      }),
    ),
  }),
);

const apiError = component(
  'ApiError',
  z
    .object({
      detail: z.string().nullable(),
      error: httpStatus.meta({ description: 'The HTTP status.' }),
      // Open: the real service's list grows; ours is listed, not enforced.
      errorCode: z.string().meta({
        description: `One of ${ERROR_CODES.join(', ')}; the list grows with the service.`,
      }),
      parameters: z.array(z.string()).optional(),
      reason: z.string().nullable().meta({ description: 'The HTTP reason phrase.' }),
    })
    .meta({
      description:
        "The real service's error body. Application errors are compact JSON with keys in alphabetical order and always carry `parameters`; the Digest challenge body is pretty-printed and has no `parameters`.",
    }),
);
component('ApiErrorEnvelope', envelopeOf(apiError));

type Json = Record<string, unknown>;

/**
 * zod's output, made plain OpenAPI 3.0: no `$id` (components are named by
 * their key), `additionalProperties: true` rather than `{}`, and a lone
 * `allOf: [$ref]` (zod's way to put a $ref beside nothing) as the $ref itself.
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (!value || typeof value !== 'object') return value;
  const object = value as Json;
  const keys = Object.keys(object);
  if (keys.length === 1 && Array.isArray(object.allOf) && object.allOf.length === 1) {
    return plain(object.allOf[0]);
  }
  const result: Json = {};
  for (const key of keys) {
    if (key === '$id') continue;
    const inner = object[key];
    const empty = inner && typeof inner === 'object' && Object.keys(inner).length === 0;
    result[key] = key === 'additionalProperties' && empty ? true : plain(inner);
  }
  return nullableWithType(result);
}

/**
 * OpenAPI 3.0 lets `nullable` qualify a `type` only, while zod puts it beside
 * `anyOf` (a number or a numeric string, or null) and `allOf: [$ref]` (an
 * object, or null): the first becomes nullable branches, the second states
 * its type (every component we reference is an object).
 */
function nullableWithType(schema: Json): Json {
  if (schema.nullable !== true || 'type' in schema) return schema;
  if (Array.isArray(schema.anyOf)) {
    const { nullable: _nullable, ...rest } = schema;
    return {
      ...rest,
      anyOf: (schema.anyOf as Json[]).map((branch) =>
        'type' in branch ? { ...branch, nullable: true } : branch,
      ),
    };
  }
  return Array.isArray(schema.allOf) ? { type: 'object', ...schema } : schema;
}

function componentSchemas(variant: Variant): Json {
  const { schemas } = z.toJSONSchema(components, {
    target: 'openapi-3.0',
    io: 'output',
    uri: (id) => `#/components/schemas/${id}`,
  });
  const result = plain(schemas) as Json;
  (result.Principal as Json).description =
    'Who acted on whose behalf (OAuth delegated access); nests through onBehalfOf.';
  // The fields this variant never returns are not its event's (lib/api/serialize.ts drops them).
  if (variant === 'self-hosted') {
    const properties = (result.Event as { properties: Json }).properties;
    for (const field of HOSTED_ONLY_FIELDS) delete properties[field];
  }
  return result;
}

// ---- parameters -------------------------------------------------------------

/** A query parameter from its schema: the description moves up to the parameter. */
function queryParameter(name: QueryParameterName): Json {
  const { description, ...schema } = z.toJSONSchema(queryParameters[name], {
    target: 'openapi-3.0',
    io: 'output',
  }) as Json;
  return {
    name,
    in: 'query',
    description,
    ...(REPEATABLE_QUERY_PARAMETERS.has(name) ? { style: 'form', explode: true } : {}),
    schema: plain(schema),
  };
}

function pathParameter(name: string, description: string): Json {
  return { name, in: 'path', required: true, description, schema: plain(toJson(objectId)) };
}

function toJson(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'output' }) as Json;
}

const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });

/**
 * The operation's query parameters: exactly the names its schema parses, then
 * the format ones, less those the variant does not take (the handler drops them).
 */
const variantQueryParams = (variant: Variant, schema?: z.ZodObject) =>
  [...Object.keys(schema?.shape ?? {}), ...Object.keys(formatParameters.shape)]
    .filter((name) => variantTakesParameter(variant, name))
    .map(param);

// ---- responses --------------------------------------------------------------

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });

const errorResponses = {
  '400': response('badRequest'),
  '401': response('unauthorized'),
  '404': response('notFound'),
  '405': response('methodNotAllowed'),
  '429': response('tooManyRequests'),
  '500': response('internalServerError'),
  '503': response('serviceUnavailable'),
};

/** The service-version header's name, as lib/api/headers.ts sends it. */
export function serviceVersionHeader(vendor: string): string {
  return `X-${vendor}-Service-Version`;
}

function buildDocument(vendor: string, variant: Variant) {
  const queryParams = (schema?: z.ZodObject) => variantQueryParams(variant, schema);
  const successHeaders = {
    Vary: { $ref: '#/components/headers/Vary' },
    'Strict-Transport-Security': { $ref: '#/components/headers/StrictTransportSecurity' },
    [serviceVersionHeader(vendor)]: { $ref: '#/components/headers/ServiceVersion' },
  };

  const errorResponse = (description: string, extraHeaders: object = {}) => ({
    description,
    headers: {
      'X-Error-Code': { $ref: '#/components/headers/ErrorCode' },
      ...successHeaders,
      ...extraHeaders,
    },
    content: json({ oneOf: [ref('ApiError'), ref('ApiErrorEnvelope')] }),
  });

  const success = (description: string, schema: object) => ({
    '200': { description, headers: successHeaders, content: json(schema) },
  });

  return {
    openapi: '3.0.3',
    info: {
      title: 'Organization Events API',
      version: '1.0',
      license: { name: 'Apache 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      description: [
        'Read-only access to the events recorded for an organization, wire-compatible with the',
        `Ops Manager / Cloud Manager \`GET ${API_PREFIX}/orgs/{orgId}/events\` endpoints: clients`,
        'written for those work unchanged.',
        '',
        'Authentication: HTTP Digest (RFC 7616; RFC 2617 clients work) with an API key, public key as',
        'username and private key as password. The challenge is',
        '`Digest realm="<DIGEST_REALM>", domain="", nonce="…", algorithm=MD5, qop="auth", stale=false`;',
        'MD5, MD5-sess, SHA-256 and SHA-256-sess responses with qop=auth are accepted (responses',
        'without qop are not). Nonces expire after NONCE_TTL_SECONDS; a correct response to an',
        'expired nonce, or a reused nonce count, gets a new challenge with stale=true. Basic',
        'authentication is refused. Failed attempts are throttled per key and per client address',
        "(429 RATE_LIMITED with Retry-After). The dashboard's session cookie `org_events_session`",
        '(`__Host-org_events_session` over HTTPS) is accepted as the same principal.',
        '',
        'Variants (EVENTS_VARIANT): `hosted` (default) and `self-hosted`. The self-hosted variant',
        'never returns invoiceId or paymentId (nor takes them as filters) and also accepts the',
        `self-hosted audit event types. This document describes the \`${variant}\` variant.`,
        '',
        'Every response body honours `pretty=true` (indented) and `envelope=true` (single objects',
        'become `{status, content}`; lists gain a `status` field). The HTTP status is unchanged.',
        'Any other path under the base URL is a 404 RESOURCE_NOT_FOUND (the notFound response).',
      ].join('\n'),
    },
    security: [{ DigestAuth: [] }, { DashboardSession: [] }],
    tags: [
      { name: 'Events', description: 'The specified endpoints.' },
      { name: 'Extensions', description: 'Beyond the specification; used by the dashboard.' },
    ],
    paths: {
      ...operationPath('listOrgEvents', {
        get: {
          tags: ['Events'],
          operationId: 'listOrgEvents' satisfies OperationName,
          summary: 'Return events from one organization',
          description: [
            'Newest first (`created` descending, then `id` descending), so walking the pages never',
            'repeats or skips an event. Requires a role of Organization Member or higher in the org',
            '(ORG_OWNER, ORG_MEMBER, ORG_GROUP_CREATOR, ORG_BILLING_ADMIN).',
            '',
            'Links: `self` always (the request parameters in the order received, then',
            '`pageNum=N&itemsPerPage=M`); `previous` when pageNum > 1 and `next` when more events',
            'exist (both ending `itemsPerPage=M&pageNum=N±1`, like the real service). Unlike the',
            'real service, `next` is also given when includeCount=false, so link-following clients',
            'always reach the end. Every event has its `self` link.',
            '',
            'Extensions: filters on fields by their own name, `actor`, `q`, `excludeEventType` and',
            `remoteAddress CIDR blocks; repeated or comma-separated values mean any of them (at most ${MAX_FILTER_VALUES}),`,
            'different parameters must all hold, unknown values match nothing. In a value, `\\,` is a',
            'literal comma and `\\\\` a literal backslash (`username=CN=Alice\\,OU=Eng`).',
          ].join('\n'),
          parameters: [param('orgId'), ...queryParams(listEventsParameters)],
          responses: { ...success('One page of events.', ref('EventList')), ...errorResponses },
        },
      }),
      ...operationPath('getOrgEventFacets', {
        get: {
          tags: ['Extensions'],
          operationId: 'getOrgEventFacets' satisfies OperationName,
          summary: 'Value counts per field of the filtered events',
          description: [
            'Takes every filter of the events list. For each `field`, the top `limit` values with',
            "exact counts under every filter except that field's own (eventType and",
            'excludeEventType for eventTypeName), so choosing a value keeps the alternatives',
            'visible. Same authorization as the events list.',
          ].join('\n'),
          parameters: [param('orgId'), ...queryParams(facetsParameters)],
          responses: { ...success('The facets.', ref('EventFacets')), ...errorResponses },
        },
      }),
      ...operationPath('getOrgEventHistogram', {
        get: {
          tags: ['Extensions'],
          operationId: 'getOrgEventHistogram' satisfies OperationName,
          summary: 'Event counts over time of the filtered events',
          description: [
            'Takes every filter of the events list. Buckets are aligned to UTC boundaries of the',
            'interval (weeks start Monday 00:00 UTC, months on the 1st, years on January 1st, decades and',
            "centuries in years ending in 0 and 00), or with timeZone to that zone's clock (days and longer",
            'at its midnights, hours and minutes where it reads :00), cover minDate..maxDate',
            "(or the filtered set's first..last event), include empty buckets, and their counts sum",
            "to totalCount (the list's totalCount for the same filters). Same authorization as the",
            'events list.',
          ].join('\n'),
          parameters: [param('orgId'), ...queryParams(histogramParameters)],
          responses: { ...success('The histogram.', ref('EventHistogram')), ...errorResponses },
        },
      }),
      ...operationPath('exportOrgEvents', {
        get: {
          tags: ['Extensions'],
          operationId: 'exportOrgEvents' satisfies OperationName,
          summary: 'The whole filtered set of events, streamed',
          description: [
            'Takes every filter of the events list and returns every matching event, newest first,',
            'with no cap, read from one snapshot: events imported meanwhile are neither half in nor',
            'doubled. `X-Total-Count` is the number of events the body holds (counted in the same',
            'snapshot); a body cut short by a failure has fewer. `format=ndjson`: one line per',
            'event, exactly the object the list returns (links included, `raw` with includeRaw).',
            '`format=csv`: RFC 4180, UTF-8, a header row, one column per event field (objects as',
            'JSON), `raw` last with includeRaw; cells starting with `=`, `+`, `-`, `@`, tab or',
            "carriage return get a leading `'` so spreadsheets show them as text. The file name",
            '(Content-Disposition) names the organization and the range. pretty and envelope do',
            'not apply. Same authorization as the events list. An instance streams at most',
            'EXPORT_MAX_CONCURRENT exports at once (429 TOO_MANY_EXPORTS with Retry-After beyond),',
            'and ends one whose client reads nothing for EXPORT_IDLE_SECONDS (a cut connection).',
          ].join('\n'),
          parameters: [param('orgId'), ...queryParams(exportEventsParameters)],
          responses: {
            '200': {
              description: 'The events.',
              headers: {
                ...successHeaders,
                [TOTAL_COUNT_HEADER]: {
                  description: 'How many events the body holds.',
                  schema: { type: 'integer' },
                },
                'Content-Disposition': {
                  description:
                    '`attachment; filename="events-<org>-<orgId>-<from>--<to>.<format>"`.',
                  schema: { type: 'string' },
                },
              },
              content: {
                'application/x-ndjson': { schema: { type: 'string' } },
                'text/csv': { schema: { type: 'string' } },
              },
            },
            ...errorResponses,
          },
        },
      }),
      ...operationPath('getOrgEvent', {
        get: {
          tags: ['Events'],
          operationId: 'getOrgEvent' satisfies OperationName,
          summary: 'Return one event from one organization',
          description:
            "An unknown id (or the id of another organization's event) is a 404 RESOURCE_NOT_FOUND; a malformed id a 400 PATH_PARAM_PARSE_ERROR.",
          parameters: [param('orgId'), param('eventId'), ...queryParams(getEventParameters)],
          responses: {
            ...success('The event (or `{status, content}` with envelope=true).', {
              oneOf: [ref('Event'), ref('EventEnvelope')],
            }),
            ...errorResponses,
          },
        },
      }),
      ...operationPath('listOrgs', {
        get: {
          tags: ['Extensions'],
          operationId: 'listOrgs' satisfies OperationName,
          summary: 'Organizations whose events the caller may read',
          description:
            'Only organizations where the key holds a reader role (Organization Member or higher), sorted by name.',
          parameters: queryParams(pagingParameters),
          responses: { ...success('The organizations.', ref('OrgList')), ...errorResponses },
        },
      }),
      ...operationPath('getOrg', {
        get: {
          tags: ['Extensions'],
          operationId: 'getOrg' satisfies OperationName,
          summary: 'One organization the caller may read',
          description: 'Same authorization as the events list.',
          parameters: [param('orgId'), ...queryParams()],
          responses: {
            ...success('The organization (or `{status, content}` with envelope=true).', {
              oneOf: [ref('Org'), ref('OrgEnvelope')],
            }),
            ...errorResponses,
          },
        },
      }),
      ...operationPath('listOrgEventTypes', {
        get: {
          tags: ['Extensions'],
          operationId: 'listOrgEventTypes' satisfies OperationName,
          summary: 'Event types for the picker: catalogue, categories and counts in the org',
          description: [
            "Every event type the variant catalogues plus every type present in the org's events",
            '(category "Other" when uncatalogued), sorted by name, with `count` = events of that',
            'type in the org (0 when none). `categories` lists each type exactly once, in catalogue',
            'order, "Other" last. Counts follow the date range and field filters given (not',
            'eventType/excludeEventType, so the picker keeps every type). Same authorization as',
            'the events list.',
          ].join('\n'),
          parameters: [param('orgId'), ...queryParams(filterParameters)],
          responses: { ...success('The event types.', ref('EventTypeList')), ...errorResponses },
        },
      }),
      ...operationPath('getOpenApiDocument', {
        get: {
          tags: ['Extensions'],
          operationId: 'getOpenApiDocument' satisfies OperationName,
          summary: 'This document (no authentication)',
          description: '`servers` names this deployment: PUBLIC_BASE_URL, else the request Host.',
          security: [],
          parameters: queryParams(),
          responses: {
            ...success('The OpenAPI document.', { type: 'object' }),
            '400': response('badRequest'),
            '405': response('methodNotAllowed'),
          },
        },
      }),
    },
    components: {
      securitySchemes: {
        DigestAuth: {
          type: 'http',
          scheme: 'digest',
          description: 'API key: public key as username, private key as password.',
        },
        DashboardSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'org_events_session',
          description:
            "Sealed session set by the dashboard's sign-in; the same principal as the key. Over HTTPS it is named `__Host-org_events_session`.",
        },
      },
      parameters: {
        orgId: pathParameter('orgId', 'The organization: 24 hexadecimal digits.'),
        eventId: pathParameter('eventId', 'The event: 24 hexadecimal digits.'),
        ...Object.fromEntries(
          (Object.keys(queryParameters) as QueryParameterName[])
            .filter((name) => variantTakesParameter(variant, name))
            .map((name) => [name, queryParameter(name)]),
        ),
      },
      headers: {
        Vary: { description: 'Always `Accept-Encoding`.', schema: { type: 'string' } },
        StrictTransportSecurity: { description: '`max-age=300`.', schema: { type: 'string' } },
        ServiceVersion: {
          description: `\`gitHash=<40 hex>; versionString=<version>\`, captured at build. The header name is \`${serviceVersionHeader('<SERVICE_VENDOR>')}\`; this deployment's vendor is \`${vendor}\`.`,
          schema: { type: 'string' },
        },
        ErrorCode: { description: "The body's errorCode.", schema: { type: 'string' } },
        RetryAfter: {
          description: 'Seconds to wait before retrying (429: until the block ends).',
          schema: { type: 'integer' },
        },
        WWWAuthenticate: {
          description:
            'The Digest challenge. Omitted when the request carries `X-Org-Events-Client: dashboard`, so browsers do not show their own sign-in dialog.',
          schema: { type: 'string' },
        },
      },
      responses: {
        badRequest: errorResponse(
          'A malformed path id (PATH_PARAM_PARSE_ERROR), a bad query parameter value (INVALID_QUERY_PARAMETER) or an unknown event type (INVALID_ENUM_VALUE).',
        ),
        unauthorized: {
          description: [
            'Either the Digest challenge (no, wrong, stale or replayed credentials; Basic auth):',
            '`Content-Type: application/json;charset=ISO-8859-1`, a WWW-Authenticate header and the',
            "real service's pretty-printed body with errorCode UNEXPECTED_ERROR (in `content` with",
            'envelope=true); or, for a valid key without a reader role in the organization,',
            'USER_UNAUTHORIZED without a challenge.',
          ].join('\n'),
          headers: {
            'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' },
            'X-Error-Code': { $ref: '#/components/headers/ErrorCode' },
          },
          content: {
            'application/json': {
              schema: { oneOf: [ref('ApiError'), ref('ApiErrorEnvelope')] },
            },
            'application/json;charset=ISO-8859-1': {
              schema: { oneOf: [ref('ApiError'), ref('ApiErrorEnvelope')] },
            },
          },
        },
        notFound: errorResponse(
          'Unknown organization (ORG_NOT_FOUND), event or path (RESOURCE_NOT_FOUND).',
        ),
        methodNotAllowed: errorResponse('Anything but GET or HEAD (METHOD_NOT_ALLOWED).', {
          Allow: { description: '`GET, HEAD`.', schema: { type: 'string' } },
        }),
        tooManyRequests: errorResponse(
          'Too many failed authentication attempts for this key or client address (RATE_LIMITED), or, for an export, as many exports under way as the instance streams at once (TOO_MANY_EXPORTS).',
          { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        ),
        internalServerError: errorResponse(
          'An unexpected failure (UNEXPECTED_ERROR); details are logged, never returned.',
        ),
        serviceUnavailable: errorResponse(
          'The database or the shared replay and session state (Redis) cannot answer now, the database gave up on a query (its statement or lock timeout), or its disk is full: SERVICE_UNAVAILABLE. The same request may succeed after Retry-After seconds.',
          { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
        ),
      },
      schemas: componentSchemas(variant),
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildDocument> & {
  servers: { url: string; description: string }[];
};

/**
 * Built once per vendor (it names the service-version header) and variant
 * (which parameters and fields it has); only `servers` varies.
 */
let cached:
  | { vendor: string; variant: Variant; document: ReturnType<typeof buildDocument> }
  | undefined;

/**
 * The document for a deployment reached at `base` (scheme and host, as
 * lib/api/links.ts `baseUrl` gives it: PUBLIC_BASE_URL when set, else the
 * request's own host), so "try it" tools call the server that served it.
 */
export function openApiDocument(base: string): OpenApiDocument {
  const { SERVICE_VENDOR: vendor, EVENTS_VARIANT: variant } = getConfig();
  if (cached?.vendor !== vendor || cached.variant !== variant) {
    cached = { vendor, variant, document: buildDocument(vendor, variant) };
  }
  const { openapi, info, ...rest } = cached.document;
  const servers = [
    {
      url: `${base}${API_PREFIX}`,
      description:
        'This deployment: PUBLIC_BASE_URL when set, else the Host the document was requested from. Links in responses use the same base.',
    },
  ];
  return { openapi, info, servers, ...rest };
}

export function openApiJson(base: string): string {
  return JSON.stringify(openApiDocument(base));
}
