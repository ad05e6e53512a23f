import { z } from 'zod';
import { DATE_TIME_FORMS, parseDateTime } from './dates';
import type { NewEvent } from '@/lib/store/types';
import { EVENT_TYPE_PATTERN } from './catalog';
import { OBJECT_ID_PATTERN } from './object-id';

/**
 * One incoming event (import, seed): the spec's fields, the fields real
 * responses carry beyond it, and any other field passed through untouched.
 * `links` is dropped (we generate our own) and `raw` is stored on its own.
 */
/** The units a metric's currentValue may carry (the spec's list plus the release log's). */
export const METRIC_UNITS = [
  'RAW',
  'BITS',
  'BYTES',
  'KILOBITS',
  'KILOBYTES',
  'MEGABITS',
  'MEGABYTES',
  'GIGABITS',
  'GIGABYTES',
  'TERABYTES',
  'PETABYTES',
  'MILLISECONDS',
  'SECONDS',
  'MINUTES',
  'HOURS',
  'DAYS',
  'billion pixels',
  'million tokens',
] as const;

/** Who acted on whose behalf (OAuth delegated access): nests through `onBehalfOf`. */
export type Principal = { id?: string; name?: string; onBehalfOf?: Principal };
const principalSchema: z.ZodType<Principal> = z.lazy(() =>
  z.looseObject({
    id: z.string().optional(),
    name: z.string().optional(),
    onBehalfOf: principalSchema.optional(),
  }),
);

export const eventInputSchema = z
  .looseObject({
    id: z.string().regex(OBJECT_ID_PATTERN, 'id must be 24 lowercase hex digits'),
    created: z.string().refine((text) => parseDateTime(text) !== null, {
      message: `created must be ${DATE_TIME_FORMS}`,
    }),
    eventTypeName: z.string().regex(EVENT_TYPE_PATTERN, 'eventTypeName must be UPPER_SNAKE_CASE'),
    alertId: z.string().optional(),
    alertConfigId: z.string().optional(),
    apiKeyId: z.string().optional(),
    publicKey: z.string().optional(),
    userId: z.string().optional(),
    username: z.string().optional(),
    remoteAddress: z.string().optional(),
    isGlobalAdmin: z.boolean().optional(),
    targetPublicKey: z.string().optional(),
    targetUsername: z.string().optional(),
    accessListEntry: z.string().optional(),
    whitelistEntry: z.string().optional(),
    teamId: z.string().optional(),
    groupId: z.string().optional(),
    orgId: z.string().optional(),
    clusterId: z.string().optional(),
    clusterName: z.string().optional(),
    replicaSetName: z.string().optional(),
    shardName: z.string().optional(),
    hostId: z.string().optional(),
    hostname: z.string().optional(),
    port: z.number().int().min(0).max(65535).optional(),
    database: z.string().optional(),
    collection: z.string().optional(),
    opType: z.string().optional(),
    metricName: z.string().optional(),
    currentValue: z
      .object({ number: z.number().optional(), units: z.enum(METRIC_UNITS).optional() })
      .optional(),
    invoiceId: z.string().optional(),
    paymentId: z.string().optional(),
    maintenanceWindowId: z.string().optional(),
    resourceId: z.string().optional(),
    resourceType: z.string().optional(),
    resourcePolicyId: z.string().optional(),
    dbUserUsername: z.string().optional(),
    delegatePrincipal: principalSchema.optional(),
    raw: z.record(z.string(), z.unknown()).nullable().optional(),
    links: z.array(z.unknown()).optional(),
  })
  .refine((e) => !(e.apiKeyId !== undefined && e.userId !== undefined), {
    message: 'apiKeyId and userId are mutually exclusive',
    path: ['apiKeyId'],
  })
  .refine((e) => !(e.publicKey !== undefined && e.username !== undefined), {
    message: 'publicKey and username are mutually exclusive',
    path: ['publicKey'],
  });

export type EventInput = z.infer<typeof eventInputSchema>;

/** ISO 8601 UTC, second precision like the real service, milliseconds only when present. */
export function formatCreated(millis: number): string {
  const iso = new Date(millis).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** Compact JSON with keys sorted, recursively: one canonical text per document. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) {
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(inner).sort()) {
        sorted[key] = (inner as Record<string, unknown>)[key];
      }
      return sorted;
    }
    return inner;
  });
}

/**
 * Turns a validated event into its stored form for one organization: the
 * org id is forced to the owning org, `created` is normalized to UTC, and the
 * public fields become one canonical JSON document.
 */
export function encodeEvent(orgId: string, input: EventInput): NewEvent {
  const { raw, links: _links, ...fields } = input;
  const created = parseDateTime(input.created)!;
  const doc = canonicalJson({ ...fields, orgId, created: formatCreated(created) });
  return {
    id: input.id,
    created,
    eventTypeName: input.eventTypeName,
    doc,
    raw: raw === undefined || raw === null ? null : JSON.stringify(raw),
  };
}
