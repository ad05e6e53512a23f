import type { Variant } from '@/lib/config';
import { DAY_MS, HOUR_MS } from '@/lib/domain/dates';
import { canonicalJson } from '@/lib/domain/encode';
import { fieldValues } from '@/lib/domain/filters';
import { type EventInput, formatCreated, type NewEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import { Prng } from './seed-prng';
import { type Profile, type Severity, type TypeSpec, typeMix } from './seed-types';
import {
  type SeedApiKey,
  type SeedCluster,
  type SeedHost,
  type SeedProject,
  type SeedUser,
  type SeedWorld,
  buildWorld,
  randomIpv4,
} from './seed-world';

/**
 * Deterministic demo events for one organization.
 *
 * The same options always produce the same bytes: every draw comes from a
 * PRNG seeded with (seed, orgId), never from Math.random or the clock. The
 * only clock input is the default time range: without `from`/`to` the range
 * is the 90 days ending at the start of the current UTC hour, so reruns within
 * the same hour are identical and later reruns differ only by that anchor.
 *
 * Events come out in ascending `created` order (whole seconds, like the real
 * service), spread over the range with a weekday/office-hours rhythm, and each
 * id is an ObjectId whose timestamp is its `created` second. Ids are unique
 * per (seed, org), so seeding the same range twice inserts nothing new.
 */

export type SeedOptions = {
  orgId: string;
  count: number;
  /** Any number or text; default 1. */
  seed?: number | string;
  /** Milliseconds since the epoch, inclusive. */
  from?: number;
  to?: number;
  /** The self-hosted variant adds its audit types and drops billing fields. */
  variant?: Variant;
  /** Shown in raw documents as orgName; by default a name derived from the seed. */
  orgName?: string;
};

export const DEFAULT_SEED = 1;
export const DEFAULT_SPAN_DAYS = 90;

/** The concrete range a seed run covers, defaults applied (see the module comment). */
export function resolveSeedRange(
  options: { from?: number; to?: number },
  now: number = Date.now(),
): { from: number; to: number } {
  const to = options.to ?? Math.floor(now / HOUR_MS) * HOUR_MS;
  const from = options.from ?? to - DEFAULT_SPAN_DAYS * DAY_MS;
  if (!(from < to)) throw new RangeError('The seed range must start before it ends');
  return { from, to };
}

/**
 * The part of a range seeded events can fall in: its whole seconds, like
 * the real service's timestamps. Null when it holds none (a range within
 * one second that does not start on it).
 */
export function seedSeconds(range: { from: number; to: number }): {
  from: number;
  to: number;
} | null {
  const from = Math.ceil(range.from / 1000) * 1000;
  const to = Math.floor(range.to / 1000) * 1000;
  return from <= to ? { from, to } : null;
}

/** One generated event: its public fields in canonical key order, and its raw document. */
type SeedRecord = { created: number; fields: EventFields; raw: RawDoc | null };

/** Events as import would receive them (raw included), for tests and exports. */
export function* generateEvents(options: SeedOptions): Generator<EventInput> {
  for (const record of new SeedGenerator(options).records()) {
    const input: Record<string, unknown> = {};
    const keys = Object.keys(record.fields);
    // A field set outside its type's template lands out of order, and
    // generateEventBatches would store a non-canonical document: fail loudly
    // here (tests go through this path) with the keys as they came out.
    if (JSON.stringify(record.fields) !== canonicalJson(record.fields)) {
      throw new Error(
        `${record.fields.eventTypeName}: fields out of canonical order (one is set outside its template): ${keys.join(', ')}`,
      );
    }
    for (const key of keys) {
      const value = record.fields[key as FieldName];
      if (value !== undefined) input[key] = value;
    }
    if (record.raw) input.raw = JSON.parse(JSON.stringify(record.raw)) as Record<string, unknown>;
    yield input as EventInput;
  }
}

/**
 * Events ready for `store.insertEvents`, in batches. The documents come out
 * of JSON.stringify already canonical (the templates below hold their keys
 * sorted), byte-identical to what `encodeEvent` (lib/domain/encode.ts) makes
 * of the same input without its per-event sorting; seed.test.ts checks every
 * event type against encodeEvent, and generateEvents against canonicalJson.
 */
export function* generateEventBatches(
  options: SeedOptions,
  batchSize = 5000,
): Generator<NewEvent[]> {
  let batch: NewEvent[] = [];
  for (const event of generateNewEvents(options)) {
    batch.push(event);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The events one at a time, encoded as the store takes them (a bulk load packs them as they come). */
export function* generateNewEvents(options: SeedOptions): Generator<NewEvent> {
  for (const record of new SeedGenerator(options).records()) {
    yield {
      id: record.fields.id!,
      created: record.created,
      eventTypeName: record.fields.eventTypeName!,
      // JSON.stringify writes the template's keys in their (canonical) order.
      doc: JSON.stringify(record.fields),
      raw: record.raw ? JSON.stringify(record.raw) : null,
      // From the fields at hand: the store would otherwise parse the document.
      fieldValues: fieldValues(record.fields),
    };
  }
}

/** The fictional organization a seed run draws from (for summaries and tests). */
export function seedWorld(options: SeedOptions): SeedWorld {
  return new SeedGenerator({ ...options, count: 0 }).world;
}

// ---- canonical field order ------------------------------------------------

/**
 * Every field the generator may set. Each event type gets a template object
 * holding the fields it may set (undefined), in sorted order, so
 * JSON.stringify writes the set ones in exactly canonicalJson's order and
 * skips the rest. One template per type keeps the objects small: stringify
 * cost grows with every property, set or not. (Building the JSON by hand is
 * slower still: the many small concatenations cost more in GC.)
 */
const FIELD_NAMES = [
  'accessListEntry',
  'alertConfigId',
  'alertId',
  'apiKeyId',
  'clusterId',
  'clusterName',
  'collection',
  'created',
  'currentValue',
  'database',
  'eventTypeName',
  'groupId',
  'hostId',
  'hostname',
  'id',
  'invoiceId',
  'isGlobalAdmin',
  'maintenanceWindowId',
  'metricName',
  'opType',
  'orgId',
  'paymentId',
  'port',
  'publicKey',
  'remoteAddress',
  'replicaSetName',
  'resourceId',
  'resourcePolicyId',
  'resourceType',
  'shardName',
  'targetPublicKey',
  'targetUsername',
  'teamId',
  'userId',
  'username',
  'whitelistEntry',
] as const;
type FieldName = (typeof FIELD_NAMES)[number];
type EventFields = { [K in FieldName]?: unknown } & {
  id?: string;
  eventTypeName?: string;
  groupId?: string;
};
const FIELD_ORDER: readonly FieldName[] = [...FIELD_NAMES].sort();

const COMMON_FIELDS: readonly FieldName[] = [
  'created',
  'eventTypeName',
  'id',
  'isGlobalAdmin',
  'orgId',
];
const USER_FIELDS: readonly FieldName[] = ['userId', 'username', 'remoteAddress'];
const KEY_FIELDS: readonly FieldName[] = ['apiKeyId', 'publicKey', 'remoteAddress'];
const ACTOR_FIELDS: Record<TypeSpec['actor'], readonly FieldName[]> = {
  user: USER_FIELDS,
  operator: USER_FIELDS,
  apiKey: KEY_FIELDS,
  mixed: [...USER_FIELDS, ...KEY_FIELDS],
  system: [],
};
const HOST_FIELDS: readonly FieldName[] = [
  'groupId',
  'clusterId',
  'clusterName',
  'hostId',
  'hostname',
  'port',
  'replicaSetName',
  'shardName',
];
/** The fields each profile may set (applyProfile below must stay within them). */
const PROFILE_FIELDS: Record<Profile, readonly FieldName[]> = {
  none: [],
  project: ['groupId'],
  alert: ['groupId', 'alertId', 'alertConfigId'],
  alertConfig: ['groupId', 'alertConfigId'],
  apiKeyTarget: ['targetPublicKey'],
  apiKeyGroup: ['targetPublicKey', 'groupId'],
  apiKeyAccessList: ['targetPublicKey', 'accessListEntry', 'whitelistEntry'],
  invoice: ['invoiceId'],
  payment: ['invoiceId', 'paymentId'],
  team: ['teamId'],
  teamGroup: ['teamId', 'groupId'],
  userTarget: ['targetUsername'],
  joined: ['targetUsername'],
  teamUserTarget: ['teamId', 'targetUsername'],
  groupUserTarget: ['groupId', 'targetUsername'],
  resource: ['groupId', 'resourceId', 'resourceType'],
  resourcePolicy: ['resourcePolicyId'],
  resourcePolicyViolation: ['resourcePolicyId', 'groupId'],
  dataExplorer: ['groupId', 'clusterId', 'clusterName', 'opType', 'database', 'collection'],
  metric: [...HOST_FIELDS, 'metricName', 'currentValue', 'alertConfigId', 'alertId'],
  host: HOST_FIELDS,
  cluster: ['groupId', 'clusterId', 'clusterName'],
  maintenance: ['groupId', 'clusterName', 'maintenanceWindowId'],
  mlabCluster: ['groupId', 'clusterName'],
};

/** The template an event type's records start from: its possible fields, sorted. */
function fieldTemplate(spec: TypeSpec): EventFields {
  const names = new Set([
    ...COMMON_FIELDS,
    ...ACTOR_FIELDS[spec.actor],
    ...PROFILE_FIELDS[spec.profile],
  ]);
  return Object.fromEntries(FIELD_ORDER.filter((k) => names.has(k)).map((k) => [k, undefined]));
}
/**
 * The raw document's members, in the order the service writes them; like
 * the fields, one fixed shape whose unset members JSON.stringify skips.
 */
const RAW_TEMPLATE = {
  _t: '',
  alertConfigId: undefined as unknown,
  cid: null as string | null,
  cre: '',
  description: '',
  gn: null as string | null,
  hidden: false,
  id: '',
  orgId: '',
  orgName: '',
  severity: '',
  source: 'SYSTEM',
  un: null as string | null,
  roles: undefined as string[] | undefined,
  amountCents: undefined as number | undefined,
  paymentMethod: undefined as string | undefined,
  hostnameAndPort: undefined as string | undefined,
  rsId: undefined as string | undefined,
  metricName: undefined as string | undefined,
  currentValue: undefined as { number: number; units: string } | undefined,
};
type RawDoc = typeof RAW_TEMPLATE;

// ---- metrics and operations ----------------------------------------------

type Metric = {
  name: string;
  units: readonly string[];
  min: number;
  max: number;
  integer: boolean;
};

/** Host metrics with plausible units and magnitudes; the rare units are rare. */
const METRICS: readonly { metric: Metric; weight: number }[] = [
  { metric: m('ASSERT_REGULAR', ['RAW'], 1, 400, false), weight: 8 },
  { metric: m('ASSERT_WARNING', ['RAW'], 1, 120, false), weight: 3 },
  { metric: m('CONNECTIONS', ['RAW'], 500, 5000, true), weight: 12 },
  { metric: m('CONNECTIONS_PERCENT', ['RAW'], 80, 100, false), weight: 5 },
  { metric: m('NORMALIZED_SYSTEM_CPU_USER', ['RAW'], 85, 100, false), weight: 12 },
  { metric: m('SYSTEM_MEMORY_PERCENT_USED', ['RAW'], 90, 99, false), weight: 6 },
  {
    metric: m('QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED', ['RAW'], 1000, 90000, false),
    weight: 8,
  },
  {
    metric: m('DISK_PARTITION_SPACE_USED_DATA', ['GIGABYTES', 'TERABYTES'], 1, 900, false),
    weight: 8,
  },
  { metric: m('DISK_PARTITION_LATENCY_READ_DATA', ['MILLISECONDS'], 20, 900, false), weight: 4 },
  { metric: m('OPLOG_MASTER_TIME', ['HOURS', 'MINUTES', 'DAYS'], 1, 48, false), weight: 4 },
  { metric: m('OPLOG_SLAVE_LAG_MASTER_TIME', ['SECONDS', 'MINUTES'], 10, 600, false), weight: 4 },
  { metric: m('AVG_COMMAND_EXECUTION_TIME', ['MILLISECONDS'], 100, 5000, false), weight: 3 },
  { metric: m('NETWORK_BYTES_IN', ['KILOBYTES', 'MEGABYTES', 'BYTES'], 1, 900, false), weight: 2 },
  {
    metric: m('NETWORK_BYTES_OUT', ['MEGABYTES', 'GIGABYTES', 'KILOBYTES'], 1, 900, false),
    weight: 2,
  },
  {
    metric: m(
      'MAX_NETWORK_THROUGHPUT',
      ['MEGABITS', 'GIGABITS', 'KILOBITS', 'BITS'],
      1,
      900,
      false,
    ),
    weight: 1,
  },
  { metric: m('LOGICAL_SIZE', ['GIGABYTES', 'TERABYTES', 'PETABYTES'], 1, 500, false), weight: 1 },
  { metric: m('BACKUP_OPLOG_DAYS_BEHIND', ['DAYS'], 1, 7, true), weight: 0.5 },
  { metric: m('SEARCH_MAX_FIELDS_INDEXED', ['RAW'], 900, 1000, true), weight: 1.5 },
  { metric: m('SEARCH_MAX_NGRAM_FIELDS_INDEXED', ['RAW'], 180, 200, true), weight: 0.8 },
  { metric: m('EMBEDDING_TOKENS_PROCESSED', ['million tokens'], 1, 500, false), weight: 0.15 },
  { metric: m('EMBEDDING_PIXELS_PROCESSED', ['billion pixels'], 1, 90, false), weight: 0.1 },
];

function m(
  name: string,
  units: readonly string[],
  min: number,
  max: number,
  integer: boolean,
): Metric {
  return { name, units, min, max, integer };
}

const READ_OPS = ['find', 'find', 'find', 'aggregate', 'aggregate', 'count', 'listIndexes'];
const WRITE_OPS = ['insert', 'update', 'update', 'delete', 'replace', 'createIndex', 'dropIndex'];

// ---- the generator ----------------------------------------------------------

type Alert = { alertId: string; alertConfigId: string; groupId: string };
type Invoice = { invoiceId: string; paymentIds: readonly string[] };

class SeedGenerator {
  readonly world: SeedWorld;
  private readonly prng: Prng;
  private readonly seedText: string;
  private readonly options: SeedOptions;
  private readonly from: number;
  private readonly to: number;
  private readonly specs: readonly TypeSpec[];
  private readonly templates: readonly EventFields[];
  /** 65,536 slots mapping a 16-bit draw to a type index: O(1) weighted choice. */
  private readonly typeTable: Uint16Array;
  private readonly metricTable: Uint8Array;
  private readonly projects: Map<string, SeedProject>;
  private readonly idTag: string;
  private idCounter: number;
  private readonly alerts: Alert[] = [];
  private readonly invoices = new Map<number, Invoice>();
  /** The raw document of the event being built. */
  private raw: RawDoc = { ...RAW_TEMPLATE };
  private lastUser: SeedUser | undefined;
  private lastKey: SeedApiKey | undefined;
  private explorer: { user: SeedUser; cluster: SeedCluster; database: number } | undefined;

  constructor(options: SeedOptions) {
    if (!Number.isSafeInteger(options.count) || options.count < 0) {
      throw new RangeError('count must be a non-negative integer');
    }
    this.options = options;
    const seconds = seedSeconds(resolveSeedRange(options));
    if (!seconds) throw new RangeError('The seed range is shorter than a second');
    this.from = seconds.from;
    this.to = seconds.to;
    this.seedText = `${String(options.seed ?? DEFAULT_SEED)}|${options.orgId}`;
    this.prng = new Prng(this.seedText);
    this.world = buildWorld(this.prng, {
      orgId: options.orgId,
      orgName: options.orgName,
      epoch: this.from,
    });
    this.projects = new Map(this.world.projects.map((p) => [p.groupId, p]));
    this.specs = typeMix(options.variant ?? 'hosted');
    this.templates = this.specs.map(fieldTemplate);
    this.typeTable = weightedTable(this.specs.map((s) => s.weight));
    this.metricTable = Uint8Array.from(weightedTable(METRICS.map((x) => x.weight)));
    // Like a real ObjectId: 5 bytes fixed per "process", 3 bytes of counter.
    const tag = this.prng.hex(10);
    // The variants' events differ, so must their ids: with one tag, seeding
    // the other variant with the same seed and range reused the ids and every
    // repeat was skipped as already stored. The hosted tag stays as it was
    // (stores seeded before keep theirs); only the self-hosted one is
    // drawn from the variant too.
    this.idTag =
      options.variant === 'self-hosted' ? new Prng(`${this.seedText}|self-hosted`).hex(10) : tag;
    this.idCounter = this.prng.int(0x1000000);
  }

  *records(): Generator<SeedRecord> {
    const timeline = new Timeline(this.prng, this.from, this.to, this.options.count);
    const clock = new IsoClock();
    for (let i = 0; i < this.options.count; i++) {
      const created = timeline.next(i);
      const index = this.typeTable[this.prng.u32() & 0xffff]!;
      yield this.record(index, created, clock.format(created));
    }
  }

  private record(index: number, created: number, iso: string): SeedRecord {
    const spec = this.specs[index]!;
    const prng = this.prng;
    const f: EventFields = { ...this.templates[index]! };
    f.created = iso;
    f.eventTypeName = spec.type;
    f.id = this.nextId(created);
    f.orgId = this.world.orgId;
    f.isGlobalAdmin = false;

    const raw: RawDoc = { ...RAW_TEMPLATE };
    this.raw = raw;
    const actor = spec.actor === 'mixed' ? (prng.chance(0.7) ? 'user' : 'apiKey') : spec.actor;
    if (actor === 'user' || actor === 'operator') {
      // Operator staff act rarely, and mostly on operator-only event types.
      const staff = actor === 'operator' ? prng.chance(0.3) : prng.chance(0.002);
      const user = staff ? prng.pick(this.world.operators) : this.pickUser();
      f.userId = user.userId;
      f.username = user.username;
      f.remoteAddress = prng.chance(0.85) ? user.addresses[0] : prng.pick(user.addresses);
      f.isGlobalAdmin = staff;
      raw.source = 'USER';
      raw.un = user.username;
    } else if (actor === 'apiKey') {
      const key = this.pickKey();
      f.apiKeyId = key.apiKeyId;
      f.publicKey = key.publicKey;
      f.remoteAddress = prng.pick(key.addresses);
      raw.source = 'API';
      raw.un = key.publicKey;
    }

    this.applyProfile(spec.profile, f, created);
    let severity: Severity = spec.severity;
    if (spec.profile === 'metric') severity = prng.chance(0.15) ? 'CRITICAL' : 'WARNING';
    if (this.options.variant === 'self-hosted') {
      // Spec rule 3: no billing identifiers in the self-hosted variant.
      if (f.invoiceId !== undefined) f.invoiceId = undefined;
      if (f.paymentId !== undefined) f.paymentId = undefined;
    }

    // Like the service's raw documents: internal names, nulls where a field does not apply.
    const keepRaw = prng.chance(0.8);
    if (keepRaw) {
      const groupId = f.groupId;
      raw._t = spec.rawKind;
      raw.alertConfigId = f.alertConfigId;
      raw.cid = groupId ?? null;
      raw.cre = iso;
      raw.description = spec.description;
      raw.gn = groupId === undefined ? null : (this.projects.get(groupId)?.name ?? null);
      raw.id = f.id;
      raw.orgId = this.world.orgId;
      raw.orgName = this.world.orgName;
      raw.severity = severity;
    }
    return { created, fields: f, raw: keepRaw ? raw : null };
  }

  private applyProfile(profile: Profile, f: EventFields, created: number): void {
    const prng = this.prng;
    const world = this.world;
    switch (profile) {
      case 'none':
        return;
      case 'project':
        f.groupId = prng.pick(world.projects).groupId;
        return;
      case 'alert': {
        const alert = this.pickAlert(created);
        f.groupId = alert.groupId;
        f.alertId = alert.alertId;
        f.alertConfigId = alert.alertConfigId;
        return;
      }
      case 'alertConfig': {
        const project = prng.pick(world.projects);
        f.groupId = project.groupId;
        f.alertConfigId = prng.pick(project.alertConfigIds);
        return;
      }
      case 'apiKeyTarget':
        f.targetPublicKey = prng.pick(world.apiKeys).publicKey;
        return;
      case 'apiKeyGroup':
        f.targetPublicKey = prng.pick(world.apiKeys).publicKey;
        f.groupId = prng.pick(world.projects).groupId;
        this.raw.roles = [
          prng.pick(['GROUP_READ_ONLY', 'GROUP_DATA_ACCESS_READ_WRITE', 'GROUP_OWNER']),
        ];
        return;
      case 'apiKeyAccessList': {
        const key = prng.pick(world.apiKeys);
        const entry = prng.chance(0.8) ? prng.pick(key.accessList) : `${randomIpv4(prng)}/32`;
        f.targetPublicKey = key.publicKey;
        // The live service still says whitelistEntry; newer documentation says
        // accessListEntry. Carry both so clients written for either find it.
        f.accessListEntry = entry;
        f.whitelistEntry = entry;
        return;
      }
      case 'invoice': {
        const invoice = this.invoiceFor(created);
        f.invoiceId = invoice.invoiceId;
        this.raw.amountCents = prng.range(500, 5_000_000);
        return;
      }
      case 'payment': {
        const invoice = this.invoiceFor(created);
        f.invoiceId = invoice.invoiceId;
        f.paymentId = prng.pick(invoice.paymentIds);
        this.raw.amountCents = prng.range(500, 5_000_000);
        this.raw.paymentMethod = prng.pick(['CREDIT_CARD', 'CREDIT_CARD', 'PAYPAL', 'INVOICE']);
        return;
      }
      case 'team':
        f.teamId = prng.pick(world.teamIds);
        return;
      case 'teamGroup':
        f.teamId = prng.pick(world.teamIds);
        f.groupId = prng.pick(world.projects).groupId;
        return;
      case 'userTarget':
        f.targetUsername = this.pickTarget();
        return;
      case 'joined':
        // The person joining is both the actor and the target.
        f.targetUsername = f.username ?? this.pickTarget();
        return;
      case 'teamUserTarget':
        f.teamId = prng.pick(world.teamIds);
        f.targetUsername = this.pickTarget();
        return;
      case 'groupUserTarget':
        f.groupId = prng.pick(world.projects).groupId;
        f.targetUsername = this.pickTarget();
        return;
      case 'resource': {
        const project = prng.pick(world.projects);
        f.groupId = project.groupId;
        const cluster = prng.chance(0.4) ? prng.pick(project.clusters) : undefined;
        f.resourceId = cluster ? cluster.clusterId : project.groupId;
        f.resourceType = cluster ? 'cluster' : 'project';
        return;
      }
      case 'resourcePolicy':
        f.resourcePolicyId = prng.pick(world.resourcePolicyIds);
        return;
      case 'resourcePolicyViolation':
        f.resourcePolicyId = prng.pick(world.resourcePolicyIds);
        f.groupId = prng.pick(world.projects).groupId;
        return;
      case 'dataExplorer':
        this.applyDataExplorer(f);
        return;
      case 'metric':
        this.applyMetric(f, created);
        return;
      case 'host': {
        const cluster = prng.pick(world.clusters);
        applyHost(f, cluster, prng.pick(cluster.hosts));
        return;
      }
      case 'cluster': {
        const cluster = prng.pick(world.clusters);
        f.groupId = cluster.groupId;
        f.clusterId = cluster.clusterId;
        f.clusterName = cluster.clusterName;
        return;
      }
      case 'maintenance': {
        const cluster = prng.pick(world.clusters);
        f.groupId = cluster.groupId;
        f.clusterName = cluster.clusterName;
        f.maintenanceWindowId = objectIdAt(created - prng.range(1, 14) * DAY_MS, prng.hex(16));
        return;
      }
      case 'mlabCluster': {
        const cluster = prng.pick(world.clusters);
        f.groupId = cluster.groupId;
        f.clusterName = cluster.clusterName;
        return;
      }
    }
  }

  private applyDataExplorer(f: EventFields): void {
    const prng = this.prng;
    // People browse in sessions: the same person, cluster and database recur.
    if (!this.explorer || prng.chance(0.4)) {
      this.explorer = {
        user: this.pickUser(),
        cluster: prng.pick(this.world.clusters),
        database: prng.u32(),
      };
    }
    const { user, cluster } = this.explorer;
    if (f.userId !== undefined && f.isGlobalAdmin === false) {
      f.userId = user.userId;
      f.username = user.username;
      f.remoteAddress = user.addresses[0];
      this.raw.un = user.username;
    }
    f.groupId = cluster.groupId;
    f.clusterName = cluster.clusterName;
    f.clusterId = cluster.clusterId;
    const crud = f.eventTypeName === 'DATA_EXPLORER_CRUD';
    const op = prng.pick(crud ? WRITE_OPS : READ_OPS);
    f.opType = op;
    if (!crud && op === 'listIndexes' && prng.chance(0.3)) return; // database-level browse
    const database = cluster.databases[this.explorer.database % cluster.databases.length]!;
    f.database = database.name;
    f.collection = prng.pick(database.collections);
  }

  private applyMetric(f: EventFields, created: number): void {
    const prng = this.prng;
    const cluster = prng.pickSkewed(this.world.clusters);
    const host = prng.pick(cluster.hosts);
    applyHost(f, cluster, host);
    const { metric } = METRICS[this.metricTable[prng.u32() & 0xffff]!]!;
    const value = metric.min + prng.float() * (metric.max - metric.min);
    const number = metric.integer ? Math.round(value) : Math.round(value * 100) / 100;
    const units = prng.chance(0.8) ? metric.units[0]! : prng.pick(metric.units);
    f.metricName = metric.name;
    f.currentValue = { number, units };
    // A metric crossing its threshold opens an alert that audits may refer to later.
    const alertConfigId = prng.pick(this.projects.get(cluster.groupId)!.alertConfigIds);
    const alertId = objectIdAt(created, prng.hex(16));
    f.alertConfigId = alertConfigId;
    f.alertId = alertId;
    this.alerts.push({ alertId, alertConfigId, groupId: cluster.groupId });
    if (this.alerts.length > 64) this.alerts.shift();
    this.raw.hostnameAndPort = `${host.hostname}:${host.port}`;
    this.raw.rsId = host.replicaSetName;
    this.raw.metricName = metric.name;
    this.raw.currentValue = { number, units };
  }

  private pickAlert(created: number): Alert {
    const prng = this.prng;
    if (this.alerts.length > 0 && prng.chance(0.9)) {
      // Recent alerts get acknowledged more than old ones.
      return this.alerts[
        this.alerts.length - 1 - Math.floor(prng.float() ** 2 * this.alerts.length)
      ]!;
    }
    const project = prng.pick(this.world.projects);
    return {
      alertId: objectIdAt(created - prng.range(60, 7200) * 1000, prng.hex(16)),
      alertConfigId: prng.pick(project.alertConfigIds),
      groupId: project.groupId,
    };
  }

  private pickUser(): SeedUser {
    const prng = this.prng;
    if (this.lastUser && prng.chance(0.3)) return this.lastUser;
    this.lastUser = prng.pickSkewed(this.world.users);
    return this.lastUser;
  }

  private pickKey(): SeedApiKey {
    const prng = this.prng;
    if (this.lastKey && prng.chance(0.3)) return this.lastKey;
    this.lastKey = prng.pickSkewed(this.world.apiKeys);
    return this.lastKey;
  }

  private pickTarget(): string {
    const prng = this.prng;
    return prng.chance(0.6) ? prng.pick(this.world.users).username : prng.pick(this.world.invitees);
  }

  /**
   * The invoice a billing event refers to: usually last month's (closed at
   * the start of this one), sometimes the current one. Derived from the month
   * alone, so it is the same however many events precede it.
   */
  private invoiceFor(created: number): Invoice {
    const date = new Date(created);
    let month = date.getUTCFullYear() * 12 + date.getUTCMonth();
    if (this.prng.chance(0.7)) month -= 1;
    let invoice = this.invoices.get(month);
    if (!invoice) {
      const monthPrng = new Prng(`${this.seedText}|invoice|${month}`);
      const start = Date.UTC(Math.floor(month / 12), month % 12, 1);
      const next = Date.UTC(Math.floor((month + 1) / 12), (month + 1) % 12, 1);
      invoice = {
        invoiceId: objectIdAt(start, monthPrng.hex(16)),
        paymentIds: Array.from({ length: monthPrng.range(1, 3) }, (_, k) =>
          objectIdAt(next + k * 5 * DAY_MS + monthPrng.int(DAY_MS), monthPrng.hex(16)),
        ),
      };
      this.invoices.set(month, invoice);
    }
    return invoice;
  }

  private nextId(created: number): string {
    this.idCounter = (this.idCounter + 1) & 0xffffff;
    return objectIdAt(created, this.idTag + this.idCounter.toString(16).padStart(6, '0'));
  }
}

function applyHost(f: EventFields, cluster: SeedCluster, host: SeedHost): void {
  f.groupId = cluster.groupId;
  f.clusterId = cluster.clusterId;
  f.clusterName = cluster.clusterName;
  f.hostId = host.hostId;
  f.hostname = host.hostname;
  f.port = host.port;
  f.replicaSetName = host.replicaSetName;
  if (host.shardName !== undefined) f.shardName = host.shardName;
}

/**
 * formatCreated for whole seconds, faster: the date part is formatted once per
 * day and the time of day by arithmetic (events arrive in ascending order).
 */
class IsoClock {
  private day = NaN;
  private prefix = '';

  format(millis: number): string {
    const day = Math.floor(millis / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.prefix = formatCreated(day * DAY_MS).slice(0, 11);
    }
    const seconds = Math.floor((millis - day * DAY_MS) / 1000);
    const h = Math.floor(seconds / 3600);
    const m = Math.floor(seconds / 60) % 60;
    const s = seconds % 60;
    return `${this.prefix}${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:${s < 10 ? '0' : ''}${s}Z`;
  }
}

/** A lookup table of 65,536 slots, each holding an index, proportional to the weights. */
function weightedTable(weights: readonly number[]): Uint16Array {
  const slots = 65536;
  const total = weights.reduce((a, b) => a + b, 0);
  // Every weighted item keeps at least one slot so rare types still occur.
  const counts = weights.map((w) => (w > 0 ? Math.max(1, Math.floor((w / total) * slots)) : 0));
  // Trim rounding overflow from (or give the remainder to) the largest item.
  const excess = counts.reduce((a, b) => a + b, 0) - slots;
  const largest = counts.indexOf(Math.max(...counts));
  counts[largest] = counts[largest]! - excess;
  const table = new Uint16Array(slots);
  let slot = 0;
  counts.forEach((count, index) => {
    table.fill(index, slot, slot + count);
    slot += count;
  });
  return table;
}

/**
 * Spreads N events over [from, to] with an activity rhythm (weekdays and
 * office hours busier, quiet nights, the odd incident hour), in ascending
 * order and O(1) per event: event i sits at quantile (i + u) / N of the
 * activity curve, with u uniform, so the order is monotone by construction.
 */
class Timeline {
  private readonly starts: Float64Array;
  private readonly lengths: Float64Array;
  private readonly weights: Float64Array;
  private readonly cumulative: Float64Array;
  private readonly total: number;
  private segment = 0;

  constructor(
    private readonly prng: Prng,
    private readonly from: number,
    private readonly to: number,
    private readonly count: number,
  ) {
    const span = Math.max(1, to - from);
    const segments = Math.ceil(span / HOUR_MS);
    this.starts = new Float64Array(segments);
    this.lengths = new Float64Array(segments);
    this.weights = new Float64Array(segments);
    this.cumulative = new Float64Array(segments + 1);
    // The organization's office is somewhere; its working hours shift the curve.
    const utcOffsetHours = prng.pick([-8, -5, -3, 0, 1, 2, 5.5, 8, 9]);
    let dayFactor = 1;
    let lastDay = NaN;
    for (let s = 0; s < segments; s++) {
      const start = from + s * HOUR_MS;
      const length = Math.min(HOUR_MS, to - start) || 1;
      const local = new Date(start + length / 2 + utcOffsetHours * HOUR_MS);
      const day = Math.floor(local.getTime() / DAY_MS);
      if (day !== lastDay) {
        lastDay = day;
        dayFactor = 0.6 + prng.float();
      }
      const hour = local.getUTCHours();
      const weekday = local.getUTCDay() % 6 !== 0;
      const office = hour >= 8 && hour < 19 ? 1 : hour >= 19 && hour < 23 ? 0.45 : 0.15;
      const incident = prng.chance(0.01) ? 4 : 1;
      // Machines work around the clock; people follow the office rhythm.
      const human = office * (weekday ? 1 : 0.3) * dayFactor;
      this.starts[s] = start;
      this.lengths[s] = length;
      this.weights[s] = (0.25 + 0.75 * human) * incident * (length / HOUR_MS);
      this.cumulative[s + 1] = this.cumulative[s]! + this.weights[s]!;
    }
    this.total = this.cumulative[segments]!;
  }

  /** The created time of event i (whole seconds), never before event i - 1's. */
  next(i: number): number {
    const target = ((i + this.prng.float()) / this.count) * this.total;
    while (this.segment < this.weights.length - 1 && this.cumulative[this.segment + 1]! <= target) {
      this.segment++;
    }
    const s = this.segment;
    const within = Math.min(1, Math.max(0, (target - this.cumulative[s]!) / this.weights[s]!));
    const at = this.starts[s]! + within * this.lengths[s]!;
    const second = Math.floor(at / 1000) * 1000;
    return Math.min(this.to, Math.max(this.from, second));
  }
}
