import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeEvent } from '@/lib/domain/encode';
import type { StoredEvent } from '@/lib/domain/event';
import { eventJson, formatBody, listJson } from './serialize';

const orgId = '5f0000000000000000000001';
const base = 'https://ops.example.com:8443';

function stored(input: Parameters<typeof encodeEvent>[1]): StoredEvent {
  return { orgId, ...encodeEvent(orgId, input) };
}

const billing = stored({
  id: '6a0000000000000000000001',
  created: '2026-02-01T10:00:00Z',
  eventTypeName: 'CHARGE_SUCCEEDED',
  invoiceId: '6a00000000000000000000aa',
  paymentId: '6a00000000000000000000bb',
  isGlobalAdmin: false,
  raw: { _t: 'BILLING', amountCents: 1200, nested: { a: [1, 2] } },
});

describe('eventJson', () => {
  test('splices the self link (and raw when asked) into the stored document', () => {
    const plain: unknown = JSON.parse(
      eventJson(billing, base, { includeRaw: false, variant: 'hosted' }),
    );
    assert.deepEqual(plain, {
      created: '2026-02-01T10:00:00Z',
      eventTypeName: 'CHARGE_SUCCEEDED',
      id: '6a0000000000000000000001',
      invoiceId: '6a00000000000000000000aa',
      isGlobalAdmin: false,
      orgId,
      paymentId: '6a00000000000000000000bb',
      links: [
        {
          href: `${base}/api/public/v1.0/orgs/${orgId}/events/6a0000000000000000000001`,
          rel: 'self',
        },
      ],
    });
    const withRaw = JSON.parse(
      eventJson(billing, base, { includeRaw: true, variant: 'hosted' }),
    ) as { raw: unknown };
    assert.deepEqual(withRaw.raw, { _t: 'BILLING', amountCents: 1200, nested: { a: [1, 2] } });
  });

  test("the self href names each event's own base, org and id, escaped as JSON.stringify escapes it", () => {
    const hrefOf = (event: StoredEvent, at: string) =>
      (
        JSON.parse(eventJson(event, at, { includeRaw: false, variant: 'hosted' })) as {
          links: { href: string }[];
        }
      ).links[0]!.href;
    const other = { ...billing, orgId: '5f0000000000000000000002', id: '6a0000000000000000000002' };
    // Bases and orgs alternating, one needing escapes; an id no ObjectId.
    const quoted = 'https://a.example/"\\\u2028';
    for (const [event, at] of [
      [billing, base],
      [other, base],
      [billing, quoted],
      [billing, base],
      [{ ...billing, id: 'x"y' }, base],
      [other, quoted],
    ] as const) {
      const body = eventJson(event, at, { includeRaw: false, variant: 'hosted' });
      const href = `${at}/api/public/v1.0/orgs/${event.orgId}/events/${event.id}`;
      assert.equal(hrefOf(event, at), href);
      assert.ok(body.includes(`"href":${JSON.stringify(href)}`), body);
    }
  });

  test('an event without a raw document has no raw field even with includeRaw', () => {
    const event = { ...billing, raw: null };
    assert.equal(
      'raw' in JSON.parse(eventJson(event, base, { includeRaw: true, variant: 'hosted' })),
      false,
    );
  });

  test('the self-hosted variant never returns invoiceId or paymentId', () => {
    const body = eventJson(billing, base, { includeRaw: true, variant: 'self-hosted' });
    const event = JSON.parse(body) as { eventTypeName: string; raw: { amountCents: number } };
    assert.equal('invoiceId' in event, false);
    assert.equal('paymentId' in event, false);
    assert.equal(event.eventTypeName, 'CHARGE_SUCCEEDED');
    assert.equal(event.raw.amountCents, 1200);
  });
});

describe('bodies', () => {
  const links = [{ href: 'h', rel: 'self' }];

  test('list keys in the real order: links, results, totalCount', () => {
    const body = listJson(links, ['{"a":1}', '{"b":2}'], 7);
    assert.equal(
      body,
      '{"links":[{"href":"h","rel":"self"}],"results":[{"a":1},{"b":2}],"totalCount":7}',
    );
  });

  test('envelope: objects become {status, content}; lists gain status', () => {
    const format = { pretty: false, envelope: true };
    assert.equal(formatBody('{"a":1}', 200, format, 'object'), '{"status":200,"content":{"a":1}}');
    assert.deepEqual(JSON.parse(formatBody(listJson(links, [], 0), 200, format, 'list')), {
      links,
      results: [],
      totalCount: 0,
      status: 200,
    });
  });

  test('pretty indents the same content', () => {
    const compact = listJson(links, ['{"a":{"b":[1]}}'], 1);
    const pretty = formatBody(compact, 200, { pretty: true, envelope: false }, 'list');
    assert.ok(pretty.includes('\n  "links": ['));
    assert.deepEqual(JSON.parse(pretty), JSON.parse(compact));
    assert.equal(formatBody(compact, 200, { pretty: false, envelope: false }, 'list'), compact);
  });
});
