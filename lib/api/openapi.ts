import { ERROR_CODES } from '@/lib/domain/errors';
/**
 * The OpenAPI 3.0 description of exactly this API: the two spec endpoints,
 * our extensions, every error, and how the variants differ. Served at
 * /api/public/v1.0/openapi.json; tests/api validates live responses against
 * it, so it cannot drift from what the server does.
 */

import { METRIC_UNITS } from '@/lib/domain/event';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const param = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });

const OBJECT_ID = { type: 'string', pattern: '^[0-9a-f]{24}$' };

/** `{status, content}`: one object wrapped by envelope=true. */
const envelopeOf = (schema: string) => ({
  type: 'object',
  required: ['status', 'content'],
  additionalProperties: false,
  properties: { status: { type: 'integer' }, content: ref(schema) },
});

/** The list envelope `{links, results, totalCount}` (+ `status` with envelope=true). */
const listOf = (
  item: object,
  totalCount: object = { type: 'integer', minimum: 0 },
  extra: Record<string, object> = {},
  required: string[] = [],
) => ({
  type: 'object',
  required: ['links', 'results', ...required, 'totalCount'],
  additionalProperties: false,
  properties: {
    links: { type: 'array', minItems: 1, items: ref('Link') },
    results: { type: 'array', items: item },
    ...extra,
    totalCount,
    status: { type: 'integer', description: 'Only with envelope=true.' },
  },
});

const UNITS = [...METRIC_UNITS];

const successHeaders = {
  Vary: { $ref: '#/components/headers/Vary' },
  'Strict-Transport-Security': { $ref: '#/components/headers/StrictTransportSecurity' },
  'X-MongoDB-Service-Version': { $ref: '#/components/headers/ServiceVersion' },
};

const json = (schema: object) => ({ 'application/json': { schema } });

const errorResponses = {
  '400': response('badRequest'),
  '401': response('unauthorized'),
  '404': response('notFound'),
  '405': response('methodNotAllowed'),
  '429': response('tooManyRequests'),
  '500': response('internalServerError'),
};

function errorResponse(description: string, extraHeaders: object = {}) {
  return {
    description,
    headers: {
      'X-Error-Code': { $ref: '#/components/headers/ErrorCode' },
      ...successHeaders,
      ...extraHeaders,
    },
    content: json({ oneOf: [ref('ApiError'), ref('ApiErrorEnvelope')] }),
  };
}

export const openApiDocument = {
  openapi: '3.0.3',
  info: {
    title: 'Organization Events API',
    version: '1.0',
    description: [
      'Read-only access to the events recorded for an organization, wire-compatible with the',
      'Ops Manager / Cloud Manager `GET /api/public/v1.0/orgs/{orgId}/events` endpoints: clients',
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
      'is accepted as the same principal.',
      '',
      'Variants (EVENTS_VARIANT): `hosted` (default) and `self-hosted`. The self-hosted variant',
      'never returns invoiceId or paymentId and also accepts the self-hosted audit event types.',
      '',
      'Every response body honours `pretty=true` (indented) and `envelope=true` (single objects',
      'become `{status, content}`; lists gain a `status` field). The HTTP status is unchanged.',
      'Any other path under the base URL is a 404 RESOURCE_NOT_FOUND (the notFound response).',
    ].join('\n'),
  },
  servers: [
    {
      url: '{base_url}',
      description:
        'Hosted: `https://<public host>/api/public/v1.0`; self-hosted: `https://{host}:{port}/api/public/v1.0`. Links in responses use PUBLIC_BASE_URL when set, else the request Host.',
      variables: { base_url: { default: 'http://localhost:3000/api/public/v1.0' } },
    },
  ],
  security: [{ DigestAuth: [] }, { DashboardSession: [] }],
  tags: [
    { name: 'Events', description: 'The specified endpoints.' },
    { name: 'Extensions', description: 'Beyond the specification; used by the dashboard.' },
  ],
  paths: {
    '/orgs/{orgId}/events': {
      get: {
        tags: ['Events'],
        operationId: 'listOrgEvents',
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
        ].join('\n'),
        parameters: [
          param('orgId'),
          param('eventType'),
          param('includeRaw'),
          param('minDate'),
          param('maxDate'),
          param('pageNum'),
          param('itemsPerPage'),
          param('includeCount'),
          param('pretty'),
          param('envelope'),
        ],
        responses: {
          '200': {
            description: 'One page of events.',
            headers: successHeaders,
            content: json(ref('EventList')),
          },
          ...errorResponses,
        },
      },
    },
    '/orgs/{orgId}/events/{eventId}': {
      get: {
        tags: ['Events'],
        operationId: 'getOrgEvent',
        summary: 'Return one event from one organization',
        description:
          "An unknown id (or the id of another organization's event) is a 404 RESOURCE_NOT_FOUND; a malformed id a 400 PATH_PARAM_PARSE_ERROR.",
        parameters: [
          param('orgId'),
          param('eventId'),
          param('includeRaw'),
          param('pretty'),
          param('envelope'),
        ],
        responses: {
          '200': {
            description: 'The event (or `{status, content}` with envelope=true).',
            headers: successHeaders,
            content: json({ oneOf: [ref('Event'), ref('EventEnvelope')] }),
          },
          ...errorResponses,
        },
      },
    },
    '/orgs': {
      get: {
        tags: ['Extensions'],
        operationId: 'listOrgs',
        summary: 'Organizations whose events the caller may read',
        description:
          'Only organizations where the key holds a reader role (Organization Member or higher), sorted by name.',
        parameters: [
          param('pageNum'),
          param('itemsPerPage'),
          param('includeCount'),
          param('pretty'),
          param('envelope'),
        ],
        responses: {
          '200': {
            description: 'The organizations.',
            headers: successHeaders,
            content: json(ref('OrgList')),
          },
          ...errorResponses,
        },
      },
    },
    '/orgs/{orgId}': {
      get: {
        tags: ['Extensions'],
        operationId: 'getOrg',
        summary: 'One organization the caller may read',
        parameters: [param('orgId'), param('pretty'), param('envelope')],
        responses: {
          '200': {
            description: 'The organization (or `{status, content}` with envelope=true).',
            headers: successHeaders,
            content: json({ oneOf: [ref('Org'), ref('OrgEnvelope')] }),
          },
          ...errorResponses,
        },
      },
    },
    '/orgs/{orgId}/eventTypes': {
      get: {
        tags: ['Extensions'],
        operationId: 'listOrgEventTypes',
        summary: 'Event types for the picker: catalogue, categories and counts in the org',
        description: [
          "Every event type the variant catalogues plus every type present in the org's events",
          '(category "Other" when uncatalogued), sorted by name, with `count` = events of that',
          'type in the org (0 when none). `categories` lists each type exactly once, in catalogue',
          'order, "Other" last. Same authorization as the events list.',
        ].join('\n'),
        parameters: [param('orgId'), param('pretty'), param('envelope')],
        responses: {
          '200': {
            description: 'The event types.',
            headers: successHeaders,
            content: json(ref('EventTypeList')),
          },
          ...errorResponses,
        },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['Extensions'],
        operationId: 'getOpenApiDocument',
        summary: 'This document (no authentication)',
        security: [],
        parameters: [param('pretty'), param('envelope')],
        responses: {
          '200': {
            description: 'The OpenAPI document.',
            headers: successHeaders,
            content: json({ type: 'object' }),
          },
          '400': response('badRequest'),
          '405': response('methodNotAllowed'),
        },
      },
    },
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
          "Sealed session set by the dashboard's sign-in; the same principal as the key.",
      },
    },
    parameters: {
      orgId: {
        name: 'orgId',
        in: 'path',
        required: true,
        description: 'The organization: 24 hexadecimal digits.',
        schema: OBJECT_ID,
      },
      eventId: {
        name: 'eventId',
        in: 'path',
        required: true,
        description: 'The event: 24 hexadecimal digits.',
        schema: OBJECT_ID,
      },
      eventType: {
        name: 'eventType',
        in: 'query',
        description: [
          'Only events of these types. Repeat the parameter (`eventType=A&eventType=B`) or',
          'separate values with commas (`eventType=A,B`). Each value must be upper snake case',
          "(else 400 INVALID_QUERY_PARAMETER) and name a type of this variant's catalogue or one",
          "present in the org's events (else 400 INVALID_ENUM_VALUE). See `/orgs/{orgId}/eventTypes`.",
        ].join('\n'),
        style: 'form',
        explode: true,
        schema: { type: 'array', items: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,127}$' } },
      },
      includeRaw: {
        name: 'includeRaw',
        in: 'query',
        description: "Include each event's `raw` document. `true`/`false`, any letter case.",
        schema: { type: 'boolean', default: false },
      },
      minDate: {
        name: 'minDate',
        in: 'query',
        description:
          'Only events created at or after this instant (inclusive). ISO 8601 date-time with `Z` or a UTC offset (seconds and fraction optional), or a date `YYYY-MM-DD` meaning midnight UTC. Anything else is a 400 INVALID_QUERY_PARAMETER.',
        schema: { type: 'string', format: 'date-time' },
      },
      maxDate: {
        name: 'maxDate',
        in: 'query',
        description:
          'Only events created at or before this instant (inclusive). Same formats as minDate; a plain date means midnight UTC at the start of that day.',
        schema: { type: 'string', format: 'date-time' },
      },
      pageNum: {
        name: 'pageNum',
        in: 'query',
        description: '1-based page number. A page beyond any possible offset is a 400.',
        schema: { type: 'integer', minimum: 1, default: 1 },
      },
      itemsPerPage: {
        name: 'itemsPerPage',
        in: 'query',
        description: 'Items per page, 1 to 500 (else 400 INVALID_QUERY_PARAMETER).',
        schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 },
      },
      includeCount: {
        name: 'includeCount',
        in: 'query',
        description:
          'Whether totalCount is computed. With `false` the response still carries `"totalCount": 0`, as the real service does.',
        schema: { type: 'boolean', default: true },
      },
      pretty: {
        name: 'pretty',
        in: 'query',
        description: 'Indent the response body (same content).',
        schema: { type: 'boolean', default: false },
      },
      envelope: {
        name: 'envelope',
        in: 'query',
        description:
          'Wrap the response: single objects become `{status, content}`, lists gain `status`. For clients that cannot read the HTTP status; the HTTP status itself is unchanged.',
        schema: { type: 'boolean', default: false },
      },
    },
    headers: {
      Vary: { description: 'Always `Accept-Encoding`.', schema: { type: 'string' } },
      StrictTransportSecurity: { description: '`max-age=300`.', schema: { type: 'string' } },
      ServiceVersion: {
        description:
          '`gitHash=<40 hex>; versionString=<version>`, captured at build. The header name is `X-<SERVICE_VENDOR>-Service-Version` (default vendor `MongoDB`).',
        schema: { type: 'string' },
      },
      ErrorCode: { description: "The body's errorCode.", schema: { type: 'string' } },
      RetryAfter: { description: 'Seconds until the block ends.', schema: { type: 'integer' } },
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
          "real service's pretty-printed body with errorCode UNEXPECTED_ERROR; or, for a valid key",
          'without a reader role in the organization, USER_UNAUTHORIZED without a challenge.',
        ].join('\n'),
        headers: {
          'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' },
          'X-Error-Code': { $ref: '#/components/headers/ErrorCode' },
        },
        content: {
          'application/json': { schema: { oneOf: [ref('ApiError'), ref('ApiErrorEnvelope')] } },
          'application/json;charset=ISO-8859-1': { schema: ref('ApiError') },
        },
      },
      notFound: errorResponse(
        'Unknown organization (ORG_NOT_FOUND), event or path (RESOURCE_NOT_FOUND).',
      ),
      methodNotAllowed: errorResponse('Anything but GET or HEAD (METHOD_NOT_ALLOWED).', {
        Allow: { description: '`GET, HEAD`.', schema: { type: 'string' } },
      }),
      tooManyRequests: errorResponse(
        'Too many failed authentication attempts for this key or client address (RATE_LIMITED).',
        { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
      ),
      internalServerError: errorResponse(
        'An unexpected failure (UNEXPECTED_ERROR); details are logged, never returned.',
      ),
    },
    schemas: {
      Link: {
        type: 'object',
        required: ['href', 'rel'],
        additionalProperties: false,
        properties: {
          href: { type: 'string', format: 'uri' },
          rel: { type: 'string', enum: ['self', 'next', 'previous'] },
        },
      },
      Event: {
        type: 'object',
        description: [
          'One event. Only the fields that apply appear. Imported events keep fields beyond these',
          '(hence additional properties). apiKeyId/userId and publicKey/username are mutually',
          'exclusive. invoiceId and paymentId never appear in the self-hosted variant.',
          'isGlobalAdmin: hosted, whether the user is an employee of the service operator;',
          'self-hosted, whether the user holds the global monitoring administrator role.',
        ].join('\n'),
        required: ['id', 'created', 'eventTypeName', 'links'],
        additionalProperties: true,
        properties: {
          id: OBJECT_ID,
          eventTypeName: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,127}$' },
          created: {
            type: 'string',
            format: 'date-time',
            description: 'UTC, second precision unless the event carries milliseconds.',
          },
          alertId: { type: 'string' },
          alertConfigId: { type: 'string' },
          apiKeyId: { type: 'string' },
          publicKey: { type: 'string' },
          userId: { type: 'string' },
          username: { type: 'string' },
          remoteAddress: { type: 'string' },
          isGlobalAdmin: { type: 'boolean' },
          targetPublicKey: { type: 'string' },
          targetUsername: { type: 'string' },
          accessListEntry: { type: 'string' },
          whitelistEntry: { type: 'string' },
          teamId: { type: 'string' },
          groupId: { type: 'string' },
          orgId: OBJECT_ID,
          clusterId: { type: 'string' },
          clusterName: { type: 'string' },
          replicaSetName: { type: 'string' },
          shardName: { type: 'string' },
          hostId: { type: 'string' },
          hostname: { type: 'string' },
          port: { type: 'integer', minimum: 0, maximum: 65535 },
          database: { type: 'string' },
          collection: { type: 'string' },
          opType: { type: 'string' },
          metricName: { type: 'string' },
          currentValue: {
            type: 'object',
            additionalProperties: false,
            properties: { number: { type: 'number' }, units: { type: 'string', enum: UNITS } },
          },
          invoiceId: { type: 'string', description: 'Hosted variant only.' },
          paymentId: { type: 'string', description: 'Hosted variant only.' },
          maintenanceWindowId: { type: 'string' },
          raw: {
            type: 'object',
            additionalProperties: true,
            description: 'Only with includeRaw=true, for events that have one.',
          },
          links: { type: 'array', minItems: 1, items: ref('Link') },
        },
      },
      EventEnvelope: envelopeOf('Event'),
      EventList: listOf(ref('Event'), {
        type: 'integer',
        minimum: 0,
        description: 'Events matching the filters, exact; 0 when includeCount=false.',
      }),
      Org: {
        type: 'object',
        required: ['id', 'links', 'name'],
        additionalProperties: false,
        properties: {
          id: OBJECT_ID,
          links: { type: 'array', minItems: 1, items: ref('Link') },
          name: { type: 'string' },
        },
      },
      OrgEnvelope: envelopeOf('Org'),
      OrgList: listOf(ref('Org')),
      EventTypeList: listOf(
        {
          type: 'object',
          required: ['eventTypeName', 'label', 'category', 'count'],
          additionalProperties: false,
          properties: {
            eventTypeName: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,127}$' },
            label: { type: 'string', description: 'e.g. "API key created".' },
            category: { type: 'string', description: 'Catalogue category, or "Other".' },
            count: { type: 'integer', minimum: 0 },
          },
        },
        { type: 'integer', minimum: 0, description: 'Number of results.' },
        {
          categories: {
            type: 'array',
            items: {
              type: 'object',
              required: ['name', 'types'],
              additionalProperties: false,
              properties: {
                name: { type: 'string' },
                types: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
        ['categories'],
      ),
      ApiError: {
        type: 'object',
        description:
          "The real service's error body. Application errors are compact JSON with keys in alphabetical order and always carry `parameters`; the Digest challenge body is pretty-printed and has no `parameters`.",
        required: ['detail', 'error', 'errorCode', 'reason'],
        additionalProperties: false,
        properties: {
          detail: { type: 'string', nullable: true },
          error: { type: 'integer', description: 'The HTTP status.' },
          errorCode: {
            type: 'string',
            description: `One of ${ERROR_CODES.join(', ')}; the list grows with the service.`,
          },
          parameters: { type: 'array', items: { type: 'string' } },
          reason: { type: 'string', nullable: true, description: 'The HTTP reason phrase.' },
        },
      },
      ApiErrorEnvelope: envelopeOf('ApiError'),
    },
  },
};

let serialized: string | undefined;

export function openApiJson(): string {
  serialized ??= JSON.stringify(openApiDocument);
  return serialized;
}
