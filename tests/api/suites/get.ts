import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, client, eventPath, type ServerRef } from './support';

/** GET one event: fields, raw, envelope, pretty, and every way to ask wrongly. */
export function getSuites(server: ServerRef) {
  describe('get one event', () => {
    test('the event as stored, with its self link; raw only with includeRaw=true', async () => {
      const s = server();
      const stored = s.events.org.find(
        (e) => e.raw !== null && e.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD',
      )!;
      const plain = await client(s).getJson<Record<string, unknown>>(eventPath(s, stored.id));
      const { links, ...fields } = plain;
      assert.deepEqual(fields, JSON.parse(stored.doc));
      assert.deepEqual(links, [
        { href: `${s.baseUrl}/api/public/v1.0/orgs/${s.orgId}/events/${stored.id}`, rel: 'self' },
      ]);
      assert.equal('raw' in plain, false);
      const withRaw = await client(s).getJson<Record<string, unknown>>(
        eventPath(s, stored.id, 'includeRaw=true'),
      );
      assert.deepEqual(withRaw.raw, JSON.parse(stored.raw!));
      const pretty = await client(s).request(
        eventPath(s, stored.id, 'pretty=true&includeRaw=TRUE'),
      );
      assert.ok(pretty.text.startsWith('{\n  "'));
      assert.deepEqual(pretty.json(), withRaw);
    });

    test('unknown id 404, malformed id 400, bad includeRaw 400; never a 500', async () => {
      const s = server();
      const unknown = await client(s).request(eventPath(s, 'f'.repeat(24)));
      const body = assertError(unknown, 404, 'RESOURCE_NOT_FOUND');
      assert.equal(body.detail, `Cannot find resource Event with id ${'f'.repeat(24)}.`);
      for (const id of ['123', 'F'.repeat(24), 'g'.repeat(24), `${'a'.repeat(24)}0`, '%00']) {
        const res = await client(s).request(eventPath(s, id));
        assert.ok(res.status < 500, `${id}: ${res.status}`);
        assertError(res, 400, 'PATH_PARAM_PARSE_ERROR');
      }
      assertError(
        await client(s).request(eventPath(s, s.events.org[0]!.id, 'includeRaw=2')),
        400,
        'INVALID_QUERY_PARAMETER',
      );
    });

    test('an unknown org is 404 ORG_NOT_FOUND and a malformed one 400', async () => {
      const s = server();
      const unknownOrg = '0123456789abcdef01234567';
      const res = await client(s).request(`/api/public/v1.0/orgs/${unknownOrg}/events`);
      const body = assertError(res, 404, 'ORG_NOT_FOUND');
      assert.equal(body.detail, `No organization with ID ${unknownOrg} exists.`);
      assertError(
        await client(s).request('/api/public/v1.0/orgs/acme/events'),
        400,
        'PATH_PARAM_PARSE_ERROR',
      );
    });

    test('unknown paths are a JSON 404 and writes a 405', async () => {
      const s = server();
      const missing = await client(s).request(`/api/public/v1.0/orgs/${s.orgId}/alerts`);
      assertError(missing, 404, 'RESOURCE_NOT_FOUND');
      const post = await client(s).request(`/api/public/v1.0/orgs/${s.orgId}/events`, {
        method: 'POST',
      });
      assertError(post, 405, 'METHOD_NOT_ALLOWED');
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
    });
  });
}
