import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ApiEvent,
  eventActor,
  eventDetailSections,
  eventResource,
  eventResourceLines,
  eventSummary,
  eventTarget,
  formatMetricValue,
  longAgo,
  shortAgo,
} from './present';

const base = { id: '6a793fbd2c88faeba59bd3b5', created: '2026-08-10T03:04:29Z' };
const event = (fields: Partial<ApiEvent> & { eventTypeName: string }): ApiEvent => ({
  ...base,
  ...fields,
});

describe('lib/client/present', () => {
  it('names the actor: user, API key, or the system', () => {
    assert.deepEqual(eventActor(event({ eventTypeName: 'X', username: 'a@b.c', userId: 'u1' })), {
      kind: 'user',
      label: 'a@b.c',
      id: 'u1',
    });
    assert.equal(eventActor(event({ eventTypeName: 'X', publicKey: 'abcdefgh' })).kind, 'api-key');
    assert.equal(eventActor(event({ eventTypeName: 'X' })).label, 'System');
  });

  it('names the target when there is one', () => {
    assert.deepEqual(eventTarget(event({ eventTypeName: 'X', targetPublicKey: 'flezioeg' })), {
      kind: 'API key',
      label: 'flezioeg',
    });
    assert.deepEqual(
      eventTarget(event({ eventTypeName: 'X', resourceId: 'r1', resourceType: 'project' })),
      { kind: 'project', label: 'r1' },
    );
    assert.equal(eventTarget(event({ eventTypeName: 'X' })), null);
  });

  it('puts the most specific place first and the project second', () => {
    const e = event({
      eventTypeName: 'X',
      groupId: 'g1',
      clusterName: 'Cluster0',
      hostname: 'h1.example.net',
      port: 27017,
    });
    assert.deepEqual(eventResourceLines(e), {
      primary: 'cluster Cluster0 / host h1.example.net:27017',
      secondary: 'project g1',
    });
    assert.equal(eventResource(e), 'project g1 / cluster Cluster0 / host h1.example.net:27017');
    assert.deepEqual(eventResourceLines(event({ eventTypeName: 'X', groupId: 'g1' })), {
      primary: 'project g1',
      secondary: '',
    });
  });

  it('summarizes threshold, data-explorer and billing events', () => {
    assert.equal(
      eventSummary(
        event({
          eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
          metricName: 'CONNECTIONS',
          currentValue: { number: 1536, units: 'RAW' },
        }),
      ),
      'CONNECTIONS = 1,536',
    );
    assert.equal(formatMetricValue({ number: 2.5, units: 'GIGABYTES' }), '2.5 GB');
    assert.equal(
      eventSummary(
        event({
          eventTypeName: 'DATA_EXPLORER',
          database: 'sales',
          collection: 'orders',
          opType: 'find',
        }),
      ),
      'sales.orders · find',
    );
    assert.equal(
      eventSummary(event({ eventTypeName: 'CHARGE_SUCCEEDED', invoiceId: 'i1', paymentId: 'p1' })),
      'invoice i1 · payment p1',
    );
    assert.equal(eventSummary(event({ eventTypeName: 'ORG_CREATED' })), '');
  });

  it('shows every field present, unknown ones under their own name', () => {
    const sections = eventDetailSections(
      event({
        eventTypeName: 'X',
        username: 'a@b.c',
        isGlobalAdmin: false,
        currentValue: { number: 3, units: 'SECONDS' },
        someNewField: 'kept',
        links: [{ href: 'http://x', rel: 'self' }],
      }),
    );
    const flat = sections.flatMap((s) => s.fields.map((f) => `${s.title}/${f.label}=${f.value}`));
    assert.deepEqual(flat, [
      'Actor/Username=a@b.c',
      'Actor/Operator-level role=No',
      'Metric/Current value=3 s (SECONDS)',
      'Other fields/someNewField=kept',
    ]);
  });

  it('shows a field named "__proto__" under its own name, lending its fields to nothing', () => {
    // As JSON.parse reads the API's answer: an own member, not a prototype.
    const served = JSON.parse(
      '{"__proto__":{"username":"ceo@example.com"},"created":"2026-08-10T03:01:00Z",' +
        '"eventTypeName":"JOINED_ORG","id":"6d0000000000000000000001"}',
    ) as ApiEvent;
    const flat = eventDetailSections(served).flatMap((s) =>
      s.fields.map((f) => `${s.title}/${f.label}=${f.value}`),
    );
    assert.deepEqual(flat, ['Other fields/__proto__={"username":"ceo@example.com"}']);
    assert.equal(eventActor(served).kind, 'none');
  });
});

describe('relative times', () => {
  const now = Date.UTC(2026, 0, 2, 10);
  it('read "just now" within a minute either way, as the page clock lags', () => {
    for (const offset of [-59_000, -13_000, 0, 13_000, 45_000, 59_000]) {
      assert.equal(shortAgo(now + offset, now), 'just now', String(offset));
      assert.equal(longAgo(now + offset, now), 'just now', String(offset));
    }
  });
  it('are the usual ones beyond', () => {
    assert.equal(shortAgo(now - 3 * 60_000, now), '3 min ago');
    assert.equal(longAgo(now - 3 * 60_000, now), '3 minutes ago');
    assert.equal(shortAgo(now + 2 * 60_000, now), 'in 2 min');
  });
});
