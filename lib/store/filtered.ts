import { type Kysely, type RawBuilder, SqliteAdapter, sql } from 'kysely';
import { eventTypeLabel } from '@/lib/domain/catalog';
import {
  ACTOR_FIELDS,
  type FieldFilters,
  type FilterField,
  hasWordPrefix,
  inCidr,
  isIndexable,
  isCidrValue,
  parseCidr,
} from '@/lib/domain/filters';
import type { Database } from './schema';
import { fieldOfTerm, fieldRange, prefixEnd, term, termValue, valueOfTerm } from './terms';
import type { EventFilter } from './types';

/**
 * A filter resolved to terms (lib/store/terms.ts), by their integer ids in
 * the org's dictionary: each parameter beyond type and date becomes a
 * clause, "the event holds one of these terms (or, for q, is of one of these
 * types)"; clauses all hold. Unknown values give clauses that match nothing.
 */
export type Clause = {
  /** The parameter it came from: a field name, `actor` or `q`. */
  key: string;
  /** Ids of the terms (term_dict) the org holds; unknown terms are left out. */
  termIds: number[];
  /** q only: the present types whose name or label matches the word. */
  types: string[];
  /** All terms of one field, or one term: an event holds at most one of them. */
  singleField: boolean;
  /** Events holding any of the terms, all time (from the dictionary): picks the driving clause. */
  estimate: number;
};

export type Resolved = {
  orgId: string;
  /** How an event key decodes to its id text (engine SQL differs). */
  engine: 'sqlite' | 'postgres';
  /** Effective types (eventType minus excludeEventType); undefined means every type. */
  types?: string[];
  /** The ids (event_type_ids) of `types` that have any; set when `types` is. */
  typeIds?: number[];
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
  return r.clauses.some((c) => c.termIds.length === 0 && c.types.length === 0);
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

type DictRow = { id: number; term: string; n: number };

async function dictionary(
  db: Kysely<Database>,
  orgId: string,
  range: [string, string],
): Promise<DictRow[]> {
  return db
    .selectFrom('term_dict')
    .select(['id', 'term', 'n'])
    .where('org_id', '=', orgId)
    .where('term', '>=', range[0])
    .where('term', '<', range[1])
    .execute();
}

/** The dictionary rows of these terms (those the org holds). */
async function lookup(
  db: Kysely<Database>,
  orgId: string,
  candidates: string[],
): Promise<DictRow[]> {
  // A value no event's index holds (isIndexable: judged on the value, after
  // its field's name), and which PostgreSQL may refuse as a parameter: it
  // matches nothing, on both engines.
  const terms = candidates.filter((t) => isIndexable(valueOfTerm(t)));
  if (terms.length === 0) return [];
  return db
    .selectFrom('term_dict')
    .select(['id', 'term', 'n'])
    .where('org_id', '=', orgId)
    .where('term', 'in', terms)
    .execute();
}

function clauseOf(key: string, rows: DictRow[], singleField: boolean, types: string[] = []) {
  return {
    key,
    termIds: rows.map((r) => Number(r.id)),
    types,
    // One term is one field's: an event holds it at most once (the postings'
    // key), so an actor or q word that resolves to one term (nearly always)
    // pages in key order and counts from term_days, as a field filter does;
    // a DISTINCT over its postings built and sorted the whole set per page.
    singleField: singleField || rows.length === 1,
    estimate: rows.reduce((sum, r) => sum + Number(r.n), 0),
  };
}

/** Turns an EventFilter into clauses of term ids, reading the org's dictionary. */
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
    const rows = await lookup(db, filter.orgId, [...terms]);
    if (cidrs.length > 0) {
      for (const row of await dictionary(db, filter.orgId, fieldRange(field))) {
        const address = termValue(field, row.term);
        if (!terms.has(row.term) && cidrs.some((cidr) => cidr !== null && inCidr(address, cidr))) {
          rows.push(row);
        }
      }
    }
    clauses.push(clauseOf(field, rows, true));
  }
  if (filter.actor?.length) {
    const terms = ACTOR_FIELDS.flatMap((field) => filter.actor!.map((v) => term(field, v)));
    clauses.push(clauseOf('actor', await lookup(db, filter.orgId, terms), false));
  }
  const unsearched = new Set<string>(filter.unsearchedFields);
  for (const word of filter.q ?? []) {
    // The terms holding a word that starts with `word`: one range of term_words.
    const { rows } = await sql<DictRow>`SELECT d.id, d.term, d.n FROM term_dict d
      WHERE d.id IN (SELECT w.term_id FROM term_words w WHERE w.org_id = ${filter.orgId}
        AND w.word >= ${word} AND w.word < ${prefixEnd(word)})`.execute(db);
    const matching = (await types()).filter(
      (type) => hasWordPrefix(type, word) || hasWordPrefix(eventTypeLabel(type), word),
    );
    const terms = rows.filter(
      (r) => hasWordPrefix(valueOfTerm(r.term), word) && !unsearched.has(fieldOfTerm(r.term)),
    );
    clauses.push(clauseOf('q', terms, false, matching));
  }

  let effective = filter.eventTypes?.length ? [...filter.eventTypes] : undefined;
  if (filter.excludeEventTypes?.length) {
    const excluded = new Set(filter.excludeEventTypes);
    effective = (effective ?? (await types())).filter((t) => !excluded.has(t));
  }
  let typeIds: number[] | undefined;
  if (effective !== undefined && effective.length > 0) {
    const rows = await db
      .selectFrom('event_type_ids')
      .select('id')
      .where('name', 'in', effective)
      .execute();
    typeIds = rows.map((row) => Number(row.id));
  } else if (effective !== undefined) typeIds = [];
  return {
    orgId: filter.orgId,
    engine: db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres',
    types: effective,
    typeIds,
    minCreated: filter.minCreated,
    maxCreated: filter.maxCreated,
    clauses,
  };
}

/** The filter without one parameter's clause (a facet's own), or without its types. */
export function without(r: Resolved, key: string): Resolved {
  // The picker convention: eventType and excludeEventType both go.
  if (key === 'eventTypeName') return { ...r, types: undefined, typeIds: undefined };
  return { ...r, clauses: r.clauses.filter((c) => c.key !== key) };
}

// ---- SQL --------------------------------------------------------------------

const list = (values: readonly (string | number)[]) => sql.join(values.map((v) => sql`${v}`));

function typeCond(r: Resolved, column: RawBuilder<unknown>): RawBuilder<unknown> {
  return r.types ? sql` AND ${column} IN (${list(r.types)})` : sql``;
}

/** The type filter on postings, by type id (an empty list matches nothing). */
function typeIdCond(r: Resolved, column: RawBuilder<unknown>): RawBuilder<unknown> {
  if (r.typeIds === undefined) return sql``;
  return r.typeIds.length === 0 ? sql` AND 1 = 0` : sql` AND ${column} IN (${list(r.typeIds)})`;
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

/**
 * The join after a set of keys that keeps those keys the outer loop, each
 * joined row looked up by its key: CROSS JOIN on SQLite, whose planner
 * otherwise put the other table outside and built an automatic index over
 * every key before the first row (seconds over 1M events, one step that a
 * sliced read, readWholeSet, cannot interrupt); a plain JOIN on PostgreSQL.
 */
export function keysFirstJoin(engine: Resolved['engine']): RawBuilder<unknown> {
  return engine === 'sqlite' ? sql`CROSS JOIN` : sql`JOIN`;
}

/** The id text of the event key (id_hi, id_lo) of a posting row `alias`. */
export function idOf(engine: Resolved['engine'], alias: string): RawBuilder<unknown> {
  const [hi, lo] = [sql.ref(`${alias}.id_hi`), sql.ref(`${alias}.id_lo`)];
  return engine === 'sqlite'
    ? sql`printf('%012x%012x', ${hi}, ${lo})`
    : sql`(lpad(to_hex(${hi}), 12, '0') || lpad(to_hex(${lo}), 12, '0'))`;
}

/**
 * The condition "the event of row `ref` holds one of the clause's terms (or
 * types)", for rows within [min, max].
 */
function clauseCond(
  r: Resolved,
  clause: Clause,
  ref: string,
  postings: boolean,
  min: number | undefined,
  max: number | undefined,
) {
  const parts: RawBuilder<unknown>[] = [];
  const alias = sql.raw(ref);
  if (clause.termIds.length > 0) {
    // From a posting: one key lookup. From an event row: the (term, created)
    // prefix narrows to the few postings of that millisecond, whose ids are compared.
    // The row's own date bounds, redundant per row, bound the set PostgreSQL
    // hashes when it turns the lookups into one hashed subplan (it does
    // beside an OR): the clause's postings in the range, not of all time.
    const same = postings
      ? sql`t.id_hi = ${alias}.id_hi AND t.id_lo = ${alias}.id_lo`
      : sql`${idOf(r.engine, 't')} = ${alias}.id`;
    parts.push(
      sql`EXISTS (SELECT 1 FROM term_postings t WHERE t.term_id IN (${list(
        clause.termIds,
      )}) AND t.created = ${alias}.created${dateCond(sql.raw('t.created'), min, max)} AND ${same})`,
    );
  }
  if (clause.types.length > 0) {
    parts.push(
      postings
        ? sql`${alias}.type_id IN (SELECT id FROM event_type_ids WHERE name IN (${list(clause.types)}))`
        : sql`${alias}.event_type IN (${list(clause.types)})`,
    );
  }
  return parts.length === 0 ? sql` AND 1 = 0` : sql` AND (${sql.join(parts, sql` OR `)})`;
}

/**
 * The events (created, id, event_type) within [min, max] that a clause of
 * terms and types holds, each once: those of its types, and those of other
 * types holding one of its terms (two disjoint parts), within the filter's
 * own types. The set is built whole: looking each row's terms up instead,
 * one lookup per term per row, counted q=a b over 300,000 events in 12.6 s
 * on PostgreSQL (and a set looked up row by row inside an OR, too large
 * for PostgreSQL to hash, in minutes).
 */
function clauseSet(
  r: Resolved,
  clause: Clause,
  min: number | undefined,
  max: number | undefined,
): RawBuilder<unknown> {
  const postings = sql`SELECT DISTINCT t.created, t.id_hi, t.id_lo, t.type_id
    FROM term_postings t WHERE t.term_id IN (${list(clause.termIds)})${
      clause.types.length > 0
        ? sql` AND t.type_id NOT IN (SELECT id FROM event_type_ids WHERE name IN (${list(clause.types)}))`
        : sql``
    }${typeIdCond(r, sql.raw('t.type_id'))}${dateCond(sql.raw('t.created'), min, max)}`;
  // The postings outside, each type looked up (q=a over 1M events: 1.2 s
  // before the first row otherwise).
  const ofTerms = sql`SELECT p.created, ${idOf(r.engine, 'p')} AS id, ty.name AS event_type
    FROM (${postings}) p ${keysFirstJoin(r.engine)} event_type_ids ty ON ty.id = p.type_id`;
  if (clause.types.length === 0) return ofTerms;
  return sql`${ofTerms} UNION ALL SELECT e.created, e.id, e.event_type FROM events e
    WHERE e.org_id = ${r.orgId} AND e.event_type IN (${list(clause.types)})${typeCond(
      r,
      sql.raw('e.event_type'),
    )}${dateCond(sql.raw('e.created'), min, max)}`;
}

/** The clause whose postings drive a query: the smallest that is terms only. */
export function driverOf(r: Resolved): Clause | undefined {
  return r.clauses
    .filter((c) => c.termIds.length > 0 && c.types.length === 0)
    .sort((a, b) => a.estimate - b.estimate)[0];
}

/**
 * The keys of the filtered set within [min, max] (narrowed by the filter's
 * own bounds), unordered, with how to order, identify and type them. With
 * field clauses they are postings (created, id_hi, id_lo, type_id) of the
 * smallest clause, the other clauses checked by key lookups, so the events
 * table is never read; otherwise events rows (created, id, event_type):
 * scanned and checked, or (q words that match types too) the clauses' sets
 * intersected.
 */
export type Keys = {
  sql: RawBuilder<unknown>;
  /** ORDER BY terms over alias `k`, newest first ('DESC') or oldest first. */
  order(direction: 'ASC' | 'DESC'): RawBuilder<unknown>;
  /** The event id text of row `k`. */
  id: RawBuilder<unknown>;
  /** The column of row `k` naming its type: `event_type`, or `type_id` (event_type_ids). */
  typeColumn: 'event_type' | 'type_id';
};

/**
 * Leading keys a caller may read (a page's offset and limit) for which
 * scanning events newest first, each checked against the clauses, still
 * beats building the set whole (clauseSet): the scan stops once it has
 * them. Over 300,000 seeded events, q=a: 25-50 ms for the first page by the
 * scan, 200-320 ms for any page from the sets; the scan's cost grows with
 * the page's depth (each row it passes looks up every term of the word).
 */
const SCAN_PREFIX_LIMIT = 1_000;

/**
 * Whether the filter's keys are best found as sets (clauseSet): when no
 * clause is terms only (it would drive, its postings checked against the
 * rest) and some q word matches both terms and types (`a` matches
 * thousands of terms and every ACCOUNT_… and ALERT_… type). Checking such a
 * word event by event looked up every one of its terms for each event:
 * counting q=a over 300,000 events took 11 s on SQLite and 74 s on
 * PostgreSQL, 0.3 s as sets.
 */
function hasTermsAndTypesClause(r: Resolved): boolean {
  return r.clauses.some((c) => c.termIds.length > 0 && c.types.length > 0);
}

/**
 * Index seeks a driver's check may cost for each posting row the sets read
 * instead, before the sets are built: a check seeks every term of every
 * other clause. q=a (thousands of terms) with one user, counted by checks
 * and as sets: 300,000 seeded events on SQLite 2.9-3.0 s and 0.45-0.53 s;
 * 2,000,000 on PostgreSQL 54.5 s and 4.5 s (where it hashes the checks,
 * 300,000: 0.55-0.71 s and 0.84 s).
 */
const SEEKS_PER_SET_ROW = 20;

/** Whether the clauses' sets, intersected, cost less than checking the driver's postings. */
function setsBeatDriver(r: Resolved, driver: Clause): boolean {
  const others = r.clauses.filter((c) => c !== driver);
  const seeks = driver.estimate * others.reduce((n, c) => n + c.termIds.length, 0);
  const rows = r.clauses.reduce((n, c) => n + (c.termIds.length > 0 ? c.estimate : 0), 0);
  return seeks > SEEKS_PER_SET_ROW * rows;
}

/**
 * `first`: how many keys, in order, the caller reads (a page: offset plus
 * limit); undefined when it reads the whole set (a count, facets, a
 * histogram, an export).
 */
export function keysOf(
  r: Resolved,
  window: { min?: number; max?: number } = {},
  { first }: { first?: number } = {},
): Keys {
  const min = Math.max(r.minCreated ?? -Infinity, window.min ?? -Infinity);
  const max = Math.min(r.maxCreated ?? Infinity, window.max ?? Infinity);
  const whole = first === undefined || first > SCAN_PREFIX_LIMIT;
  const driver = driverOf(r);
  const asSets = driver ? whole && setsBeatDriver(r, driver) : whole && hasTermsAndTypesClause(r);
  if (asSets) {
    // Every clause with terms as its own set, intersected; a clause of types
    // alone is a plain check on each row of the result.
    const sets = r.clauses
      .filter((c) => c.termIds.length > 0)
      .sort((a, b) => a.estimate - b.estimate)
      .map((c) => sql`SELECT * FROM (${clauseSet(r, c, min, max)}) s`);
    return {
      sql: sql`SELECT u.created, u.id, u.event_type FROM (${sql.join(
        sets,
        sql` INTERSECT `,
      )}) u WHERE 1 = 1${sql.join(
        r.clauses
          .filter((c) => c.termIds.length === 0)
          .map((c) => clauseCond(r, c, 'u', false, min, max)),
        sql``,
      )}`,
      order: (d) => sql.raw(`k.created ${d}, k.id ${d}`),
      id: sql.ref('k.id'),
      typeColumn: 'event_type',
    };
  }
  if (!driver) {
    return {
      sql: sql`SELECT e.created, e.id, e.event_type FROM events e WHERE e.org_id = ${r.orgId}${typeCond(
        r,
        sql.raw('e.event_type'),
      )}${dateCond(sql.raw('e.created'), min, max)}${sql.join(
        r.clauses.map((c) => clauseCond(r, c, 'e', false, min, max)),
        sql``,
      )}`,
      order: (d) => sql.raw(`k.created ${d}, k.id ${d}`),
      id: sql.ref('k.id'),
      typeColumn: 'event_type',
    };
  }
  const others = r.clauses.filter((c) => c !== driver);
  return {
    sql: sql`SELECT ${driver.singleField ? sql`` : sql`DISTINCT `}d.created, d.id_hi, d.id_lo, d.type_id
      FROM term_postings d WHERE d.term_id IN (${list(driver.termIds)})${typeIdCond(
        r,
        sql.raw('d.type_id'),
      )}${dateCond(sql.raw('d.created'), min, max)}${sql.join(
        others.map((c) => clauseCond(r, c, 'd', true, min, max)),
        sql``,
      )}`,
    order: (d) => sql.raw(`k.created ${d}, k.id_hi ${d}, k.id_lo ${d}`),
    id: idOf(r.engine, 'k'),
    typeColumn: 'type_id',
  };
}

/** Floor division by `unit` that is also right before 1970. */
export function bucketOf(column: RawBuilder<unknown>, unit: number): RawBuilder<unknown> {
  return sql`((${column} - ((${column} % ${sql.lit(unit)}) + ${sql.lit(unit)}) % ${sql.lit(
    unit,
  )}) / ${sql.lit(unit)})`;
}

export { dateCond, list, typeCond, typeIdCond };
