import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  client,
  eventPath,
  eventsPath,
  expectedIds,
  list,
  type ServerRef,
} from './support';

const SELF_HOSTED_AUDIT_TYPES = ['SUCCESSFUL_LOGIN_AUDIT', 'ADD_HOST_AUDIT'];

/** EVENTS_VARIANT: what differs between the hosted and the self-hosted service. */
export function variantSuites(server: ServerRef) {
  describe('variant switch', () => {
    test('billing events keep invoiceId and paymentId only in the hosted variant', async () => {
      const s = server();
      const billing = s.events.org.filter((e) => e.doc.includes('"invoiceId"'));
      assert.ok(billing.length > 0, 'the fixture has billing events');
      const one = await client(s).getJson<Record<string, unknown>>(
        eventPath(s, billing[0]!.id, 'includeRaw=true'),
      );
      const pages = await Promise.all(
        [1, 2, 3].map((page) => list(s, `pageNum=${page}&itemsPerPage=500&includeRaw=true`)),
      );
      const listed = pages
        .flatMap((p) => p.results)
        .filter((e) => billing.some((b) => b.id === e.id));
      assert.equal(listed.length, billing.length);
      if (s.variant === 'hosted') {
        assert.equal(
          one.invoiceId,
          (JSON.parse(billing[0]!.doc) as { invoiceId?: string }).invoiceId,
        );
        assert.ok(
          listed.every((e) => typeof e.invoiceId === 'string' && typeof e.paymentId === 'string'),
        );
      } else {
        assert.equal('invoiceId' in one, false);
        assert.equal('paymentId' in one, false);
        assert.equal(one.eventTypeName, billing[0]!.eventTypeName);
        assert.ok(listed.every((e) => !('invoiceId' in e) && !('paymentId' in e)));
        const text = (await client(s).request(eventsPath(s, 'itemsPerPage=500&pretty=true'))).text;
        assert.doesNotMatch(text, /invoiceId|paymentId/);
      }
    });

    test('self-hosted audit event types: accepted by self-hosted, unknown to hosted', async () => {
      const s = server();
      const query = `eventType=${SELF_HOSTED_AUDIT_TYPES.join(',')}&itemsPerPage=500`;
      if (s.variant === 'self-hosted') {
        const body = await list(s, query);
        const expected = expectedIds(s, { types: SELF_HOSTED_AUDIT_TYPES });
        assert.ok(expected.length > 0, 'the self-hosted fixture has audit events');
        assert.equal(body.totalCount, expected.length);
        assert.deepEqual(
          body.results.map((e) => e.id),
          expected,
        );
        // Catalogued but absent from the data: an empty page, not an error.
        assert.equal((await list(s, 'eventType=ACCOUNT_LOCKED_AUDIT')).totalCount, 0);
        const types = await client(s).getJson<{ categories: { name: string }[] }>(
          `/api/public/v1.0/orgs/${s.orgId}/eventTypes`,
        );
        assert.ok(types.categories.some((c) => c.name === 'Self-hosted Audit'));
      } else {
        const res = await client(s).request(eventsPath(s, query));
        assertError(res, 400, 'INVALID_ENUM_VALUE');
        const types = await client(s).getJson<{ results: { eventTypeName: string }[] }>(
          `/api/public/v1.0/orgs/${s.orgId}/eventTypes`,
        );
        assert.ok(!types.results.some((r) => r.eventTypeName === 'ACCOUNT_LOCKED_AUDIT'));
      }
    });
  });
}
