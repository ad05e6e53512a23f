import { eventTypeLabel } from '@/lib/domain/catalog';
import {
  formatRelative,
  formatShortRelative,
  formatZonedTimestamp,
  parseApiDateTime,
} from '@/lib/domain/dates';

/**
 * Turns an event as the API returns it into the short strings the table and
 * the detail view show. Events are sparse (only applicable fields appear), so
 * every helper copes with any subset of fields and never invents values.
 */

export type ApiLink = { href: string; rel: string };

/** One event in the API's JSON form; fields beyond the known ones pass through. */
export type ApiEvent = {
  id: string;
  created: string;
  eventTypeName: string;
  links?: ApiLink[];
  raw?: unknown;
  [field: string]: unknown;
};

export type ApiList<T> = { links: ApiLink[]; results: T[]; totalCount: number };

function text(event: ApiEvent, field: string): string | undefined {
  const value = event[field];
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export type Actor = { kind: 'user' | 'api-key' | 'none'; label: string; id?: string };

/** Who triggered the event: a user, an API key, or nobody recorded (the system). */
export function eventActor(event: ApiEvent): Actor {
  const username = text(event, 'username');
  const userId = text(event, 'userId');
  if (username || userId) return { kind: 'user', label: username ?? userId!, id: userId };
  const publicKey = text(event, 'publicKey');
  const apiKeyId = text(event, 'apiKeyId');
  if (publicKey || apiKeyId)
    return { kind: 'api-key', label: publicKey ?? apiKeyId!, id: apiKeyId };
  return { kind: 'none', label: 'System' };
}

export type Target = { kind: string; label: string };

/** What the event acted on, when it names one. */
export function eventTarget(event: ApiEvent): Target | null {
  const user = text(event, 'targetUsername');
  if (user) return { kind: 'User', label: user };
  const key = text(event, 'targetPublicKey');
  if (key) return { kind: 'API key', label: key };
  const dbUser = text(event, 'dbUserUsername');
  if (dbUser) return { kind: 'Database user', label: dbUser };
  const team = text(event, 'teamId');
  if (team) return { kind: 'Team', label: team };
  const resourceId = text(event, 'resourceId');
  if (resourceId) return { kind: text(event, 'resourceType') ?? 'Resource', label: resourceId };
  const policy = text(event, 'resourcePolicyId');
  if (policy) return { kind: 'Resource policy', label: policy };
  return null;
}

/**
 * Where the event happened, in two lines for a narrow column: the most
 * specific readable place first (host, shard, replica set, cluster), the
 * project second. Either may be empty; nothing is invented.
 */
export function eventResourceLines(event: ApiEvent): { primary: string; secondary: string } {
  const parts: string[] = [];
  const cluster = text(event, 'clusterName') ?? text(event, 'clusterId');
  if (cluster) parts.push(`cluster ${cluster}`);
  const replicaSet = text(event, 'replicaSetName');
  if (replicaSet) parts.push(`replica set ${replicaSet}`);
  const shard = text(event, 'shardName');
  if (shard) parts.push(`shard ${shard}`);
  const host = text(event, 'hostname') ?? text(event, 'hostId');
  if (host) {
    const port = text(event, 'port');
    parts.push(`host ${port ? `${host}:${port}` : host}`);
  }
  const project = text(event, 'groupId');
  const projectText = project ? `project ${project}` : '';
  if (parts.length === 0) return { primary: projectText, secondary: '' };
  return { primary: parts.join(' / '), secondary: projectText };
}

/** "project 5f… / cluster Cluster0 / host h1.example.net:27017", only the parts present. */
export function eventResource(event: ApiEvent): string {
  const { primary, secondary } = eventResourceLines(event);
  return [secondary, primary].filter(Boolean).join(' / ');
}

const UNIT_LABELS: Record<string, string> = {
  RAW: '',
  BITS: 'bits',
  BYTES: 'B',
  KILOBITS: 'kbit',
  KILOBYTES: 'KB',
  MEGABITS: 'Mbit',
  MEGABYTES: 'MB',
  GIGABITS: 'Gbit',
  GIGABYTES: 'GB',
  TERABYTES: 'TB',
  PETABYTES: 'PB',
  MILLISECONDS: 'ms',
  SECONDS: 's',
  MINUTES: 'min',
  HOURS: 'h',
  DAYS: 'd',
};

// One formatter for all values: building one per call (toLocaleString) is slow.
const METRIC_NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });

/** "512 MB", "12", "3.5 million tokens": a metric value with readable units. */
export function formatMetricValue(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const { number, units } = value as { number?: unknown; units?: unknown };
  if (typeof number !== 'number' || !Number.isFinite(number)) return undefined;
  const amount = METRIC_NUMBER.format(number);
  const unit = typeof units === 'string' ? (UNIT_LABELS[units] ?? units) : '';
  return unit ? `${amount} ${unit}` : amount;
}

/**
 * The one-line summary: metric and value for threshold events,
 * database.collection and operation for data-explorer events, invoice or
 * payment for billing events, and the most telling id for the rest.
 */
export function eventSummary(event: ApiEvent): string {
  const metric = text(event, 'metricName');
  const value = formatMetricValue(event.currentValue);
  if (metric || value) return [metric, value].filter(Boolean).join(' = ');

  const database = text(event, 'database');
  const collection = text(event, 'collection');
  const opType = text(event, 'opType');
  if (database || collection || opType) {
    const namespace = [database, collection].filter(Boolean).join('.');
    return [namespace, opType].filter(Boolean).join(' · ');
  }

  const billing = [
    text(event, 'invoiceId') && `invoice ${text(event, 'invoiceId')}`,
    text(event, 'paymentId') && `payment ${text(event, 'paymentId')}`,
  ].filter(Boolean);
  if (billing.length) return billing.join(' · ');

  const entry = text(event, 'accessListEntry') ?? text(event, 'whitelistEntry');
  if (entry) return `access list entry ${entry}`;
  const alert = text(event, 'alertId');
  if (alert) return `alert ${alert}`;
  const alertConfig = text(event, 'alertConfigId');
  if (alertConfig) return `alert configuration ${alertConfig}`;
  return '';
}

export function eventLabel(event: Pick<ApiEvent, 'eventTypeName'>): string {
  return eventTypeLabel(event.eventTypeName);
}

/**
 * The event page's title: its type and time in the page's zone ("Joined org
 * · 2026-01-31 23:00:00 UTC"), so tabs and history tell events apart; by
 * its id when the event could not be read (not found, no access).
 */
export function eventPageTitle(
  eventId: string,
  event: Pick<ApiEvent, 'eventTypeName' | 'created'> | null,
  zone: string,
): string {
  if (!event) return `Event ${eventId}`;
  const created = parseApiDateTime(event.created);
  const when = created === null ? event.created : formatZonedTimestamp(created, zone);
  return `${eventLabel(event)} · ${when}`;
}

export type DetailField = { field: string; label: string; value: string };
export type DetailSection = { title: string; fields: DetailField[] };

const SECTIONS: { title: string; fields: [field: string, label: string][] }[] = [
  {
    title: 'Actor',
    fields: [
      ['username', 'Username'],
      ['userId', 'User ID'],
      ['publicKey', 'API public key'],
      ['apiKeyId', 'API key ID'],
      ['remoteAddress', 'Remote address'],
      ['isGlobalAdmin', 'Operator-level role'],
      ['delegatePrincipal', 'Delegate principal'],
    ],
  },
  {
    title: 'Target',
    fields: [
      ['targetUsername', 'Target user'],
      ['targetPublicKey', 'Target API key'],
      ['accessListEntry', 'Access list entry'],
      ['whitelistEntry', 'Access list entry (whitelistEntry)'],
      ['dbUserUsername', 'Database user'],
      ['teamId', 'Team ID'],
      ['resourceType', 'Resource type'],
      ['resourceId', 'Resource ID'],
      ['resourcePolicyId', 'Resource policy ID'],
    ],
  },
  {
    title: 'Resources',
    fields: [
      ['orgId', 'Organization ID'],
      ['groupId', 'Project ID'],
      ['clusterId', 'Cluster ID'],
      ['clusterName', 'Cluster'],
      ['replicaSetName', 'Replica set'],
      ['shardName', 'Shard'],
      ['hostId', 'Host ID'],
      ['hostname', 'Host'],
      ['port', 'Port'],
      ['maintenanceWindowId', 'Maintenance window ID'],
    ],
  },
  {
    title: 'Alert',
    fields: [
      ['alertId', 'Alert ID'],
      ['alertConfigId', 'Alert configuration ID'],
    ],
  },
  {
    title: 'Metric',
    fields: [
      ['metricName', 'Metric'],
      ['currentValue', 'Current value'],
    ],
  },
  {
    title: 'Billing',
    fields: [
      ['invoiceId', 'Invoice ID'],
      ['paymentId', 'Payment ID'],
    ],
  },
  {
    title: 'Data Explorer',
    fields: [
      ['database', 'Database'],
      ['collection', 'Collection'],
      ['opType', 'Operation'],
    ],
  },
];

/** Fields the detail view shows elsewhere (header, links, raw tab). */
const SHOWN_ELSEWHERE = new Set(['id', 'created', 'eventTypeName', 'links', 'raw']);
const KNOWN_FIELDS = new Set(SECTIONS.flatMap((section) => section.fields.map(([field]) => field)));

function readable(field: string, value: unknown): string {
  if (field === 'currentValue') {
    const formatted = formatMetricValue(value);
    if (formatted) {
      const units = (value as { units?: unknown }).units;
      return typeof units === 'string' && units !== 'RAW' ? `${formatted} (${units})` : formatted;
    }
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

/**
 * Every field present, grouped and labelled; fields we have no label for
 * land in "Other fields" under their own name, so nothing is hidden.
 */
export function eventDetailSections(event: ApiEvent): DetailSection[] {
  const sections: DetailSection[] = [];
  for (const section of SECTIONS) {
    const fields = section.fields
      .filter(([field]) => event[field] !== undefined && event[field] !== null)
      .map(([field, label]) => ({ field, label, value: readable(field, event[field]) }));
    if (fields.length) sections.push({ title: section.title, fields });
  }
  const others = Object.keys(event)
    .filter((field) => !SHOWN_ELSEWHERE.has(field) && !KNOWN_FIELDS.has(field))
    .filter((field) => event[field] !== undefined && event[field] !== null)
    .sort()
    .map((field) => ({ field, label: field, value: readable(field, event[field]) }));
  if (others.length) sections.push({ title: 'Other fields', fields: others });
  return sections;
}

/**
 * Within a minute either way, an event is "just now": the page's clock ticks
 * every 30 s (components/use-now.ts), so a row that just arrived is ahead of
 * it by up to that much and read "in 13 s".
 */
const JUST_NOW_MS = 60_000;

/** The table's relative time: "just now", "3 min ago", "2 d ago". */
export function shortAgo(millis: number, now: number): string {
  return Math.abs(now - millis) < JUST_NOW_MS ? 'just now' : formatShortRelative(millis, now);
}

/** The detail's relative time: "just now", "3 minutes ago". */
export function longAgo(millis: number, now: number): string {
  return Math.abs(now - millis) < JUST_NOW_MS ? 'just now' : formatRelative(millis, now);
}
