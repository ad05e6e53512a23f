import { z } from 'zod';
import { DATE_TIME_FORMS, parseDateTime } from './dates';
import { EVENT_TYPE_PATTERN } from './catalog';
import { OBJECT_ID_PATTERN } from './object-id';

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

/**
 * One incoming event (import, seed): the spec's fields, the fields real
 * responses carry beyond it, and any other field passed through untouched.
 * `links` is dropped (we generate our own) and `raw` is stored on its own.
 */
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

/**
 * One event as stored and served: the indexed columns plus the serialized
 * documents. The store keeps it; the API splices `doc` into responses.
 */
export type StoredEvent = {
  orgId: string;
  id: string;
  /** Milliseconds since the epoch, UTC. */
  created: number;
  eventTypeName: string;
  /**
   * The event's public fields (everything but `links` and `raw`) as canonical
   * JSON (lib/domain/encode.ts), so responses are spliced, not re-serialized.
   */
  doc: string;
  /** The raw document, verbatim JSON text, or null when the event has none. */
  raw: string | null;
};

/**
 * An event ready to insert into one organization (encodeEvent makes them).
 * `terms`: its filterable field values as the store indexes them, when a
 * bulk load's producer thread already computed them (the store derives them
 * from `doc` otherwise).
 */
export type NewEvent = Omit<StoredEvent, 'orgId'> & { terms?: readonly string[] };
