import { type Kysely, type RawBuilder, sql } from 'kysely';
import { eventTypeLabel } from '@/lib/domain/catalog';
import {
  ACTOR_FIELDS,
  type FieldFilters,
  type FilterField,
  hasWordPrefix,
  inCidr,
  isCidrValue,
  parseCidr,
} from '@/lib/domain/filters';
import type { Database } from './schema';
import { fieldRange, term, termValue } from './terms';
import type { EventFilter } from './types';

/**
 * A filter resolved to terms (lib/store/terms.ts): each parameter beyond
 * type and date becomes a clause, "the event holds one of these terms (or,
 * for q, is of one of these types)"; clauses all hold. Unknown values give
 * clauses that match nothing.
 */
export type Clause = {
  /** The parameter it came from: a field name, `actor` or `q`. */
  key: string;
  terms: string[];
  /** q only: the present types whose name or label matches the word. */
  types: string[];
  /** All terms of one field: an event holds at most one of them. */
  singleField: boolean;
  /** Events holding any of the terms, all time (from the dictionary): picks the driving clause. */
  estimate: number;
};

export type Resolved = {
  orgId: string;
  /** Effective types (eventType minus excludeEventType); undefined means every type. */
  types?: string[];
  minCreated?: number;
  maxCreated?: number;
  clauses: Clause[];
};

/** Whether a resolved filter matches nothing without asking the database. */
export function isEmpty(r: Resolved): boolean {
  if (r.types !== undefined && r.types.length === 0) return true;
  if (r.minCreated !== undefined && r.maxCreated !== undefined && r.minCreated > r.maxCreated) {
    return true;
  }
  return r.clauses.some((c) => c.terms.length === 0 && c.types.length === 0);
}

export function hasFieldFilters(filter: FieldFilters): boolean {
  return Boolean(
    (filter.fields && Object.values(filter.fields).some((v) => v !== undefined)) ||
    filter.actor?.length ||
    filter.q?.length ||
    filter.excludeEventTypes?.length,
  );
}

async function presentTypes(db: Kysely<Database>, orgId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('event_counts')
    .select('event_type')
    .distinct()
    .where('org_id', '=', orgId)
    .where('event_type', '<>', '')
    .execute();
  return rows.map((r) => r.event_type);
}

async function dictionary(
  db: Kysely<Database>,
  orgId: string,
  range: [string, string],
): Promise<string[]> {
  const rows = await db
    .selectFrom('event_values')
    .select('term')
    .where('org_id', '=', orgId)
    .where('term', '>=', range[0])
    .where('term', '<', range[1])
    .execute();
  return rows.map((r) => r.term);
}

/** Turns an EventFilter into clauses of terms, reading the org's dictionary where needed. */
export async function resolveFilter(db: Kysely<Database>, filter: EventFilter): Promise<Resolved> {
  const clauses: Clause[] = [];
  let present: string[] | undefined;
  const types = async () => (present ??= await presentTypes(db, filter.orgId));

  for (const [field, values] of Object.entries(filter.fields ?? {}) as [
    FilterField,
    readonly string[] | undefined,
  ][]) {
    if (!values) continue;
    const terms = new Set<string>();
    const cidrs = values.filter(isCidrValue).map((v) => parseCidr(v));
    for (const value of values) if (!isCidrValue(value)) terms.add(term(field, value));
    if (cidrs.length > 0) {
      for (const t of await dictionary(db, filter.orgId, fieldRange(field))) {
        const address = termValue(field, t);
        if (cidrs.some((cidr) => cidr !== null && inCidr(address, cidr))) terms.add(t);
      }
    }
    clauses.push({ key: field, terms: [...terms], types: [], singleField: true, estimate: 0 });
  }
  if (filter.actor?.length) {
    const terms = ACTOR_FIELDS.flatMap((field) => filter.actor!.map((v) => term(field, v)));
    clauses.push({ key: 'actor', terms, types: [], singleField: false, estimate: 0 });
  }
  for (const word of filter.q ?? []) {
    // Word characters only (lib/domain/filters.ts words): nothing to escape in LIKE.
    const rows = await sql<{ term: string }>`SELECT term FROM event_values
      WHERE org_id = ${filter.orgId} AND lower(term) LIKE ${`%${word}%`}`.execute(db);
    const terms = rows.rows
      .map((r) => r.term)
      .filter((t) => hasWordPrefix(t.slice(t.indexOf(':') + 1), word));
    const matching = (await types()).filter(
      (type) => hasWordPrefix(type, word) || hasWordPrefix(eventTypeLabel(type), word),
    );
    clauses.push({ key: 'q', terms, types: matching, singleField: false, estimate: 0 });
  }

  // Estimates: how many events each clause's terms hold (drivers must be small).
  for (const clause of clauses) {
    if (clause.terms.length === 0 || clause.types.length > 0) continue;
    const row = await db
      .selectFrom('event_values')
      .select((eb) => eb.fn.sum<number>('n').as('n'))
      .where('org_id', '=', filter.orgId)
      .where('term', 'in', clause.terms)
      .executeTakeFirst();
    clause.estimate = Number(row?.n ?? 0);
    // A clause no event holds matches nothing.
    if (clause.estimate === 0) clause.terms = [];
  }

  let effective = filter.eventTypes?.length ? [...filter.eventTypes] : undefined;
  if (filter.excludeEventTypes?.length) {
    const excluded = new Set(filter.excludeEventTypes);
    effective = (effective ?? (await types())).filter((t) => !excluded.has(t));
  }
  return {
    orgId: filter.orgId,
    types: effective,
    minCreated: filter.minCreated,
    maxCreated: filter.maxCreated,
    clauses,
  };
}

/** The filter without one parameter's clause (a facet's own), or without its types. */
export function without(r: Resolved, key: string): Resolved {
  // The picker convention: eventType and excludeEventType both go.
  if (key === 'eventTypeName') return { ...r, types: undefined };
  return { ...r, clauses: r.clauses.filter((c) => c.key !== key) };
}

// ---- SQL --------------------------------------------------------------------

const list = (values: readonly (string | number)[]) => sql.join(values.map((v) => sql`${v}`));

function typeCond(r: Resolved, column: RawBuilder<unknown>): RawBuilder<unknown> {
  return r.types ? sql` AND ${column} IN (${list(r.types)})` : sql``;
}

function dateCond(
  column: RawBuilder<unknown>,
  min: number | undefined,
  max: number | undefined,
): RawBuilder<unknown> {
  return sql`${min !== undefined && Number.isFinite(min) ? sql` AND ${column} >= ${min}` : sql``}${
    max !== undefined && Number.isFinite(max) ? sql` AND ${column} <= ${max}` : sql``
  }`;
}

function clauseCond(r: Resolved, clause: Clause, ref: string): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  const alias = sql.raw(ref);
  if (clause.terms.length > 0) {
    parts.push(sql`EXISTS (SELECT 1 FROM event_terms t WHERE t.org_id = ${r.orgId}
      AND t.term IN (${list(clause.terms)}) AND t.created = ${alias}.created AND t.id = ${alias}.id)`);
  }
  if (clause.types.length > 0) parts.push(sql`${alias}.event_type IN (${list(clause.types)})`);
  return parts.length === 0 ? sql` AND 1 = 0` : sql` AND (${sql.join(parts, sql` OR `)})`;
}

/** The clause whose postings drive a query: the smallest that is terms only. */
export function driverOf(r: Resolved): Clause | undefined {
  return r.clauses
    .filter((c) => c.terms.length > 0 && c.types.length === 0)
    .sort((a, b) => a.estimate - b.estimate)[0];
}

/**
 * SELECT created, id, event_type of the filtered set within [min, max]
 * (narrowed by the filter's own bounds), unordered. With field clauses it
 * reads the smallest clause's postings and checks the others by key lookups,
 * so it never touches the events table; otherwise the events' own indexes.
 */
export function keysSql(r: Resolved, window: { min?: number; max?: number } = {}) {
  const min = Math.max(r.minCreated ?? -Infinity, window.min ?? -Infinity);
  const max = Math.min(r.maxCreated ?? Infinity, window.max ?? Infinity);
  const driver = driverOf(r);
  if (!driver) {
    return sql`SELECT e.created, e.id, e.event_type FROM events e WHERE e.org_id = ${r.orgId}${typeCond(
      r,
      sql.raw('e.event_type'),
    )}${dateCond(sql.raw('e.created'), min, max)}${sql.join(
      r.clauses.map((c) => clauseCond(r, c, 'e')),
      sql``,
    )}`;
  }
  const others = r.clauses.filter((c) => c !== driver);
  return sql`SELECT ${driver.singleField ? sql`` : sql`DISTINCT `}d.created, d.id, d.event_type
    FROM event_terms d WHERE d.org_id = ${r.orgId} AND d.term IN (${list(driver.terms)})${typeCond(
      r,
      sql.raw('d.event_type'),
    )}${dateCond(sql.raw('d.created'), min, max)}${sql.join(
      others.map((c) => clauseCond(r, c, 'd')),
      sql``,
    )}`;
}

/** Floor division by `unit` that is also right before 1970. */
export function bucketOf(column: RawBuilder<unknown>, unit: number): RawBuilder<unknown> {
  return sql`((${column} - ((${column} % ${sql.lit(unit)}) + ${sql.lit(unit)}) % ${sql.lit(
    unit,
  )}) / ${sql.lit(unit)})`;
}

export { dateCond, list, typeCond };
