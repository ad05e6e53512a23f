import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { send, type TestResponse } from '@/tests/helpers/digest-client';
import { documentedResponse, findOperation, validate } from '@/tests/helpers/openapi-validator';
import type { TestKey } from '@/tests/helpers/server';
import { client, type ServerRef } from './support';

type Doc = Parameters<typeof validate>[0];

let cached: Promise<Doc> | undefined;
async function documentOf(baseUrl: string): Promise<Doc> {
  cached ??= send(`${baseUrl}/api/public/v1.0/openapi.json`).then((res) => res.json<Doc>());
  return cached;
}

/** Asserts a live response is what the OpenAPI document says for its operation and status. */
export async function assertDocumented(
  baseUrl: string,
  method: string,
  pathWithQuery: string,
  res: TestResponse,
): Promise<void> {
  const doc = await documentOf(baseUrl);
  const relative = pathWithQuery.split('?')[0]!.replace(/^\/api\/public\/v1\.0/, '');
  // Other methods get the path's documented 405 (OpenAPI documents operations,
  // not their absence); paths the API does not have its notFound response.
  const found = findOperation(doc, method, relative) ??
    (res.status === 405 ? findOperation(doc, 'GET', relative) : null) ?? {
      template: '(unknown path)',
      operation: { responses: { '404': { $ref: '#/components/responses/notFound' } } },
    };
  const documented = documentedResponse(
    doc,
    found.operation,
    res.status,
    res.headers.get('content-type') ?? '',
  );
  const errors = validate(doc, documented.schema, res.json());
  assert.deepEqual(errors, [], `${method} ${pathWithQuery} -> ${res.status}`);
  const conditional = new Set(['www-authenticate', 'x-error-code', 'allow', 'retry-after']);
  for (const name of documented.headers) {
    if (conditional.has(name.toLowerCase())) continue;
    assert.ok(res.headers.get(name) !== null, `${name} documented but missing on ${res.status}`);
  }
  if (res.status === 401) {
    assert.ok(res.headers.get('www-authenticate') || res.headers.get('x-error-code'));
  } else if (res.status >= 400) {
    assert.ok(res.headers.get('x-error-code'));
  }
  if (res.status === 405) assert.ok(res.headers.get('allow'));
  if (res.status === 429) assert.ok(res.headers.get('retry-after'));
}

/** The OpenAPI document is kept true: live responses of every operation validate against it. */
export function openApiSuites(server: ServerRef) {
  describe('OpenAPI document', () => {
    test('served without authentication, as OpenAPI 3.0 with every operation', async () => {
      const s = server();
      const res = await send(`${s.apiUrl}/openapi.json`);
      assert.equal(res.status, 200);
      const doc = res.json<{
        openapi: string;
        servers: { url: string }[];
        paths: Record<string, unknown>;
      }>();
      assert.equal(doc.openapi, '3.0.3');
      // No PUBLIC_BASE_URL here: the document names the server it was fetched from.
      assert.deepEqual(
        doc.servers.map((server) => server.url),
        [s.apiUrl],
      );
      assert.deepEqual(Object.keys(doc.paths).sort(), [
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

    test('live responses validate against it, successes and errors alike', async () => {
      const s = server();
      const event = s.events.org.find((e) => e.raw !== null)!.id;
      const org = `/api/public/v1.0/orgs/${s.orgId}`;
      const cases: { path: string; key?: TestKey; method?: string; status: number }[] = [
        { path: `${org}/events`, status: 200 },
        { path: `${org}/events?includeRaw=true&itemsPerPage=500&pageNum=2`, status: 200 },
        { path: `${org}/events?envelope=true&pretty=true&includeCount=false`, status: 200 },
        { path: `${org}/events?pageNum=99`, status: 200 },
        { path: `${org}/events/${event}`, status: 200 },
        { path: `${org}/events/${event}?includeRaw=true&envelope=true`, status: 200 },
        { path: '/api/public/v1.0/orgs', status: 200, key: s.keys.owner },
        { path: '/api/public/v1.0/orgs?envelope=true', status: 200 },
        { path: org, status: 200 },
        { path: `${org}?envelope=true`, status: 200 },
        { path: `${org}/eventTypes`, status: 200 },
        { path: `${org}/eventTypes?envelope=true`, status: 200 },
        { path: '/api/public/v1.0/openapi.json?pretty=true', status: 200 },
        { path: `${org}/events?itemsPerPage=501`, status: 400 },
        { path: `${org}/events?eventType=NOT_A_TYPE`, status: 400 },
        { path: `${org}/events?minDate=yesterday&envelope=true`, status: 400 },
        { path: `${org}/events/xyz`, status: 400 },
        { path: `${org}/events`, status: 401, key: s.keys.readOnly },
        { path: `/api/public/v1.0/orgs/${'0'.repeat(24)}/events`, status: 404 },
        { path: `${org}/events/${'e'.repeat(24)}?envelope=true`, status: 404 },
        { path: `${org}/nothing`, status: 404 },
        { path: `${org}/events`, status: 405, method: 'DELETE' },
      ];
      for (const c of cases) {
        const method = c.method ?? 'GET';
        const res = await client(s, c.key).request(c.path, { method });
        assert.equal(res.status, c.status, `${c.path}: ${res.text.slice(0, 200)}`);
        await assertDocumented(s.baseUrl, method, c.path, res);
      }
      const sent = await client(s).request(`${org}/events`);
      const versionHeader = [...sent.headers.keys()].find((name) =>
        /^x-.+-service-version$/.test(name),
      );
      assert.equal(versionHeader, 'x-mongodb-service-version', 'the default SERVICE_VENDOR');
      const challenge = await send(`${s.baseUrl}${org}/events`);
      assert.equal(challenge.status, 401);
      await assertDocumented(s.baseUrl, 'GET', `${org}/events`, challenge);
    });

    test('the validation can fail: drifted bodies are caught', async () => {
      const s = server();
      const doc = await documentOf(s.baseUrl);
      const found = findOperation(doc, 'GET', `/orgs/${s.orgId}/events`)!;
      const { schema } = documentedResponse(doc, found.operation, 200, 'application/json');
      const good = await client(s).getJson<Record<string, unknown>>(
        `/api/public/v1.0/orgs/${s.orgId}/events?itemsPerPage=2`,
      );
      assert.deepEqual(validate(doc, schema, good), []);
      const [first] = good.results as Record<string, unknown>[];
      const drifted = [
        { ...good, totalCount: undefined },
        { ...good, count: 2 },
        { ...good, totalCount: '2' },
        { ...good, results: [{ ...first, id: 'not-an-id' }] },
        { ...good, results: [{ ...first, links: [] }] },
        { ...good, results: [{ ...first, created: '31/01/2026' }] },
        { ...good, links: [{ href: 'x', rel: 'self' }] },
      ].map((body) => JSON.parse(JSON.stringify(body)) as unknown);
      for (const body of drifted)
        assert.notDeepEqual(validate(doc, schema, body), [], JSON.stringify(body).slice(0, 120));
    });
  });
}
