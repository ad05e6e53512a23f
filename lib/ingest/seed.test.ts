import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { categoryOf, isCatalogedEventType } from '@/lib/domain/catalog';
import { encodeEvent } from '@/lib/domain/encode';
import { fieldValues } from '@/lib/domain/filters';
import { eventInputSchema, METRIC_UNITS, type NewEvent } from '@/lib/domain/event';
import { isObjectId, objectIdTime } from '@/lib/domain/object-id';
import {
  generateEventBatches,
  generateEvents,
  resolveSeedRange,
  seedWorld,
  type SeedOptions,
} from './seed';

const ORG = '5f0a1b2c3d4e5f6a7b8c9d0e';
const FROM = Date.UTC(2026, 0, 1);
const TO = Date.UTC(2026, 3, 1);
const BASE: SeedOptions = { orgId: ORG, count: 6000, seed: 42, from: FROM, to: TO };

/** Every field the spec's Event table names, except links (the API adds them) and raw. */
const SPEC_FIELDS = [
  'id',
  'eventTypeName',
  'created',
  'alertId',
  'alertConfigId',
  'apiKeyId',
  'publicKey',
  'userId',
  'username',
  'remoteAddress',
  'isGlobalAdmin',
  'targetPublicKey',
  'targetUsername',
  'accessListEntry',
  'teamId',
  'groupId',
  'clusterId',
  'clusterName',
  'replicaSetName',
  'shardName',
  'hostId',
  'hostname',
  'port',
  'database',
  'collection',
  'opType',
  'metricName',
  'currentValue',
  'invoiceId',
  'paymentId',
  'maintenanceWindowId',
  'orgId',
];

const SPEC_UNITS = new Set<string>(METRIC_UNITS);

type Loose = Record<string, unknown>;

function digest(options: SeedOptions, batchSize = 1000): string {
  const hash = createHash('sha256');
  for (const batch of generateEventBatches(options, batchSize)) {
    for (const e of batch)
      hash.update(`${e.id}|${e.created}|${e.eventTypeName}|${e.doc}|${e.raw}\n`);
  }
  return hash.digest('hex');
}

describe('seed generator', () => {
  const inputs = [...generateEvents(BASE)] as unknown as Loose[];
  const batches = [...generateEventBatches(BASE, 1000)];
  const stored: NewEvent[] = batches.flat();

  test('is deterministic: same options, same bytes, whatever the batch size', () => {
    const first = digest(BASE, 1000);
    assert.equal(digest(BASE, 1000), first);
    assert.equal(digest(BASE, 777), first);
    assert.notEqual(digest({ ...BASE, seed: 43 }), first);
    assert.notEqual(digest({ ...BASE, orgId: '5f0a1b2c3d4e5f6a7b8c9d0f' }), first);
  });

  test('produces exactly the requested count in batches of the requested size', () => {
    assert.equal(stored.length, BASE.count);
    assert.equal(inputs.length, BASE.count);
    assert.deepEqual(
      batches.map((b) => b.length),
      [1000, 1000, 1000, 1000, 1000, 1000],
    );
    assert.equal([...generateEventBatches({ ...BASE, count: 0 })].length, 0);
  });

  test('events ascend in time, in whole seconds, inside the range', () => {
    for (let i = 0; i < stored.length; i++) {
      const e = stored[i]!;
      assert.ok(e.created >= FROM && e.created <= TO, `event ${i} outside the range`);
      assert.equal(e.created % 1000, 0);
      if (i > 0) assert.ok(e.created >= stored[i - 1]!.created, `event ${i} goes back in time`);
    }
    // Spread over the whole range, not bunched at one end.
    assert.ok(stored[0]!.created - FROM < 3 * 86_400_000);
    assert.ok(TO - stored.at(-1)!.created < 3 * 86_400_000);
  });

  test('ids are unique ObjectIds whose timestamp is the created second', () => {
    const ids = new Set(stored.map((e) => e.id));
    assert.equal(ids.size, stored.length);
    for (const e of stored) {
      assert.ok(isObjectId(e.id), e.id);
      assert.equal(objectIdTime(e.id), e.created);
    }
  });

  test('every event is valid input and the fast encoding equals encodeEvent byte for byte', () => {
    inputs.forEach((input, i) => {
      const parsed = eventInputSchema.safeParse(input);
      assert.ok(parsed.success, `event ${i}: ${JSON.stringify(parsed.error?.issues)}`);
      const { fieldValues: values, ...event } = stored[i]!;
      assert.deepEqual(encodeEvent(ORG, parsed.data), event);
      // The field values the generator hands over are the ones the store would derive.
      assert.deepEqual(values, fieldValues(JSON.parse(event.doc) as Record<string, unknown>));
    });
  });

  test('actor rules: user or API key (never both), complete pairs, orgId and isGlobalAdmin always', () => {
    let users = 0;
    let keys = 0;
    let system = 0;
    for (const e of inputs) {
      assert.equal(e.orgId, ORG);
      assert.equal(typeof e.isGlobalAdmin, 'boolean');
      assert.ok(!('apiKeyId' in e && 'userId' in e), 'apiKeyId and userId together');
      assert.ok(!('publicKey' in e && 'username' in e), 'publicKey and username together');
      assert.equal('userId' in e, 'username' in e, 'userId without username or the reverse');
      assert.equal('apiKeyId' in e, 'publicKey' in e, 'apiKeyId without publicKey or the reverse');
      if ('userId' in e) {
        users++;
        assert.match(e.username as string, /^[a-z.]+@[a-z.-]+\.[a-z]+$/);
      } else if ('apiKeyId' in e) {
        keys++;
        assert.match(e.publicKey as string, /^[a-z]{8}$/);
      } else {
        system++;
        assert.equal(e.remoteAddress, undefined);
      }
      if (e.isGlobalAdmin === true) assert.match(e.username as string, /@mongodb\.com$/);
    }
    assert.ok(users > 1000 && keys > 300 && system > 500, `${users} / ${keys} / ${system}`);
    const admins = inputs.filter((e) => e.isGlobalAdmin === true).length;
    assert.ok(admins > 0 && admins < inputs.length * 0.02, `isGlobalAdmin true on ${admins}`);
  });

  test('every field of the spec appears somewhere in a few thousand events', () => {
    const seen = new Set(inputs.flatMap((e) => Object.keys(e)));
    const missing = SPEC_FIELDS.filter((f) => !seen.has(f));
    assert.deepEqual(missing, []);
    assert.ok(seen.has('raw'));
  });

  test('data explorer and metric events carry their extra fields', () => {
    const explorer = inputs.filter((e) => String(e.eventTypeName).startsWith('DATA_EXPLORER'));
    assert.ok(explorer.some((e) => e.eventTypeName === 'DATA_EXPLORER'));
    assert.ok(explorer.some((e) => e.eventTypeName === 'DATA_EXPLORER_CRUD'));
    for (const e of explorer) {
      assert.equal(typeof e.opType, 'string');
      assert.ok(e.groupId && e.clusterName);
      if (e.collection !== undefined) assert.equal(typeof e.database, 'string');
    }
    const metrics = inputs.filter((e) => e.eventTypeName === 'OUTSIDE_METRIC_THRESHOLD');
    assert.ok(metrics.length > 200);
    for (const e of metrics) {
      assert.equal(typeof e.metricName, 'string');
      const value = e.currentValue as { number: number; units: string };
      assert.equal(typeof value.number, 'number');
      assert.ok(SPEC_UNITS.has(value.units), value.units);
      assert.ok(e.hostId && e.hostname && e.port === 27017 && e.replicaSetName);
      assert.match(
        e.hostname as string,
        /^atlas-[a-z0-9]{6}-(shard|config)-\d{2}-\d{2}\.[a-z0-9]{5}\.mongodb\.net$/,
      );
    }
    assert.ok(metrics.some((e) => e.metricName === 'SEARCH_MAX_FIELDS_INDEXED'));
  });

  test('the rare units show up in a larger run, rarely', () => {
    const units = new Map<string, number>();
    for (const e of generateEvents({ ...BASE, count: 60_000 })) {
      const value = (e as Loose).currentValue as { units: string } | undefined;
      if (value) units.set(value.units, (units.get(value.units) ?? 0) + 1);
    }
    const total = [...units.values()].reduce((a, b) => a + b, 0);
    for (const rare of ['billion pixels', 'million tokens']) {
      const n = units.get(rare) ?? 0;
      assert.ok(n > 0 && n < total * 0.01, `${rare}: ${n} of ${total}`);
    }
  });

  test('field sets fit the event type', () => {
    for (const e of inputs) {
      const type = e.eventTypeName as string;
      const category = categoryOf(type)?.name;
      if (category === 'Team') assert.ok(e.teamId, type);
      if (category === 'Alert Audit') assert.ok(e.alertId && e.alertConfigId, type);
      if (category === 'Alert Config Audit') assert.ok(e.alertConfigId, type);
      if (category === 'API User') assert.ok(e.targetPublicKey, type);
      if (type.startsWith('API_KEY_ACCESS_LIST_ENTRY')) {
        assert.ok(e.accessListEntry && e.whitelistEntry === e.accessListEntry, type);
      }
      if (type === 'JOINED_ORG' || type === 'INVITED_TO_ORG') assert.ok(e.targetUsername, type);
      if (/^(CHARGE_|INVOICE_CLOSED)/.test(type)) assert.ok(e.invoiceId, type);
      if (type.startsWith('CHARGE_')) assert.ok(e.paymentId, type);
      if (e.hostId !== undefined) assert.ok(e.hostname && e.port && e.clusterName && e.groupId);
      if (e.shardName !== undefined) assert.equal(e.shardName, e.replicaSetName);
    }
  });

  test('a realistic, recurring world: few projects, people and keys, seen again and again', () => {
    const world = seedWorld(BASE);
    assert.ok(world.projects.length >= 5 && world.projects.length <= 12);
    assert.ok(world.users.length >= 20 && world.users.length <= 60);
    assert.ok(world.apiKeys.length >= 5 && world.apiKeys.length <= 15);
    const distinct = (field: string) => new Set(inputs.map((e) => e[field]).filter(Boolean)).size;
    assert.ok(distinct('groupId') <= world.projects.length);
    assert.ok(distinct('userId') <= world.users.length + world.operators.length);
    assert.ok(distinct('publicKey') <= world.apiKeys.length);
    const addresses = inputs.filter((e) => e.remoteAddress).length;
    assert.ok(distinct('remoteAddress') < addresses / 20, 'addresses recur per actor');
    assert.ok(
      inputs.some((e) => String(e.remoteAddress).includes(':')),
      'some IPv6',
    );
    const types = new Set(inputs.map((e) => e.eventTypeName));
    assert.ok(types.size > 150, `${types.size} distinct types`);
  });

  test('raw documents on about 80% of events, shaped like the service’s', () => {
    const withRaw = inputs.filter((e) => e.raw !== undefined);
    const share = withRaw.length / inputs.length;
    assert.ok(share > 0.75 && share < 0.85, `raw on ${share}`);
    for (const e of withRaw) {
      const raw = e.raw as Loose;
      for (const key of [
        '_t',
        'cre',
        'id',
        'orgId',
        'orgName',
        'severity',
        'description',
        'gn',
        'cid',
      ]) {
        assert.ok(key in raw, `raw.${key} missing`);
      }
      assert.equal(raw.id, e.id);
      assert.equal(raw.cre, e.created);
      assert.equal(raw.cid, e.groupId ?? null);
      assert.ok(['INFO', 'WARNING', 'ERROR', 'CRITICAL'].includes(raw.severity as string));
    }
    assert.ok(
      withRaw.some((e) => (e.raw as Loose).gn === null),
      'some nulls',
    );
    const alert = withRaw.find((e) => e.eventTypeName === 'ALERT_ACKNOWLEDGED_AUDIT');
    assert.equal((alert?.raw as Loose | undefined)?._t, 'ALERT_AUDIT');
  });

  test('hosted data uses hosted types only; self-hosted adds audit types and drops billing ids', () => {
    for (const e of inputs) assert.ok(isCatalogedEventType(e.eventTypeName as string, 'hosted'));
    const selfHosted = [
      ...generateEvents({ ...BASE, variant: 'self-hosted' }),
    ] as unknown as Loose[];
    for (const e of selfHosted) {
      assert.ok(isCatalogedEventType(e.eventTypeName as string, 'self-hosted'));
      assert.equal(e.invoiceId, undefined);
      assert.equal(e.paymentId, undefined);
    }
    const audit = selfHosted.filter(
      (e) => !isCatalogedEventType(e.eventTypeName as string, 'hosted'),
    );
    assert.ok(audit.length > 100, `${audit.length} self-hosted audit events`);
  });

  test("the variants' ids differ (their events do); hosted ids are those of every earlier seed", () => {
    const options = { ...BASE, count: 500 };
    const hosted = [...generateEvents(options)].map((e) => e.id);
    // Pinned: demo stores seeded before the variant took part keep their ids.
    assert.deepEqual(hosted.slice(0, 3), [
      '6955fdc1548cbf7022402405',
      '69563e30548cbf7022402406',
      '69564885548cbf7022402407',
    ]);
    const selfHosted = new Set(
      [...generateEvents({ ...options, variant: 'self-hosted' })].map((e) => e.id),
    );
    assert.equal(selfHosted.size, 500);
    assert.deepEqual(
      hosted.filter((id) => selfHosted.has(id)),
      [],
    );
  });

  test('the default range is the 90 days up to the current hour, stable within the hour', () => {
    const now = Date.UTC(2026, 4, 17, 13, 42, 10);
    const range = resolveSeedRange({}, now);
    assert.equal(range.to, Date.UTC(2026, 4, 17, 13));
    assert.equal(range.to - range.from, 90 * 86_400_000);
    assert.deepEqual(resolveSeedRange({}, now + 600_000), range);
    assert.deepEqual(resolveSeedRange({ from: FROM }, now), { from: FROM, to: range.to });
    assert.throws(() => resolveSeedRange({ from: TO, to: FROM }), RangeError);
  });

  test('a one-second range still works, and a bad count is refused', () => {
    const events = [
      ...generateEventBatches({ ...BASE, count: 50, from: FROM, to: FROM + 999 }),
    ].flat();
    assert.equal(events.length, 50);
    assert.ok(events.every((e) => e.created === FROM));
    assert.equal(new Set(events.map((e) => e.id)).size, 50);
    assert.throws(() => [...generateEventBatches({ ...BASE, count: -1 })], RangeError);
    assert.throws(() => [...generateEventBatches({ ...BASE, count: 1.5 })], RangeError);
  });
});
