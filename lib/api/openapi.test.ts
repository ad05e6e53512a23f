import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { ApiError } from '@/lib/domain/errors';
import { METRIC_UNITS, eventInputSchema } from '@/lib/domain/event';
import { API_PREFIX, MAX_ITEMS_PER_PAGE } from '@/lib/domain/limits';
import { createApiHandler } from './handler';
import { serviceHeaders } from './headers';
import { openApiDocument } from './openapi';
import { OPERATIONS, OPERATION_NAMES } from './routes';
import { FACET_FIELDS, FILTER_FIELDS } from '@/lib/domain/filters';
import {
  parseFacetsParams,
  parseFormat,
  parseGetEventParams,
  parseExportParams,
  parseHistogramParams,
  parseListEventsParams,
  parsePaging,
  parseQuery,
} from './params';

type Json = Record<string, unknown>;
type Parameter = { name: string; in: string; schema: Json; style?: string; explode?: boolean };
type Operation = { operationId: string; parameters: { $ref: string }[]; responses: Json };

const original = { ...getConfig() };
afterEach(() => setConfigForTesting(original));

function doc(base = 'http://localhost:3000') {
  return openApiDocument(base) as unknown as {
    servers: { url: string }[];
    paths: Record<string, { get: Operation }>;
    components: {
      parameters: Record<string, Parameter>;
      responses: Record<string, { headers?: Json }>;
      schemas: Record<string, Json & { properties?: Record<string, Json>; required?: string[] }>;
    };
  };
}

/** Every `$ref` in the document, with the place it appears. */
function refs(value: unknown, at = '$', found: [string, string][] = []): [string, string][] {
  if (Array.isArray(value)) value.forEach((item, i) => refs(item, `${at}[${i}]`, found));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push([at, inner]);
      else refs(inner, `${at}.${key}`, found);
    }
  }
  return found;
}

function resolve(root: unknown, ref: string): unknown {
  let target = root;
  for (const part of ref.replace(/^#\//, '').split('/')) target = (target as Json)?.[part];
  return target;
}

describe('the OpenAPI document', () => {
  test('documents every operation of the route table at its path, under its name', () => {
    const document = doc();
    for (const name of OPERATION_NAMES) {
      const item = document.paths[OPERATIONS[name].path];
      assert.ok(item, `${name} has no path ${OPERATIONS[name].path}`);
      assert.equal((item.get as unknown as { operationId: string }).operationId, name);
    }
    assert.equal(Object.keys(document.paths).length, OPERATION_NAMES.length);
  });

  test('every $ref resolves and every path the API serves is documented', () => {
    const document = doc();
    const all = refs(document);
    assert.ok(all.length > 50);
    for (const [at, ref] of all) assert.ok(resolve(document, ref), `${at}: ${ref}`);
    assert.deepEqual(Object.keys(document.paths).sort(), [
      '/openapi.json',
      '/orgs',
      '/orgs/{orgId}',
      '/orgs/{orgId}/eventTypes',
      '/orgs/{orgId}/events',
      '/orgs/{orgId}/events/export',
      '/orgs/{orgId}/events/facets',
      '/orgs/{orgId}/events/histogram',
      '/orgs/{orgId}/events/{eventId}',
    ]);
  });

  test("the Event schema is the import schema's fields plus links and raw", () => {
    const event = doc().components.schemas.Event!;
    const properties = Object.keys(event.properties!);
    for (const field of Object.keys(eventInputSchema.shape)) {
      assert.ok(properties.includes(field), `${field} is documented`);
    }
    for (const field of [
      'resourceId',
      'resourceType',
      'resourcePolicyId',
      'dbUserUsername',
      'delegatePrincipal',
      'links',
      'raw',
    ]) {
      assert.ok(properties.includes(field), field);
    }
    assert.equal(event.additionalProperties, true);
    assert.deepEqual(event.required, ['id', 'created', 'eventTypeName', 'links']);
    // Nullable: the real service may send null for any optional field. OpenAPI
    // 3.0 lets `nullable` qualify a `type` only, so the reference states it.
    assert.deepEqual(event.properties!.delegatePrincipal, {
      type: 'object',
      nullable: true,
      allOf: [{ $ref: '#/components/schemas/Principal' }],
    });
  });

  test('units and error codes stay open: listed in descriptions, not enums', () => {
    const { schemas } = doc().components;
    const currentValue = schemas.Event!.properties!.currentValue as { properties: Json };
    const units = currentValue.properties.units as Json;
    assert.equal(units.type, 'string');
    assert.equal(units.enum, undefined);
    for (const unit of METRIC_UNITS) assert.ok(String(units.description).includes(unit), unit);
    const errorCode = schemas.ApiError!.properties!.errorCode!;
    assert.equal(errorCode.enum, undefined);
    assert.match(String(errorCode.description), /INVALID_QUERY_PARAMETER, INVALID_ENUM_VALUE/);
  });

  test('servers: PUBLIC_BASE_URL when set, else the base URL of the request', async () => {
    const handle = createApiHandler();
    const fetchDoc = async (host: string) => {
      const response = await handle({
        method: 'GET',
        url: `${API_PREFIX}/openapi.json`,
        headers: { get: (name) => (name.toLowerCase() === 'host' ? host : null) },
      });
      assert.equal(response.status, 200);
      return JSON.parse(response.body) as { servers: { url: string }[] };
    };
    setConfigForTesting({ PUBLIC_BASE_URL: undefined, TRUST_PROXY: false });
    assert.deepEqual(
      (await fetchDoc('events.internal:8080')).servers.map((s) => s.url),
      [`http://events.internal:8080${API_PREFIX}`],
    );
    setConfigForTesting({ PUBLIC_BASE_URL: 'https://events.example.org' });
    assert.deepEqual(
      (await fetchDoc('events.internal:8080')).servers.map((s) => s.url),
      [`https://events.example.org${API_PREFIX}`],
    );
  });

  test('the Digest challenge with envelope=true is documented under its media type', async () => {
    const response = await createApiHandler()({
      method: 'GET',
      url: `${API_PREFIX}/orgs/${'a'.repeat(24)}/events?envelope=true`,
      headers: { get: (name) => (name.toLowerCase() === 'host' ? 'localhost:3000' : null) },
    });
    assert.equal(response.status, 401);
    const type = response.headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    assert.equal(type, 'application/json;charset=ISO-8859-1');
    assert.deepEqual(Object.keys(JSON.parse(response.body) as Json), ['status', 'content']);
    const { components } = doc();
    const unauthorized = components.responses.unauthorized as {
      content: Record<string, { schema: Json }>;
    };
    const schema = unauthorized.content[type ?? '']?.schema ?? {};
    const allowed = 'oneOf' in schema ? (schema.oneOf as Json[]) : [schema];
    assert.ok(
      allowed.some((s) => s.$ref === '#/components/schemas/ApiErrorEnvelope'),
      JSON.stringify(schema),
    );
  });

  test('the self-hosted document has no invoiceId or paymentId, as filter or as event field; the hosted one has both', () => {
    const hostedOnly = ['invoiceId', 'paymentId'];
    for (const variant of ['hosted', 'self-hosted'] as const) {
      setConfigForTesting({ EVENTS_VARIANT: variant });
      const document = doc();
      const operationParams = Object.values(document.paths).flatMap(({ get }) =>
        get.parameters.map((p) => p.$ref.split('/').pop()!),
      );
      const found = {
        operations: hostedOnly.filter((name) => operationParams.includes(name)),
        parameters: hostedOnly.filter((name) => name in document.components.parameters),
        eventFields: hostedOnly.filter(
          (name) => name in document.components.schemas.Event!.properties!,
        ),
      };
      const expected = variant === 'hosted' ? hostedOnly : [];
      assert.deepEqual(
        found,
        { operations: expected, parameters: expected, eventFields: expected },
        variant,
      );
      for (const [at, ref] of refs(document)) assert.ok(resolve(document, ref), `${at}: ${ref}`);
      // Every other filter stays.
      assert.ok(operationParams.includes('clusterName'), variant);
    }
  });

  test('the service-version header is documented under the name the server sends', () => {
    setConfigForTesting({ SERVICE_VENDOR: 'Acme' });
    const sent = serviceHeaders().map(([name]) => name);
    assert.ok(sent.includes('X-Acme-Service-Version'));
    const { paths, components } = doc();
    const documented = [
      ...Object.values(paths).map((item) => item.get.responses['200'] as { headers: Json }),
      ...Object.values(components.responses).filter((r) => r.headers?.Vary),
    ].map((response) => Object.keys(response.headers!));
    for (const names of documented) {
      assert.ok(names.includes('X-Acme-Service-Version'), names.join(', '));
      assert.ok(!names.includes('X-MongoDB-Service-Version'));
    }
  });
});

describe('the parser and the document agree', () => {
  /** What each parser returns for a query, under the parameter's documented name. */
  const parsed = (search: string): Json => {
    const params = parseQuery(search);
    const list = parseListEventsParams(params);
    const facets = parseFacetsParams(params);
    const histogram = parseHistogramParams(params);
    return {
      ...parseFormat(params),
      ...parsePaging(params),
      ...parseGetEventParams(params),
      eventType: list.eventTypes,
      minDate: list.minCreated,
      maxDate: list.maxCreated,
      // The extensions of issue 9: absent filters stay absent.
      ...Object.fromEntries(FILTER_FIELDS.map((f) => [f, list.fields?.[f]])),
      actor: list.actor,
      q: list.q,
      excludeEventType: list.excludeEventTypes ?? [],
      field: facets.facetFields,
      limit: facets.limit,
      buckets: histogram.buckets,
      interval: histogram.interval,
      timeZone: histogram.timeZone,
      format: parseExportParams(params).format,
    };
  };
  const rejects = (search: string, name: string) =>
    assert.throws(
      () => parsed(search),
      (error: unknown) => error instanceof ApiError && error.parameters[0] === name,
      search,
    );

  test('timeZone takes an IANA zone name and refuses any other', () => {
    assert.equal(parsed('timeZone=America/New_York').timeZone, 'America/New_York');
    rejects('timeZone=Mars/Olympus_Mons', 'timeZone');
    rejects('timeZone=', 'timeZone');
  });

  test('each operation lists exactly the query parameters its parser reads', () => {
    const operations = Object.fromEntries(
      Object.values(doc().paths).map(({ get }) => [
        get.operationId,
        get.parameters.map((p) => p.$ref.split('/').pop()).sort(),
      ]),
    );
    const filters = ['actor', 'excludeEventType', 'q', ...FILTER_FIELDS];
    assert.deepEqual(
      operations.listOrgEvents,
      [
        'envelope',
        'eventType',
        'includeCount',
        'includeRaw',
        'itemsPerPage',
        'maxDate',
        'minDate',
        'orgId',
        'pageNum',
        'pretty',
        ...filters,
      ].sort(),
    );
    const filterSet = [
      'envelope',
      'eventType',
      'maxDate',
      'minDate',
      'orgId',
      'pretty',
      ...filters,
    ];
    assert.deepEqual(operations.getOrgEventFacets, [...filterSet, 'field', 'limit'].sort());
    assert.deepEqual(
      operations.getOrgEventHistogram,
      [...filterSet, 'buckets', 'interval', 'timeZone'].sort(),
    );
    assert.deepEqual(operations.listOrgEventTypes, [...filterSet].sort());
    assert.deepEqual(operations.getOrgEvent, [
      'envelope',
      'eventId',
      'includeRaw',
      'orgId',
      'pretty',
    ]);
    assert.deepEqual(operations.listOrgs, [
      'envelope',
      'includeCount',
      'itemsPerPage',
      'pageNum',
      'pretty',
    ]);
  });

  test('documented defaults are what an empty query parses to', () => {
    const defaults = parsed('');
    let checked = 0;
    for (const parameter of Object.values(doc().components.parameters)) {
      if (parameter.in !== 'query') continue;
      assert.deepEqual(defaults[parameter.name], parameter.schema.default, parameter.name);
      checked += 1;
    }
    // The spec's 9, plus issue 9's filters, facet and histogram parameters (timeZone among them), and the export's format.
    assert.equal(checked, 9 + FILTER_FIELDS.length + 8 + 1);
    assert.deepEqual(defaults.field, [...FACET_FIELDS]);
  });

  test('documented integer bounds are where the parser starts refusing', () => {
    const { parameters } = doc().components;
    assert.equal(parameters.itemsPerPage!.schema.maximum, MAX_ITEMS_PER_PAGE);
    for (const parameter of Object.values(parameters)) {
      if (parameter.in !== 'query' || parameter.schema.type !== 'integer') continue;
      const { name } = parameter;
      const { minimum, maximum } = parameter.schema as { minimum: number; maximum: number };
      assert.equal(parsed(`${name}=${minimum}`)[name], minimum, name);
      rejects(`${name}=${minimum - 1}`, name);
      assert.equal(parsed(`${name}=${maximum}&itemsPerPage=1`)[name], maximum, name);
      rejects(`${name}=${BigInt(maximum) + 1n}`, name);
    }
  });

  test('documented booleans, patterns and repetition are what the parser accepts', () => {
    const { parameters } = doc().components;
    for (const parameter of Object.values(parameters)) {
      if (parameter.schema.type !== 'boolean') continue;
      assert.equal(parsed(`${parameter.name}=TRUE`)[parameter.name], true);
      rejects(`${parameter.name}=yes`, parameter.name);
    }
    const eventType = parameters.eventType!;
    assert.equal(eventType.explode, true);
    const pattern = new RegExp((eventType.schema.items as { pattern: string }).pattern);
    for (const value of ['API_KEY_CREATED', 'A', `A${'B'.repeat(127)}`]) {
      assert.ok(pattern.test(value));
      assert.deepEqual(parsed(`eventType=${value}&eventType=C`).eventType, [value, 'C']);
    }
    for (const value of ['api_key', '1A', `A${'B'.repeat(128)}`]) {
      assert.ok(!pattern.test(value));
      rejects(`eventType=${value}`, 'eventType');
    }
    for (const name of ['minDate', 'maxDate']) {
      assert.equal(parameters[name]!.schema.format, 'date-time');
      assert.equal(parsed(`${name}=2026-01-31T12:00:00Z`)[name], Date.UTC(2026, 0, 31, 12));
    }
  });
});
