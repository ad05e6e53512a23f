/**
 * The event filters of issue 9, defined once and browser-safe: which fields
 * can be filtered and faceted, how free text splits into words, and what a
 * remoteAddress CIDR matches. The API's parameter schemas (query.ts), the
 * store (which turns them into index lookups) and the store contract's
 * in-memory oracle all read these.
 */

/** Fields filterable by their own name (exact match; any of the values given). */
export const FILTER_FIELDS = [
  'username',
  'userId',
  'publicKey',
  'apiKeyId',
  'targetUsername',
  'targetPublicKey',
  'groupId',
  'clusterId',
  'clusterName',
  'replicaSetName',
  'shardName',
  'hostId',
  'hostname',
  'teamId',
  'alertId',
  'alertConfigId',
  'invoiceId',
  'paymentId',
  'database',
  'collection',
  'opType',
  'metricName',
  'remoteAddress',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/**
 * The values of an event's filterable fields by FILTER_FIELDS index (a
 * non-empty string, else undefined): NewEvent.fieldValues. Only the value
 * strings are kept, not the parsed record they came from, so the record
 * dies young.
 */
export function fieldValues(fields: Record<string, unknown>): (string | undefined)[] {
  const values = new Array<string | undefined>(FILTER_FIELDS.length);
  for (let f = 0; f < FILTER_FIELDS.length; f++) {
    const value = fields[FILTER_FIELDS[f]!];
    values[f] = typeof value === 'string' && isIndexable(value) ? value : undefined;
  }
  return values;
}

/**
 * Whether a field's string value is indexed (filterable, counted in facets):
 * non-empty, without U+0000, which PostgreSQL's text cannot hold (a term
 * holding one failed the whole batch there), and well-formed UTF-16: half a
 * surrogate pair (`"\udc00"` in JSON) is stored by SQLite as bytes that read
 * back otherwise and by PostgreSQL as U+FFFD, so its term was never found
 * again: undo and prune left it counted, and importing the event again
 * failed on the postings' key. Nor longer than MAX_INDEXED_VALUE_LENGTH.
 * Such a value stays in the document and its
 * raw; on both engines alike it is not indexed, and a filter asking for it
 * matches nothing.
 */
export function isIndexable(value: string): boolean {
  return (
    value !== '' &&
    value.length <= MAX_INDEXED_VALUE_LENGTH &&
    !value.includes('\u0000') &&
    value.isWellFormed()
  );
}

/**
 * The longest field value indexed, in UTF-16 code units: at most 2,400
 * bytes of UTF-8 (3 a unit at most), so a term (`field:value`) with its org
 * fits a PostgreSQL B-tree entry (2,704 bytes); a longer one failed the
 * whole batch there. Real names and addresses are far shorter (a hostname
 * is at most 253 characters); a longer value stays in its document, unindexed
 * on both engines alike, as above.
 */
export const MAX_INDEXED_VALUE_LENGTH = 800;

/** `actor` matches any of these fields of an event. */
export const ACTOR_FIELDS = ['username', 'userId', 'publicKey', 'apiKeyId'] as const;

/**
 * The actor's facet value: who acted, as people read it (the username, or the
 * API key's public key; an event never has both).
 */
export const ACTOR_FACET_FIELDS = ['username', 'publicKey'] as const;

/** Fields the facets endpoint counts. */
export const FACET_FIELDS = [
  'eventTypeName',
  'actor',
  'targetUsername',
  'groupId',
  'clusterName',
  'hostname',
  'remoteAddress',
  'opType',
] as const;
export type FacetField = (typeof FACET_FIELDS)[number];

/** Most values one filter parameter may carry. */
export const MAX_FILTER_VALUES = 100;
/**
 * Most event types `eventType` or `excludeEventType` may carry: more than
 * MAX_FILTER_VALUES, because the dashboard sends a view of every type but one
 * category (the catalogue has about 300) as one list, and caps its own lists
 * at this (MAX_TYPES in lib/client/url-state.ts).
 */
export const MAX_EVENT_TYPE_VALUES = 400;
/** Facet values returned per field: default and maximum. */
export const DEFAULT_FACET_LIMIT = 10;
export const MAX_FACET_LIMIT = 100;
/** Histogram buckets: default and maximum. */
export const DEFAULT_HISTOGRAM_BUCKETS = 60;
export const MAX_HISTOGRAM_BUCKETS = 500;
export const HISTOGRAM_INTERVALS = [
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'year',
  'decade',
  'century',
] as const;
export type HistogramInterval = (typeof HISTOGRAM_INTERVALS)[number];

/**
 * What the store filters on beyond type and date: per field, the values any
 * of which must match; `actor` over ACTOR_FIELDS; `q` words that must all
 * match (each as a word prefix); types to leave out.
 */
export type FieldFilters = {
  fields?: Partial<Record<FilterField, readonly string[]>>;
  actor?: readonly string[];
  q?: readonly string[];
  /** Fields whose values `q` does not match: those the variant never shows (self-hosted: invoiceId, paymentId). */
  unsearchedFields?: readonly FilterField[];
  excludeEventTypes?: readonly string[];
};

// ---- words ------------------------------------------------------------------

/** The most free text (`q`) the dashboard keeps: typed in its box or read from a link. */
export const MAX_Q_LENGTH = 500;

/** Lowercase words: runs of letters and digits (any script); everything else separates. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Whether a part of free text (no white space) is written with a leading dash,
 * `-bob` in `alice -bob`: a dash reads as "without" in every search box, but
 * `q` only narrows, and such a part was searched as `bob`, the very events
 * meant to be left out. Refused by the API and the query bar, left out of a
 * link by the dashboard. A dash inside a word (`us-east-1`) or with no word
 * after it (`-`) is no such part.
 */
export function isExclusion(part: string): boolean {
  return part.startsWith('-') && words(part).length > 0;
}

/** The exclusions (isExclusion) among the parts of free text, split at white space. */
export function exclusionsIn(text: string): string[] {
  return text.split(/\s+/).filter(isExclusion);
}

/** Whether some word of `text` starts with `prefix` (a word of `words`). */
export function hasWordPrefix(text: string, prefix: string): boolean {
  return words(text).some((word) => word.startsWith(prefix));
}

// ---- CIDR -------------------------------------------------------------------

/** An address as a bigint of 32 (IPv4) or 128 (IPv6) bits, or null when not one. */
export function parseIp(text: string): { bits: 32 | 128; value: bigint } | null {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split('.').map(Number);
    if (parts.some((p) => p > 255)) return null;
    return { bits: 32, value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n) };
  }
  if (!text.includes(':') || !/^[0-9a-fA-F:.]+$/.test(text)) return null;
  let head = text;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    // An embedded IPv4 tail (::ffff:10.0.0.1) stands for its two last groups.
    const v4 = parseIp(text.slice(lastColon + 1));
    if (!v4 || v4.bits !== 32) return null;
    head = `${text.slice(0, lastColon + 1)}${(v4.value >> 16n).toString(16)}:${(v4.value & 0xffffn).toString(16)}`;
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const group = (s: string) => (s === '' ? [] : s.split(':'));
  const left = group(halves[0]!);
  const right = halves.length === 2 ? group(halves[1]!) : [];
  if ([...left, ...right].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const explicit = left.length + right.length;
  if (halves.length === 1 ? explicit !== 8 : explicit > 7) return null;
  const groups = [
    ...left.map((g) => BigInt(parseInt(g, 16))),
    ...Array<bigint>(8 - explicit).fill(0n),
    ...right.map((g) => BigInt(parseInt(g, 16))),
  ];
  return { bits: 128, value: groups.reduce((acc, g) => (acc << 16n) | g, 0n) };
}

export type Cidr = { bits: 32 | 128; network: bigint; prefix: number };

/** `10.0.0.0/8`, `2001:db8::/32`: the network, or null when malformed. Host bits may be set. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  if (slash === -1) return null;
  const ip = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > ip.bits) return null;
  const shift = BigInt(ip.bits - prefix);
  return { bits: ip.bits, network: (ip.value >> shift) << shift, prefix };
}

/** Whether an address (IPv4 or IPv6 text) lies in the network; anything else does not. */
export function inCidr(address: string, cidr: Cidr): boolean {
  const ip = parseIp(address);
  if (!ip || ip.bits !== cidr.bits) return false;
  const shift = BigInt(cidr.bits - cidr.prefix);
  return ip.value >> shift === cidr.network >> shift;
}

/** A remoteAddress filter value: a CIDR when it holds a slash, else an exact address. */
export function isCidrValue(value: string): boolean {
  return value.includes('/');
}

/** A value with a slash that is no CIDR block: the API refuses it (400), the dashboard drops it. */
export function isMalformedCidr(value: string): boolean {
  return isCidrValue(value) && parseCidr(value) === null;
}
