import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, client, type ServerRef } from './support';

type OrgList = {
  links: { href: string; rel: string }[];
  results: { id: string; name: string; links: unknown[] }[];
  totalCount: number;
};
type EventTypes = {
  links: unknown[];
  results: { eventTypeName: string; label: string; category: string; count: number }[];
  categories: { name: string; types: string[] }[];
  totalCount: number;
};

/** The dashboard's extensions: org picker, one org, event type picker. */
export function extensionSuites(server: ServerRef) {
  describe('GET /orgs', () => {
    test('only orgs where the key holds a reader role, sorted by name', async () => {
      const s = server();
      const names = async (key: (typeof s.keys)[keyof Omit<typeof s.keys, 'spare'>]) =>
        (await client(s, key).getJson<OrgList>('/api/public/v1.0/orgs')).results.map((o) => o.name);
      assert.deepEqual(await names(s.keys.member), ['Acme Corp']); // read-only in Globex: not listed
      assert.deepEqual(await names(s.keys.owner), ['Acme Corp', 'Globex']);
      assert.deepEqual(await names(s.keys.otherOrg), ['Globex']);
      assert.deepEqual(await names(s.keys.readOnly), []);
      const body = await client(s, s.keys.owner).getJson<OrgList>(
        '/api/public/v1.0/orgs?itemsPerPage=1',
      );
      assert.equal(body.totalCount, 2);
      assert.deepEqual(body.results[0]!.links, [
        { href: `${s.baseUrl}/api/public/v1.0/orgs/${s.orgId}`, rel: 'self' },
      ]);
      assert.deepEqual(
        body.links.map((l) => l.rel),
        ['self', 'next'],
      );
    });
  });

  describe('GET /orgs/{orgId}', () => {
    test('one readable org; others refused like the events', async () => {
      const s = server();
      const org = await client(s).getJson<{ id: string; name: string }>(
        `/api/public/v1.0/orgs/${s.orgId}`,
      );
      assert.deepEqual({ id: org.id, name: org.name }, { id: s.orgId, name: 'Acme Corp' });
      assertError(
        await client(s).request(`/api/public/v1.0/orgs/${s.otherOrgId}`),
        401,
        'USER_UNAUTHORIZED',
      );
      assertError(
        await client(s).request(`/api/public/v1.0/orgs/${'0'.repeat(24)}`),
        404,
        'ORG_NOT_FOUND',
      );
    });
  });

  describe('GET /orgs/{orgId}/eventTypes', () => {
    test('catalogue plus data, counts per type, each type in exactly one category', async () => {
      const s = server();
      const body = await client(s).getJson<EventTypes>(
        `/api/public/v1.0/orgs/${s.orgId}/eventTypes`,
      );
      assert.equal(body.totalCount, body.results.length);
      const names = body.results.map((r) => r.eventTypeName);
      assert.deepEqual(names, [...names].sort());
      const counts = new Map<string, number>();
      for (const e of s.events.org)
        counts.set(e.eventTypeName, (counts.get(e.eventTypeName) ?? 0) + 1);
      for (const entry of body.results)
        assert.equal(entry.count, counts.get(entry.eventTypeName) ?? 0, entry.eventTypeName);
      for (const type of counts.keys()) assert.ok(names.includes(type), type);
      const apiKeyCreated = body.results.find((r) => r.eventTypeName === 'API_KEY_CREATED')!;
      assert.deepEqual(apiKeyCreated, {
        eventTypeName: 'API_KEY_CREATED',
        label: 'API key created',
        category: 'API User',
        count: counts.get('API_KEY_CREATED') ?? 0,
      });
      const categorized = body.categories.flatMap((c) => c.types);
      assert.equal(categorized.length, names.length);
      assert.deepEqual([...categorized].sort(), names);
      for (const entry of body.results) {
        assert.ok(
          body.categories
            .find((c) => c.name === entry.category)
            ?.types.includes(entry.eventTypeName),
        );
      }
      assertError(
        await client(s, s.keys.readOnly).request(`/api/public/v1.0/orgs/${s.orgId}/eventTypes`),
        401,
        'USER_UNAUTHORIZED',
      );
    });
  });
}
