import type { Variant } from '@/lib/config';
import { encodeEvent } from '@/lib/domain/encode';
import { eventInputSchema, type EventInput, type NewEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';

/**
 * Deterministic, realistic events for the API tests: the shapes the real
 * service returns (Data Explorer operations, metric alerts, API key and user
 * audits, billing with invoice/payment ids, teams, projects), some with raw
 * documents, several sharing a `created` second so tie-breaks are exercised.
 */

/** The newest event's time; every fixture is older, so tests can reason about dates. */
export const FIXTURE_END = Date.UTC(2026, 0, 31, 23, 0, 0);

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const hex = (random: () => number, digits: number) =>
  Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');

type Maker = (ctx: {
  random: () => number;
  orgId: string;
  created: number;
  pick: <T>(items: readonly T[]) => T;
}) => Omit<EventInput, 'id' | 'created'> & { raw?: Record<string, unknown> };

const USERS = ['ada@example.com', 'grace@example.com', 'linus@example.com', 'ken@example.com'];
const PROJECTS = ['65a000000000000000000001', '65a000000000000000000002'];
const ADDRESSES = ['52.190.182.226', '203.0.113.7', '2001:db8::42'];

const user = (ctx: Parameters<Maker>[0]) => {
  const index = Math.floor(ctx.random() * USERS.length);
  return {
    userId: objectIdAt(Date.UTC(2024, 0, 1), index.toString(16).padStart(16, '0')),
    username: USERS[index]!,
    remoteAddress: ctx.pick(ADDRESSES),
    isGlobalAdmin: false,
  };
};

const MAKERS: readonly (readonly [number, Maker])[] = [
  [
    5,
    (ctx) => ({
      eventTypeName: ctx.pick(['DATA_EXPLORER', 'DATA_EXPLORER_CRUD']),
      ...user(ctx),
      groupId: ctx.pick(PROJECTS),
      clusterName: ctx.pick(['Cluster0', 'analytics']),
      database: ctx.pick(['sales', 'inventory']),
      collection: ctx.pick(['orders', 'customers']),
      opType: ctx.pick(['find', 'aggregate', 'insertOne', 'deleteMany']),
    }),
  ],
  [
    4,
    (ctx) => ({
      eventTypeName: 'OUTSIDE_METRIC_THRESHOLD',
      groupId: ctx.pick(PROJECTS),
      hostId: `host-${hex(ctx.random, 6)}`,
      hostname: `cluster0-shard-00-0${Math.floor(ctx.random() * 3)}.example.net`,
      port: 27017,
      replicaSetName: 'atlas-abc-shard-0',
      alertId: objectIdAt(ctx.created, hex(ctx.random, 16)),
      alertConfigId: objectIdAt(Date.UTC(2025, 0, 1), hex(ctx.random, 16)),
      metricName: ctx.pick(['ASSERT_REGULAR', 'CONNECTIONS', 'DISK_PARTITION_SPACE_USED_DATA']),
      currentValue: {
        number: Math.round(ctx.random() * 10_000) / 100,
        units: ctx.pick(['RAW', 'BYTES', 'MILLISECONDS'] as const),
      },
      isGlobalAdmin: false,
    }),
  ],
  [
    3,
    (ctx) => ({
      eventTypeName: ctx.pick(['API_KEY_CREATED', 'API_KEY_DELETED', 'API_KEY_ROLES_CHANGED']),
      apiKeyId: objectIdAt(Date.UTC(2025, 5, 1), hex(ctx.random, 16)),
      publicKey: 'nmtxqlkl',
      targetPublicKey: ctx.pick(['flezioeg', 'mcpvrzod']),
      remoteAddress: ctx.pick(ADDRESSES),
      isGlobalAdmin: false,
    }),
  ],
  [
    3,
    (ctx) => ({
      eventTypeName: ctx.pick(['JOINED_ORG', 'INVITED_TO_ORG', 'REMOVED_FROM_ORG']),
      ...user(ctx),
      targetUsername: ctx.pick(USERS),
    }),
  ],
  [
    2,
    (ctx) => ({
      eventTypeName: ctx.pick(['CHARGE_SUCCEEDED', 'INVOICE_CLOSED', 'PAYMENT_FORGIVEN']),
      invoiceId: objectIdAt(ctx.created, hex(ctx.random, 16)),
      paymentId: objectIdAt(ctx.created, hex(ctx.random, 16)),
      isGlobalAdmin: false,
    }),
  ],
  [1, (ctx) => ({ eventTypeName: 'TEAM_CREATED', ...user(ctx), teamId: objectIdAt(ctx.created) })],
  [1, (ctx) => ({ eventTypeName: 'GROUP_CREATED', ...user(ctx), groupId: ctx.pick(PROJECTS) })],
  [1, (ctx) => ({ eventTypeName: 'ORG_RENAMED', ...user(ctx) })],
  [
    1,
    (ctx) => ({
      eventTypeName: 'ALERT_ACKNOWLEDGED_AUDIT',
      ...user(ctx),
      alertId: objectIdAt(ctx.created, hex(ctx.random, 16)),
    }),
  ],
];

/** Self-hosted installations also record their audit events. */
const SELF_HOSTED_MAKERS: readonly (readonly [number, Maker])[] = [
  [
    2,
    (ctx) => ({
      eventTypeName: ctx.pick(['SUCCESSFUL_LOGIN_AUDIT', 'ADD_HOST_AUDIT']),
      ...user(ctx),
    }),
  ],
];

/**
 * `count` events for one org, newest at FIXTURE_END and spread over about
 * `days` days, returned newest first (created desc, then id desc: the API's
 * order). Every seventh event shares the previous one's second.
 */
export function generateEvents(
  orgId: string,
  count: number,
  options: { variant?: Variant; seed?: number; days?: number } = {},
): NewEvent[] {
  const random = prng(options.seed ?? 42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const makers = [...MAKERS, ...(options.variant === 'self-hosted' ? SELF_HOSTED_MAKERS : [])];
  const totalWeight = makers.reduce((sum, [weight]) => sum + weight, 0);
  const span = (options.days ?? 60) * 86_400_000;
  const step = Math.max(1000, Math.floor(span / Math.max(1, count) / 1000) * 1000);

  const events: NewEvent[] = [];
  let created = FIXTURE_END;
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % 7 !== 0) created -= step + Math.floor(random() * 3) * 1000;
    let roll = random() * totalWeight;
    const maker = makers.find(([weight]) => (roll -= weight) < 0)?.[1] ?? makers[0]![1];
    const { raw, ...fields } = maker({ random, orgId, created, pick });
    const withRaw = i % 3 === 0;
    const input = eventInputSchema.parse({
      ...fields,
      id: objectIdAt(created, (i + 1).toString(16).padStart(8, '0') + hex(random, 8)),
      created: new Date(created).toISOString(),
      raw: withRaw
        ? {
            _t: 'ORG_AUDIT',
            cid: orgId,
            cre: new Date(created).toISOString(),
            description: `Fixture event ${i}`,
            severity: pick(['INFO', 'WARNING']),
            seq: i,
            ...raw,
          }
        : undefined,
    });
    events.push(encodeEvent(orgId, input));
  }
  return events.sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1));
}
