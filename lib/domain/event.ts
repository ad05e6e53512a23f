import * as z from 'zod';
import { DATE_TIME_FORMS, parseDateTime } from './dates';
import { EVENT_TYPE_PATTERN } from './catalog';
import * as jsonText from './json-text';
import { OBJECT_ID_PATTERN } from './object-id';
import { isPortText, MAX_EVENT_NESTING } from './limits';

// Module-level copies for checkFieldText, run per member of every imported
// record (under tsx an imported binding is a getter call; see encode.ts).
const { isNullText, OPEN_ARRAY, OPEN_OBJECT, QUOTE } = jsonText;

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

/**
 * The kinds of value an incoming field may hold. The table below gives each
 * known field its kind; the zod schema (error messages, OpenAPI) and the
 * fast check imports run on every record (isValidEventInput) are both made
 * from it, so they cannot disagree on a field (event.test.ts checks them
 * against each other on valid and broken records).
 *
 * Lenient where the real service is: any field but the three required ones
 * may be null, `currentValue.units` is any string (the catalogue grows;
 * METRIC_UNITS are the known ones), numbers may come as numeric strings.
 */
export type FieldKind =
  | 'objectId'
  | 'dateTime'
  | 'eventType'
  | 'text'
  | 'flag'
  | 'port'
  | 'metricValue'
  | 'principal'
  | 'rawDoc'
  | 'list';

const REQUIRED = ['id', 'created', 'eventTypeName'] as const;

const FIELD_KINDS = {
  id: 'objectId',
  created: 'dateTime',
  eventTypeName: 'eventType',
  alertId: 'text',
  alertConfigId: 'text',
  apiKeyId: 'text',
  publicKey: 'text',
  userId: 'text',
  username: 'text',
  remoteAddress: 'text',
  isGlobalAdmin: 'flag',
  targetPublicKey: 'text',
  targetUsername: 'text',
  accessListEntry: 'text',
  whitelistEntry: 'text',
  teamId: 'text',
  groupId: 'text',
  orgId: 'text',
  clusterId: 'text',
  clusterName: 'text',
  replicaSetName: 'text',
  shardName: 'text',
  hostId: 'text',
  hostname: 'text',
  port: 'port',
  database: 'text',
  collection: 'text',
  opType: 'text',
  metricName: 'text',
  currentValue: 'metricValue',
  invoiceId: 'text',
  paymentId: 'text',
  maintenanceWindowId: 'text',
  resourceId: 'text',
  resourceType: 'text',
  resourcePolicyId: 'text',
  dbUserUsername: 'text',
  delegatePrincipal: 'principal',
  raw: 'rawDoc',
  links: 'list',
} as const satisfies Record<string, FieldKind>;

/** Pairs of fields an event never carries both of (non-null). */
const EXCLUSIVE_PAIRS = [
  ['apiKeyId', 'userId'],
  ['publicKey', 'username'],
] as const;

/** A number, or the same number written as a string (the real service varies by field and version). */
const NUMERIC_STRING = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Who acted on whose behalf (OAuth delegated access): nests through `onBehalfOf`. */
export type Principal = {
  id?: string | null;
  name?: string | null;
  onBehalfOf?: Principal | null;
};
const text = () => z.string().nullable().optional();
const principalSchema: z.ZodType<Principal> = z.lazy(() =>
  z.looseObject({
    id: text(),
    name: text(),
    onBehalfOf: principalSchema.nullable().optional(),
  }),
);

const PORT_MESSAGE = 'port must be an integer from 0 to 65535';

const METRIC_NUMBER_MESSAGE = 'must be a number or a numeric string';
/**
 * A number JSON can write but a double cannot hold (1e400 parses to
 * Infinity): no metric the real service measures is one, and as a numeric
 * string it is kept as written.
 */
const METRIC_NUMBER_RANGE =
  'a number beyond the range of a 64-bit float (such as 1e400): write it as a numeric string ("1e400"), which is kept as written';

const ZOD_KINDS = {
  objectId: () => z.string().regex(OBJECT_ID_PATTERN, 'id must be 24 lowercase hex digits'),
  dateTime: () =>
    z.string().refine((text) => parseDateTime(text) !== null, {
      message: `created must be ${DATE_TIME_FORMS}`,
    }),
  eventType: () => z.string().regex(EVENT_TYPE_PATTERN, 'eventTypeName must be UPPER_SNAKE_CASE'),
  text,
  flag: () => z.boolean().nullable().optional(),
  // One message for every way a port can be wrong (27017.5, 1e400, -1,
  // true): zod's own were "Invalid input" or "Too small".
  port: () =>
    z
      .union(
        [
          z.number().int(PORT_MESSAGE).min(0, PORT_MESSAGE).max(65535, PORT_MESSAGE),
          z.string().refine(isPortText, PORT_MESSAGE),
        ],
        { error: PORT_MESSAGE },
      )
      .nullable()
      .optional(),
  metricValue: () =>
    z
      .looseObject({
        number: z
          .union(
            [z.number(), z.string().regex(NUMERIC_STRING, METRIC_NUMBER_MESSAGE)],
            // zod's own for a union was "Invalid input", whatever was wrong.
            {
              error: (issue) =>
                typeof issue.input === 'number' ? METRIC_NUMBER_RANGE : METRIC_NUMBER_MESSAGE,
            },
          )
          .nullable()
          .optional(),
        units: text(),
      })
      .nullable()
      .optional(),
  principal: () => principalSchema.nullable().optional(),
  rawDoc: () => z.record(z.string(), z.unknown()).nullable().optional(),
  list: () => z.array(z.unknown()).nullable().optional(),
} as const;

type Shape = {
  [K in keyof typeof FIELD_KINDS]: ReturnType<(typeof ZOD_KINDS)[(typeof FIELD_KINDS)[K]]>;
};

function zodShape(): Shape {
  const shape: Record<string, z.ZodType> = {};
  for (const [field, kind] of Object.entries(FIELD_KINDS)) shape[field] = ZOD_KINDS[kind]();
  return shape as Shape;
}

/**
 * One incoming event (import, seed): the spec's fields, the fields real
 * responses carry beyond it, and any other field passed through untouched.
 * `links` is dropped (we generate our own) and `raw` is stored on its own.
 */
export const eventInputSchema = z
  .looseObject(zodShape())
  // The same pairs as the fast check's, so the two cannot disagree.
  .superRefine((e, context) => {
    for (const [a, b] of EXCLUSIVE_PAIRS) {
      if (e[a] != null && e[b] != null) {
        context.addIssue({
          code: 'custom',
          message: `${a} and ${b} are mutually exclusive`,
          path: [a],
        });
      }
    }
  });

// ---- the fast check -----------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): boolean {
  return value === null || typeof value === 'string';
}

function isPrincipal(value: unknown): boolean {
  if (value === null) return true;
  if (!isPlainObject(value)) return false;
  return (
    (value.id === undefined || isText(value.id)) &&
    (value.name === undefined || isText(value.name)) &&
    (value.onBehalfOf === undefined || isPrincipal(value.onBehalfOf))
  );
}

const FAST_KINDS: Record<FieldKind, (value: unknown) => boolean> = {
  objectId: (v) => typeof v === 'string' && OBJECT_ID_PATTERN.test(v),
  dateTime: (v) => typeof v === 'string' && parseDateTime(v) !== null,
  eventType: (v) => typeof v === 'string' && EVENT_TYPE_PATTERN.test(v),
  text: isText,
  flag: (v) => v === null || typeof v === 'boolean',
  port: (v) =>
    v === null ||
    (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535) ||
    (typeof v === 'string' && isPortText(v)),
  metricValue: (v) => {
    if (v === null) return true;
    if (!isPlainObject(v)) return false;
    const n = v.number;
    return (
      (n === undefined ||
        n === null ||
        (typeof n === 'number' && Number.isFinite(n)) ||
        (typeof n === 'string' && NUMERIC_STRING.test(n))) &&
      (v.units === undefined || isText(v.units))
    );
  },
  principal: isPrincipal,
  rawDoc: (v) => v === null || isPlainObject(v),
  list: (v) => v === null || Array.isArray(v),
};

const FAST_CHECKS = new Map<string, (value: unknown) => boolean>(
  Object.entries(FIELD_KINDS).map(([field, kind]) => [field, FAST_KINDS[kind]]),
);

/**
 * Whether eventInputSchema accepts a value, without building its result or
 * its errors: about ten times cheaper, which matters at 100,000 records a
 * second. Imports ask this first and zod only for a record it refuses (for
 * the message). Only the fields present are visited, not the whole table.
 */
export function isValidEventInput(value: unknown): value is EventInput {
  if (!isPlainObject(value)) return false;
  for (const field of REQUIRED) if (value[field] === undefined) return false;
  for (const key in value) {
    const check = FAST_CHECKS.get(key);
    if (check !== undefined) {
      const field = value[key];
      if (field !== undefined && !check(field)) return false;
    }
  }
  for (const [a, b] of EXCLUSIVE_PAIRS) if (value[a] != null && value[b] != null) return false;
  return true;
}

/**
 * Why an event nests too deep to keep (past MAX_EVENT_NESTING levels), or
 * undefined. Its JSON `text`, when known, is scanned; a value without one
 * is walked with a list, not recursion, which a deep enough value would
 * overflow.
 */
export function nestingProblem(value: unknown, text: string | undefined): string | undefined {
  const tooDeep =
    text === undefined
      ? valueNestsDeeperThan(value, MAX_EVENT_NESTING)
      : jsonText.nestsDeeperThan(text, MAX_EVENT_NESTING);
  return tooDeep
    ? `The event nests objects and arrays more than ${MAX_EVENT_NESTING} levels deep (MongoDB's limit, which no event of the real service passes)`
    : undefined;
}

function valueNestsDeeperThan(value: unknown, limit: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 1; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (node === null || typeof node !== 'object') continue;
      if (depth > limit) return true;
      for (const child of Object.values(node)) next.push(child);
    }
    level = next;
  }
  return false;
}

/**
 * isValidEventInput's check of one top-level member, made from its compact
 * JSON text (`text` from `start` to `end`, known to be valid JSON), for a
 * record read without parsing (lib/domain/encode.ts, encodeRecordText).
 * `kind` is the field's (FIELD_KIND_OF). True exactly when the parsed value
 * would pass, false when it would not or when the text is unusual (an
 * escaped id: the caller then parses the record and asks
 * isValidEventInput). Only the rarer kinds parse their value.
 */
export function checkFieldText(kind: FieldKind, text: string, start: number, end: number): boolean {
  const first = text.charCodeAt(start);
  switch (kind) {
    // A string or null, an object or null, an array or null: the value's
    // first character decides.
    case 'text':
      return first === QUOTE || isNullText(text, start, end);
    case 'rawDoc':
      return first === OPEN_OBJECT || isNullText(text, start, end);
    case 'list':
      return first === OPEN_ARRAY || isNullText(text, start, end);
    case 'flag':
      return first === 116 || first === 102 || isNullText(text, start, end); // true, false
    // Strings of a pattern that holds no backslash: the text less its quotes is the value.
    case 'objectId':
    case 'eventType':
    case 'dateTime': {
      if (first !== QUOTE) return false;
      const value = text.slice(start + 1, end - 1);
      return !value.includes('\\') && FAST_KINDS[kind](value);
    }
    default:
      return FAST_KINDS[kind](JSON.parse(text.slice(start, end)));
  }
}

/** The kind of each field the table knows; any value passes for other keys. */
export const FIELD_KIND_OF: ReadonlyMap<string, FieldKind> = new Map(Object.entries(FIELD_KINDS));

/** Pairs of fields an event never carries both of, non-null (isValidEventInput). */
export const EXCLUSIVE_FIELDS: readonly (readonly [string, string])[] = EXCLUSIVE_PAIRS;

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
 * An event ready for the store, optionally with the values of its filterable
 * fields (`fieldValues[f]` is the non-empty string value of FILTER_FIELDS[f],
 * lib/domain/filters.ts, or undefined), when the bulk load's producer thread
 * had the parsed fields at hand: the store derives its index terms from them
 * instead of parsing `doc` again.
 */
export type NewEvent = Omit<StoredEvent, 'orgId'> & {
  fieldValues?: readonly (string | undefined)[];
  /**
   * `doc` and `raw` as UTF-8 bytes, when the event holds them so (a bulk
   * load's batch, lib/ingest/bulk-batch.ts): a store that can take bytes
   * binds these, and no string is decoded only to be encoded again. Both
   * or neither.
   */
  readonly docBytes?: Uint8Array;
  readonly rawBytes?: Uint8Array | null;
};
