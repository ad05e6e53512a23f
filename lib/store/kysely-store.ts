import { errorMessage } from '@/lib/domain/errors';
import { inspect } from 'node:util';
import {
  type CompiledQuery,
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type SelectQueryBuilder,
  Migrator,
  sql,
} from 'kysely';
import { isUnavailable, StoreUnavailableError } from './errors';
import type { BulkLoadHelper } from './bulk-load-helper';
import { migrationProvider } from './migrations';
import * as savedViews from './saved-views';
import * as ingestRuns from './ingest-runs';
import * as retention from './retention';
import { DAY_MS, HOUR_MS, UTC_ZONE } from '@/lib/domain/dates';
import {
  ACTOR_FACET_FIELDS,
  type FacetField,
  type FilterField,
  MAX_HISTOGRAM_BUCKETS,
  isIndexable,
} from '@/lib/domain/filters';
import { bucketStartsWithin, chooseInterval } from '@/lib/domain/histogram';
import { counterUnit, type Database } from './schema';
import {
  bucketOf,
  dateCond,
  hasFieldFilters,
  isEmpty,
  keysFirstJoin,
  keysOf,
  list,
  type Resolved,
  resolveFilter,
  typeCond,
  typeIdCond,
  without,
} from './filtered';
import { type BatchTerms, fieldRange, termValue } from './terms';
import type {
  ApiKeyRecord,
  EventCursor,
  EventFilter,
  EventPage,
  EventPageQuery,
  EventStore,
  FacetCount,
  Facets,
  Histogram,
  HistogramQuery,
  DeleteOptions,
  EventSelection,
  IngestRun,
  IngestRunPatch,
  IngestRunStatus,
  InsertOptions,
  InsertResult,
  StoreHealth,
  Membership,
  NewEvent,
  Org,
  OrgRole,
  StoredEvent,
} from './types';
import { TooManyBucketsError } from './types';

type Bucket = { bucket: number; n: number };

/**
 * How a filtered set is counted: whole buckets [innerMin, innerMax] from the
 * counters, plus the buckets cut by the date bounds, counted exactly. A bucket
 * is `unit` milliseconds long (an hour for all types, a day per type).
 */
type CountPlan = {
  unit: number;
  total: number;
  partial: Bucket[];
  innerMin?: number;
  innerMax?: number;
};

/** Rows an event cursor reads per batch. */
const CURSOR_BATCH = 500;

/** What an engine gives an event cursor: see KyselyStore.openSnapshot. */
export type Snapshot = {
  /** Queries on the snapshot (before streaming starts). */
  db: Kysely<Database>;
  /** Starts `query`; each call of the result gives up to `batchSize` rows, [] at the end. */
  streamRows(query: CompiledQuery, batchSize: number): Promise<() => Promise<EventRow[]>>;
  /** Ends the stream and the transaction; safe to call twice. */
  end(): Promise<void>;
};

/**
 * How a read of a whole filtered set (facets) takes a query's rows: as
 * arrays in column order, in slices. See KyselyStore.readWholeSet.
 */
export type RowSlices = (query: CompiledQuery) => AsyncIterable<unknown[][]>;

/** Every row at once, on `db`: the slices of an engine that need not yield. */
function allRows(db: Kysely<Database>): RowSlices {
  return async function* (query) {
    const { rows } = await db.executeQuery<Record<string, unknown>>(query);
    yield rows.map((row) => Object.values(row));
  };
}

function endedCursor(): EventCursor {
  return {
    totalCount: 0,
    closed: true,
    read: () => Promise.resolve([]),
    close: () => Promise.resolve(),
  };
}

function snapshotCursor(
  totalCount: number,
  next: () => Promise<EventRow[]>,
  end: () => Promise<void>,
): EventCursor {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await end();
  };
  return {
    totalCount,
    get closed() {
      return closed;
    },
    async read() {
      if (closed) return [];
      let rows: EventRow[];
      try {
        rows = await next();
      } catch (error) {
        await close().catch(() => undefined);
        throw error;
      }
      if (rows.length === 0) await close();
      return rows.map(toStoredEvent);
    },
    close,
  };
}

/** Counter rows read per step of a page walk. */
const WALK_CHUNK = 512;

/** Applies every pending versioned migration, in order, or throws; the names of those applied. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  // The database went away (or never answered): say so, not "migration failed".
  if (error instanceof StoreUnavailableError) throw error;
  if (error || failed) {
    const reason =
      error instanceof Error
        ? error.message
        : error
          ? inspect(error)
          : (failed?.migrationName ?? 'unknown migration');
    // Kysely's words for a database a newer release migrated: say that.
    const newer = /previously executed migration (\S+) is missing/.exec(reason);
    if (newer) {
      throw new Error(
        `The database was migrated by a newer release of org-events (migration ${newer[1]}, unknown to this one): run that release, or restore a backup taken before it`,
      );
    }
    throw new Error(`Database migration failed: ${reason}`);
  }
  return (results ?? []).map((result) => result.migrationName);
}

/**
 * The engine-neutral store: every query is written once with Kysely and runs
 * on SQLite and PostgreSQL alike. Engines differ only in how they bulk-insert.
 */
export abstract class KyselyStore implements EventStore {
  abstract readonly dialect: 'sqlite' | 'postgres';
  abstract readonly databaseFile: string | null;

  /** The migrations opening this store applied (set by the engine's open). */
  appliedAtOpen: readonly string[] = [];

  protected constructor(protected readonly db: Kysely<Database>) {}

  abstract refreshStatistics(): Promise<void>;

  /** No bulk-load upkeep to hand off unless the engine has some. */
  startBulkLoadHelper(): BulkLoadHelper | undefined {
    return undefined;
  }

  bulkInsertLanes(): number {
    return 1;
  }

  protected abstract insertBatch(
    orgId: string,
    events: readonly NewEvent[],
    runId: string | null,
    terms: BatchTerms | undefined,
  ): Promise<InsertResult>;

  migrate(): Promise<string[]> {
    return migrateToLatest(this.db);
  }

  /**
   * For a readiness probe: one query, the applied migrations, compared with
   * the ones this build ships. Never throws; an unreachable database and an
   * unexpected failure are both "not ready", with the reason.
   */
  async health(): Promise<StoreHealth> {
    const shipped = Object.keys(await migrationProvider.getMigrations()).sort();
    try {
      const { rows } = await sql<{ name: string }>`SELECT name FROM ${sql.table(
        DEFAULT_MIGRATION_TABLE,
      )}`.execute(this.db);
      const applied = new Set(rows.map((row) => row.name));
      const pendingMigrations = shipped.filter((name) => !applied.has(name));
      return pendingMigrations.length === 0
        ? { ready: true, pendingMigrations }
        : {
            ready: false,
            pendingMigrations,
            reason: `${pendingMigrations.length} migration(s) not applied`,
          };
    } catch (error) {
      const detail = errorMessage(error);
      return {
        ready: false,
        pendingMigrations: [],
        reason: isUnavailable(error) ? detail : `The store failed to answer: ${detail}`,
      };
    }
  }

  // ---- events -------------------------------------------------------------

  /**
   * Runs `read` on one snapshot of the database, so the several statements
   * of one request (counters, then rows) agree with each other even while
   * another connection commits. SQLite: a deferred BEGIN, whose first read
   * pins one WAL snapshot until COMMIT (it takes no write lock, so writers go
   * on). PostgreSQL overrides this with a REPEATABLE READ, READ ONLY
   * transaction.
   */
  protected readSnapshot<T>(read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(read);
  }

  listEvents(query: EventPageQuery): Promise<EventPage> {
    return this.readSnapshot((db) => this.listEventsIn(db, query));
  }

  private async listEventsIn(db: Kysely<Database>, query: EventPageQuery): Promise<EventPage> {
    const r = await resolveFilter(db, query);
    if (isEmpty(r))
      return { events: [], totalCount: query.includeCount ? 0 : null, hasMore: false };
    if (!hasCounters(r)) return this.listExact(db, r, query);

    const plan = await this.countPlan(db, r);
    const totalCount = query.includeCount ? plan.total : null;
    if (query.offset >= plan.total || query.limit <= 0) {
      return { events: [], totalCount, hasMore: false };
    }

    // Find the buckets holding the page's first and last rows by walking the
    // counters from the nearer end, then read only that time window:
    // a deep page costs a few counter rows and one short index range instead
    // of skipping `offset` events.
    const last = Math.min(query.offset + query.limit, plan.total) - 1;
    const window = await this.locateWindow(db, r, plan, query.offset, last);
    const bounds = {
      min: Math.max(r.minCreated ?? -Infinity, window.endBucket * plan.unit),
      max: Math.min(r.maxCreated ?? Infinity, (window.startBucket + 1) * plan.unit - 1),
    };

    let events: StoredEvent[];
    if (r.clauses.length > 0) {
      events = await this.readKeysPage(db, r, bounds, query.limit, window.skip, query.includeRaw);
    } else {
      let select = db
        .selectFrom('events')
        .select(['org_id', 'id', 'created', 'event_type', 'doc'])
        .$if(query.includeRaw, (qb) => qb.select('raw'));
      select = applyFilter(select, {
        orgId: r.orgId,
        eventTypes: r.types,
        minCreated: bounds.min,
        maxCreated: bounds.max,
      });
      const rows = await select
        .orderBy('created', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .offset(window.skip)
        .execute();
      events = rows.map(toStoredEvent);
    }
    return { events, totalCount, hasMore: query.offset + events.length < plan.total };
  }

  /** A page of a set no counters describe: the filtered keys in order, OFFSET, then the rows. */
  private async listExact(db: Kysely<Database>, r: Resolved, query: EventPageQuery) {
    const totalCount = query.includeCount ? await this.countKeys(db, r) : null;
    if (query.limit <= 0) return { events: [], totalCount, hasMore: false };
    const events = await this.readKeysPage(
      db,
      r,
      {},
      query.limit + 1,
      query.offset,
      query.includeRaw,
    );
    const hasMore = events.length > query.limit;
    return { events: events.slice(0, query.limit), totalCount, hasMore };
  }

  /** Rows of the filtered set within `bounds`, newest first, from `skip` on. */
  private async readKeysPage(
    db: Kysely<Database>,
    r: Resolved,
    bounds: { min?: number; max?: number },
    limit: number,
    skip: number,
    includeRaw: boolean,
  ): Promise<StoredEvent[]> {
    const keys = keysOf(r, bounds, { first: skip + limit });
    const { rows } = await sql<EventRow>`SELECT e.org_id, e.id, e.created, e.event_type, e.doc${
      includeRaw ? sql`, e.raw` : sql``
    } FROM (SELECT * FROM (${keys.sql}) k ORDER BY ${keys.order('DESC')} LIMIT ${limit} OFFSET ${skip}) k
      JOIN events e ON e.org_id = ${r.orgId} AND e.id = ${keys.id}
      ORDER BY ${keys.order('DESC')}`.execute(db);
    return rows.map(toStoredEvent);
  }

  private async countKeys(
    db: Kysely<Database>,
    r: Resolved,
    bounds: { min?: number; max?: number } = {},
  ): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM (${
      keysOf(r, bounds).sql
    }) k`.execute(db);
    return Number(rows[0]?.n ?? 0);
  }

  async getEvent(orgId: string, id: string, includeRaw: boolean): Promise<StoredEvent | null> {
    const row = await this.db
      .selectFrom('events')
      .select(['org_id', 'id', 'created', 'event_type', 'doc'])
      .$if(includeRaw, (qb) => qb.select('raw'))
      .where('org_id', '=', orgId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toStoredEvent(row) : null;
  }

  async countEvents(filter: EventFilter): Promise<number> {
    // Without date bounds or field filters the count is one SUM over the
    // counters; anything more reads several statements that must share a snapshot.
    const simple =
      filter.minCreated === undefined &&
      filter.maxCreated === undefined &&
      !hasFieldFilters(filter);
    return simple
      ? this.countIn(this.db, filter)
      : this.readSnapshot((db) => this.countIn(db, filter));
  }

  /**
   * A read transaction that pins one snapshot for as long as a cursor reads,
   * and the engine's way to stream one query's rows inside it (SQLite: its
   * own connection, so other requests never wait for an export; PostgreSQL:
   * REPEATABLE READ with a server-side cursor).
   */
  protected abstract openSnapshot(): Promise<Snapshot>;

  async openEventCursor(
    filter: EventFilter,
    { includeRaw, batchSize = CURSOR_BATCH }: { includeRaw: boolean; batchSize?: number },
  ): Promise<EventCursor> {
    const snapshot = await this.openSnapshot();
    try {
      const r = await resolveFilter(snapshot.db, filter);
      if (isEmpty(r)) {
        await snapshot.end();
        return endedCursor();
      }
      const totalCount = await this.countResolved(snapshot.db, r);
      const columns = sql`e.org_id, e.id, e.created, e.event_type, e.doc${
        includeRaw ? sql`, e.raw` : sql``
      }`;
      const keys = keysOf(r);
      // Type and date filters read the events in index order, no sort: memory
      // stays flat whatever the size. Field filters sort their matching keys
      // (narrow rows), then read each event once.
      const query =
        r.clauses.length === 0
          ? sql<EventRow>`SELECT ${columns} FROM events e WHERE e.org_id = ${r.orgId}${typeCond(
              r,
              sql.raw('e.event_type'),
            )}${dateCond(sql.raw('e.created'), r.minCreated, r.maxCreated)}
              ORDER BY e.created DESC, e.id DESC`
          : sql<EventRow>`SELECT ${columns} FROM (${keys.sql}) k
              JOIN events e ON e.org_id = ${r.orgId} AND e.id = ${keys.id}
              ORDER BY ${keys.order('DESC')}`;
      const next = await snapshot.streamRows(query.compile(snapshot.db), batchSize);
      return snapshotCursor(totalCount, next, () => snapshot.end());
    } catch (error) {
      await snapshot.end().catch(() => undefined);
      throw error;
    }
  }

  private async countIn(db: Kysely<Database>, filter: EventFilter): Promise<number> {
    return this.countResolved(db, await resolveFilter(db, filter));
  }

  private async countResolved(db: Kysely<Database>, r: Resolved): Promise<number> {
    if (isEmpty(r)) return 0;
    return hasCounters(r) ? (await this.countPlan(db, r)).total : this.countKeys(db, r);
  }

  async eventTypeCounts(
    orgId: string,
    filter?: Omit<EventFilter, 'orgId'>,
  ): Promise<{ eventTypeName: string; count: number }[]> {
    const sort = (counts: { eventTypeName: string; count: number }[]) =>
      counts
        .filter((c) => c.count > 0)
        .sort((a, b) => b.count - a.count || compare(a.eventTypeName, b.eventTypeName));
    const whole =
      !filter ||
      (filter.minCreated === undefined &&
        filter.maxCreated === undefined &&
        !hasFieldFilters(filter));
    if (whole) {
      const rows = await this.db
        .selectFrom('event_counts')
        .select(['event_type', (eb) => eb.fn.sum<number>('n').as('n')])
        .where('org_id', '=', orgId)
        .where('event_type', '<>', '')
        .groupBy('event_type')
        .execute();
      return sort(rows.map((r) => ({ eventTypeName: r.event_type, count: Number(r.n) })));
    }
    return this.readSnapshot(async (db) => {
      const r = without(await resolveFilter(db, { ...filter, orgId }), 'eventTypeName');
      const counts = await this.facetCounts(db, r, 'eventTypeName');
      return sort([...counts].map(([eventTypeName, count]) => ({ eventTypeName, count })));
    });
  }

  /**
   * Runs a read of a whole filtered set (facets: every matching document is
   * read) on one snapshot, with `rows` to take its long queries' rows by.
   * Here: readSnapshot, every row at once (PostgreSQL's queries run on the
   * server, so nothing waits on this process meanwhile). SQLite overrides
   * it: its reads run on this process's one thread.
   */
  protected readWholeSet<T>(
    read: (db: Kysely<Database>, rows: RowSlices) => Promise<T>,
  ): Promise<T> {
    return this.readSnapshot((db) => read(db, allRows(db)));
  }

  async facets(filter: EventFilter, fields: readonly FacetField[], limit: number): Promise<Facets> {
    return this.readWholeSet(async (db, rows) => {
      const r = await resolveFilter(db, filter);
      // Fields without a filter of their own share the filtered set; under
      // field filters their values come from its documents, read once for all.
      const shared =
        r.clauses.length > 0
          ? fields.filter(
              (f): f is DocumentFacetField =>
                f !== 'eventTypeName' && !r.clauses.some((c) => c.key === f),
            )
          : [];
      let counted = new Map<FacetField, Map<string, number>>();
      let documents: number | undefined;
      if (shared.length > 0) {
        ({ counts: counted, documents } = await this.documentCounts(db, r, shared, rows));
      }
      // Reading the set's documents (SQLite) counted it too: no count(*)
      // over its keys, a second pass that is one long statement no slice
      // interrupts. The counters, when they describe the set, cost less still.
      const totalCount =
        documents !== undefined && !hasCounters(r) ? documents : await this.countResolved(db, r);
      const facets: Partial<Record<FacetField, FacetCount[]>> = {};
      for (const field of fields) {
        const counts =
          counted.get(field) ?? (await this.facetCounts(db, without(r, field), field, rows));
        facets[field] = [...counts]
          .filter(([, count]) => count > 0)
          .map(([value, count]) => ({ value, count }))
          .sort((a, b) => b.count - a.count || compare(a.value, b.value))
          .slice(0, limit);
      }
      return { totalCount, facets };
    });
  }

  /**
   * The values of facet fields (not the type) among the filtered set, from
   * its documents: each document is parsed once for all the fields.
   */
  private async documentCounts(
    db: Kysely<Database>,
    r: Resolved,
    fields: readonly DocumentFacetField[],
    slices: RowSlices = allRows(db),
  ): Promise<{ counts: Map<FacetField, Map<string, number>>; documents?: number }> {
    const counts = new Map<FacetField, Map<string, number>>(fields.map((f) => [f, new Map()]));
    if (isEmpty(r)) return { counts, documents: 0 };
    const keys = keysOf(r);
    // The keys outside, each event looked up (q=a over 1M events: 3.2 s
    // before the first row otherwise).
    const source = sql`FROM (${keys.sql}) k ${keysFirstJoin(r.engine)} events e
      ON e.org_id = ${r.orgId} AND e.id = ${keys.id}`;
    // A value no index holds (isIndexable: U+0000, over 800 characters, half
    // a surrogate pair) is not counted here either, as without a field filter:
    // a facet would offer a value whose filter matches nothing.
    const add = (field: FacetField, value: unknown, n: number) => {
      if (typeof value !== 'string' || !isIndexable(value)) return;
      const map = counts.get(field)!;
      map.set(value, (map.get(value) ?? 0) + n);
    };
    // Each field's document keys: the actor is the username, else the public key.
    const paths = fields.map((f) => (f === 'actor' ? ACTOR_FACET_FIELDS : [f]));
    // A field's value as its JSON text (`"ada"`, `5`, `null`), decoded here:
    // decoded by the database, a value with \u0000 or half a surrogate pair
    // failed the whole query on PostgreSQL (a 500, whichever events the
    // filter selected), and read back as other characters on SQLite.
    const choose = (literals: readonly unknown[]): unknown => {
      for (const literal of literals) {
        if (typeof literal !== 'string' || literal === 'null' || literal === '""') continue;
        return literal.startsWith('"') && !literal.includes('\\')
          ? literal.slice(1, -1)
          : (JSON.parse(literal) as unknown);
      }
      return undefined;
    };
    const columns = [...new Set(paths.flat())];
    const at = paths.map((keys) => keys.map((k) => columns.indexOf(k)));
    if (r.engine === 'postgres') {
      // One parse per document (json_to_record), one grouping for every field.
      // A document whose text holds a \u escape (U+0000 or half a surrogate
      // pair may be one: PostgreSQL's parser refuses to decode either, even
      // into a json column) is counted apart, read whole and parsed here,
      // and only when the grouping found one: rare, and never an error.
      const escapes = sql`strpos(e.doc, ${'\\u'}) > 0`;
      const record = sql.join(columns.map((c) => sql`${sql.id(c)} json`));
      const valueOf = (keys: readonly string[]) =>
        sql`coalesce(${sql.join(
          keys.map((k) => sql`nullif(nullif(x.${sql.id(k)}::text, '""'), 'null')`),
          sql`, `,
        )})`;
      const escapedGroup = fields.length;
      const pairs = sql.join([
        ...paths.map((keys, i) => sql`(${sql.lit(i)}, ${valueOf(keys)})`),
        sql`(${sql.lit(escapedGroup)}, CASE WHEN ${escapes} THEN '' END)`,
      ]);
      const { rows } = await sql<{ i: number; v: string; n: number | string }>`SELECT g.i, g.v,
        count(*) AS n ${source}
        CROSS JOIN LATERAL json_to_record(
          CASE WHEN ${escapes} THEN '{}' ELSE e.doc END::json) AS x(${record})
        CROSS JOIN LATERAL (VALUES ${pairs}) AS g(i, v)
        WHERE g.v IS NOT NULL GROUP BY g.i, g.v`.execute(db);
      let escapedDocuments = 0;
      for (const row of rows) {
        if (Number(row.i) === escapedGroup) escapedDocuments = Number(row.n);
        else add(fields[Number(row.i)]!, choose([row.v]), Number(row.n));
      }
      if (escapedDocuments === 0) return { counts };
      const escaped = await sql<{ doc: string }>`SELECT e.doc ${source}
        WHERE ${escapes}`.execute(db);
      for (const { doc } of escaped.rows) {
        const document = JSON.parse(doc) as Record<string, unknown>;
        const literals = columns.map((c) =>
          c in document ? JSON.stringify(document[c]) : undefined,
        );
        for (let f = 0; f < fields.length; f++) {
          add(fields[f]!, choose(at[f]!.map((index) => literals[index])), 1);
        }
      }
      return { counts };
    }
    // SQLite caches a statement's parsed documents: several `->` of one
    // document parse it once. Counted here, one row per event.
    const select = sql.join(columns.map((c, i) => sql`e.doc -> ${`$.${c}`} AS ${sql.id(`c${i}`)}`));
    const query = sql`SELECT ${select} ${source}`.compile(db);
    let documents = 0;
    for await (const rows of slices(query)) {
      documents += rows.length;
      for (const row of rows) {
        for (let f = 0; f < fields.length; f++) {
          add(fields[f]!, choose(at[f]!.map((index) => row[index])), 1);
        }
      }
    }
    return { counts, documents };
  }

  /** Every value of one facet field in the filtered set, with its count (zeros possible). */
  private async facetCounts(
    db: Kysely<Database>,
    r: Resolved,
    field: FacetField,
    slices?: RowSlices,
  ): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    const add = (value: string, n: number) => counts.set(value, (counts.get(value) ?? 0) + n);
    if (isEmpty(r)) return counts;

    if (field === 'eventTypeName') {
      if (r.clauses.length > 0 && !hasCounters(r)) {
        for (const [v, n] of await this.typeCounts(db, r)) add(v, n);
        return counts;
      }
      // Whole days from the per-type counters (of the org, or of the one
      // field filter's terms), a cut day from the keys' index over the
      // window, or over the rest of its day when that is shorter (subtracted
      // from the day's counters): a range ending minutes before now is
      // nearly a whole day of keys otherwise.
      const dayCounters = async (
        min: number | undefined,
        max: number | undefined,
        sign: number,
      ) => {
        const { rows } =
          r.clauses.length === 0
            ? await sql<{ v: string; n: number }>`SELECT event_type AS v, sum(n) AS n
                FROM event_counts WHERE org_id = ${r.orgId} AND event_type <> ''${typeCond(
                  r,
                  sql.raw('event_type'),
                )}${dateCond(sql.raw('bucket'), min, max)} GROUP BY event_type`.execute(db)
            : await sql<{ v: string; n: number }>`SELECT y.name AS v, sum(c.n) AS n
                FROM term_days c JOIN event_type_ids y ON y.id = c.type_id
                WHERE c.term_id IN (${list(r.clauses[0]!.termIds)})${typeIdCond(
                  r,
                  sql.raw('c.type_id'),
                )}${dateCond(sql.raw('c.bucket'), min, max)} GROUP BY y.name`.execute(db);
        for (const row of rows) add(row.v, sign * Number(row.n));
      };
      // Keys in [min, max] exactly (keysOf would intersect with r's own bounds).
      const keyCounts = async (min: number, max: number, sign: number) => {
        const within = { ...r, minCreated: min, maxCreated: max };
        for (const [v, n] of await this.typeCounts(db, within)) add(v, sign * n);
      };
      const days = splitDays(r.minCreated, r.maxCreated);
      if (days.inner) await dayCounters(days.inner.min, days.inner.max, 1);
      await countCutDays(days.cuts, dayCounters, keyCounts);
      return counts;
    }

    const termFields: readonly FilterField[] = field === 'actor' ? ACTOR_FACET_FIELDS : [field];
    if (r.clauses.length === 0) {
      // Per term: whole days from term_days (or, with neither types nor
      // dates, the dictionary's all-time counts), a cut day by one index
      // range per term over the window, or over the rest of its day when
      // that is shorter (subtracted from the day's counter).
      const days = splitDays(r.minCreated, r.maxCreated);
      for (const f of termFields) {
        const [lo, hi] = fieldRange(f);
        const inner = days.inner;
        const counterSums = async (
          min: number | undefined,
          max: number | undefined,
          sign: number,
        ) => {
          const { rows } = await sql<{ term: string; n: number }>`SELECT v.term, sum(c.n) AS n
            FROM term_dict v JOIN term_days c ON c.term_id = v.id
            WHERE v.org_id = ${r.orgId} AND v.term >= ${lo} AND v.term < ${hi}${dateCond(
              sql.raw('c.bucket'),
              min,
              max,
            )}${typeIdCond(r, sql.raw('c.type_id'))}
            GROUP BY v.term`.execute(db);
          for (const row of rows) add(termValue(f, row.term), sign * Number(row.n));
        };
        const postingCounts = async (min: number, max: number, sign: number) => {
          const { rows } = await sql<{ term: string; n: number }>`SELECT v.term,
            (SELECT count(*) FROM term_postings t WHERE t.term_id = v.id${dateCond(
              sql.raw('t.created'),
              min,
              max,
            )}${typeIdCond(r, sql.raw('t.type_id'))}) AS n
            FROM term_dict v WHERE v.org_id = ${r.orgId} AND v.term >= ${lo} AND v.term < ${hi}`.execute(
            db,
          );
          for (const row of rows) add(termValue(f, row.term), sign * Number(row.n));
        };
        if (inner && inner.min === undefined && inner.max === undefined && !r.types) {
          const rows = await db
            .selectFrom('term_dict')
            .select(['term', 'n'])
            .where('org_id', '=', r.orgId)
            .where('term', '>=', lo)
            .where('term', '<', hi)
            .execute();
          for (const row of rows) add(termValue(f, row.term), Number(row.n));
        } else if (inner) {
          await counterSums(inner.min, inner.max, 1);
        }
        await countCutDays(days.cuts, counterSums, postingCounts);
      }
      return counts;
    }

    // Under other field filters: from the filtered set's documents.
    return (await this.documentCounts(db, r, [field], slices)).counts.get(field)!;
  }

  /** Events per type name among the filtered set's keys (within `bounds`). */
  private async typeCounts(
    db: Kysely<Database>,
    r: Resolved,
    bounds: { min?: number; max?: number } = {},
  ): Promise<Map<string, number>> {
    const keys = keysOf(r, bounds);
    const { rows } = await sql<{ v: string | number; n: number }>`SELECT ${sql.ref(
      `k.${keys.typeColumn}`,
    )} AS v, count(*) AS n FROM (${keys.sql}) k GROUP BY 1`.execute(db);
    const counts = new Map<string, number>();
    if (keys.typeColumn === 'event_type') {
      for (const row of rows) counts.set(String(row.v), Number(row.n));
      return counts;
    }
    // Postings carry type ids: name them from the (small, global) table.
    const names = new Map(
      (await db.selectFrom('event_type_ids').select(['id', 'name']).execute()).map((t) => [
        Number(t.id),
        t.name,
      ]),
    );
    for (const row of rows) counts.set(names.get(Number(row.v))!, Number(row.n));
    return counts;
  }

  async histogram(query: HistogramQuery): Promise<Histogram> {
    return this.readSnapshot((db) => this.histogramIn(db, query));
  }

  private async histogramIn(db: Kysely<Database>, query: HistogramQuery): Promise<Histogram> {
    const r = await resolveFilter(db, query);
    const empty = { interval: query.interval ?? 'hour', totalCount: 0, buckets: [] };
    if (isEmpty(r)) return empty;
    let min = r.minCreated;
    let max = r.maxCreated;
    if (min === undefined || max === undefined) {
      const edge = async (direction: 'ASC' | 'DESC') => {
        const { rows } = await sql<{ created: number }>`SELECT created FROM (${
          keysOf(r, {}, { first: 1 }).sql
        }) k
          ORDER BY created ${sql.raw(direction)} LIMIT 1`.execute(db);
        return rows[0] === undefined ? undefined : Number(rows[0].created);
      };
      min ??= await edge('ASC');
      max ??= await edge('DESC');
      if (min === undefined || max === undefined) return empty;
    }
    const zone = query.timeZone ?? UTC_ZONE;
    const interval = query.interval ?? chooseInterval(min, max, query.buckets, zone);
    const within = bucketStartsWithin(min, max, interval, zone, MAX_HISTOGRAM_BUCKETS);
    if (!('starts' in within)) throw new TooManyBucketsError(within.needed, within.exact);
    const { starts } = within;
    const counts = new Array<number>(starts.length).fill(0);
    const place = (time: number, n: number) => {
      // The last bucket starting at or before `time`.
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (starts[mid]! <= time) lo = mid;
        else hi = mid - 1;
      }
      counts[lo] = counts[lo]! + n;
    };

    // Counted in units that each fall within one bucket: the interval's own
    // (or days), finer where a zone's midnights are no whole UTC day (New
    // York's: hours) or its hours no whole UTC hour (Kolkata's, UTC+05:30:
    // minutes; a local mean time's have seconds).
    const widest = interval === 'minute' ? MINUTE_MS : interval === 'hour' ? HOUR_MS : DAY_MS;
    const base = [DAY_MS, HOUR_MS, MINUTE_MS, 1000, 1].find(
      (unit) => unit <= widest && starts.every((start) => start % unit === 0),
    )!;
    const unit = hasCounters(r) ? counterUnitOf(r) : undefined;
    const bounded = { ...r, minCreated: min, maxCreated: max };
    if (unit !== undefined && unit <= base) {
      // Whole counter buckets from the counters, the two cut ones exactly.
      const plan = await this.countPlan(db, bounded);
      for (const b of plan.partial) place(b.bucket * unit, b.n);
      if (
        plan.innerMin === undefined ||
        plan.innerMax === undefined ||
        plan.innerMin <= plan.innerMax
      ) {
        const { rows } = await sql<{ bucket: number; n: number }>`SELECT bucket, sum(n) AS n
          ${counterSource(bounded, plan.innerMin, plan.innerMax)} GROUP BY bucket`.execute(db);
        for (const row of rows) place(Number(row.bucket) * unit, Number(row.n));
      }
    } else {
      const { rows } = await sql<{ b: number; n: number }>`SELECT ${bucketOf(
        sql.raw('k.created'),
        base,
      )} AS b, count(*) AS n FROM (${keysOf(bounded).sql}) k GROUP BY 1`.execute(db);
      for (const row of rows) place(Number(row.b) * base, Number(row.n));
    }
    const buckets = starts.map((start, i) => ({ start, count: counts[i]! }));
    return { interval, totalCount: counts.reduce((a, b) => a + b, 0), buckets };
  }

  async insertEvents(
    orgId: string,
    events: readonly NewEvent[],
    options: InsertOptions = {},
  ): Promise<InsertResult> {
    if (events.length === 0) return { inserted: 0, skipped: 0 };
    return this.insertBatch(orgId, events, options.runId ?? null, options.terms);
  }

  // ---- deletion and the import ledger (retention.ts, ingest-runs.ts) -------

  /**
   * The statistics are not refreshed here but by the caller once its work is
   * recorded (lib/ingest: prune, imports undo), as upkeep whose failure is
   * said, not thrown: a deletion that has committed is done.
   */
  deleteEvents(orgId: string, selection: EventSelection, options?: DeleteOptions) {
    return retention.deleteEvents(this.db, orgId, selection, options, this.runEachKey());
  }

  /** SQLite's deletion runs statements by key on the store's connection (retention.RunEachKey). */
  protected runEachKey(): retention.RunEachKey | undefined {
    return undefined;
  }

  dumpOrg(orgId: string) {
    return retention.dumpOrg(this.db, this.dialect, orgId);
  }

  createIngestRun(run: IngestRun) {
    return ingestRuns.createIngestRun(this.db, run);
  }

  updateIngestRun(id: string, patch: IngestRunPatch, guard?: { unlessStatus: IngestRunStatus }) {
    return ingestRuns.updateIngestRun(this.db, id, patch, guard);
  }

  getIngestRun(id: string) {
    return ingestRuns.getIngestRun(this.db, id);
  }

  countRunEvents(orgId: string, runId: string) {
    return ingestRuns.countRunEvents(this.db, orgId, runId);
  }

  listIngestRuns(orgId: string | undefined, limit?: number, statuses?: readonly IngestRunStatus[]) {
    return ingestRuns.listIngestRuns(this.db, orgId, limit, statuses);
  }

  getMirrorCheckpoint(orgId: string, source: string) {
    return ingestRuns.getMirrorCheckpoint(this.db, orgId, source);
  }

  setMirrorCheckpoint(
    orgId: string,
    source: string,
    state: string | null,
    expected?: string | null,
  ) {
    return ingestRuns.setMirrorCheckpoint(this.db, orgId, source, state, expected);
  }

  rewriteMirrorCheckpoints(
    orgId: string,
    rewrite: (state: string, source: string) => string | null,
  ) {
    return ingestRuns.rewriteMirrorCheckpoints(this.db, orgId, rewrite);
  }

  runsHolding(orgId: string, ids: readonly string[], mirror: { source: string }) {
    return ingestRuns.runsHolding(this.db, orgId, ids, mirror);
  }

  oldestRunEvent(orgId: string, runId: string) {
    return ingestRuns.oldestRunEvent(this.db, orgId, runId);
  }

  /**
   * The exact size of the filtered set. Whole buckets come from the counters
   * (one SUM); a bucket cut by minCreated/maxCreated is counted exactly over a
   * short index range, and kept so the page walk can use it too.
   */
  private async countPlan(db: Kysely<Database>, r: Resolved): Promise<CountPlan> {
    const { minCreated, maxCreated } = r;
    const unit = counterUnitOf(r);
    if (minCreated !== undefined && maxCreated !== undefined && minCreated > maxCreated) {
      return { unit, total: 0, partial: [] };
    }
    const minBucket = minCreated === undefined ? undefined : Math.floor(minCreated / unit);
    const maxBucket = maxCreated === undefined ? undefined : Math.floor(maxCreated / unit);
    const cutsMin = minBucket !== undefined && minCreated! > minBucket * unit;
    const cutsMax = maxBucket !== undefined && maxCreated! < (maxBucket + 1) * unit - 1;

    const partial: Bucket[] = [];
    const cut = new Set([...(cutsMax ? [maxBucket] : []), ...(cutsMin ? [minBucket] : [])]);
    for (const bucket of cut) {
      const n = await this.countExact(db, r, bucket * unit, (bucket + 1) * unit - 1);
      partial.push({ bucket, n });
    }
    const innerMin = minBucket === undefined ? undefined : cutsMin ? minBucket + 1 : minBucket;
    const innerMax = maxBucket === undefined ? undefined : cutsMax ? maxBucket - 1 : maxBucket;
    let inner = 0;
    if (innerMin === undefined || innerMax === undefined || innerMin <= innerMax) {
      const { rows } = await sql<{ n: number | null }>`SELECT sum(n) AS n ${counterSource(
        r,
        innerMin,
        innerMax,
      )}`.execute(db);
      inner = Number(rows[0]?.n ?? 0);
    }
    return {
      unit,
      total: inner + partial.reduce((sum, b) => sum + b.n, 0),
      partial,
      innerMin,
      innerMax,
    };
  }

  /**
   * The time window holding rows `first`..`last` (0-based, newest first) of
   * the filtered set, and how many of the window's rows precede `first`.
   * Walks from whichever end is nearer, a chunk of counter rows at a time.
   */
  private async locateWindow(
    db: Kysely<Database>,
    r: Resolved,
    plan: CountPlan,
    first: number,
    last: number,
  ): Promise<{ startBucket: number; endBucket: number; skip: number }> {
    const fromNewest = first < plan.total - 1 - last;
    // Rows to pass, counted from the end we walk from.
    const [nearTarget, farTarget] = fromNewest
      ? [first, last]
      : [plan.total - 1 - last, plan.total - 1 - first];
    let seen = 0;
    let nearBucket: number | undefined;
    let nearSeenBefore = 0;
    for await (const bucket of this.walkBuckets(db, r, plan, fromNewest ? 'desc' : 'asc')) {
      if (nearBucket === undefined && seen + bucket.n > nearTarget) {
        nearBucket = bucket.bucket;
        nearSeenBefore = seen;
      }
      seen += bucket.n;
      if (seen > farTarget) {
        if (fromNewest) {
          return {
            startBucket: nearBucket!,
            endBucket: bucket.bucket,
            skip: first - nearSeenBefore,
          };
        }
        // Walking oldest first: this bucket holds `first`; rows newer than it
        // number total - seen, so `first` is (first - (total - seen)) into it.
        return {
          startBucket: bucket.bucket,
          endBucket: nearBucket!,
          skip: first - (plan.total - seen),
        };
      }
    }
    throw new Error('Event counters disagree with the total; the page cannot be located');
  }

  /** The non-empty buckets of the filtered set in one direction, exact at cut edges. */
  private async *walkBuckets(
    db: Kysely<Database>,
    r: Resolved,
    plan: CountPlan,
    direction: 'asc' | 'desc',
  ): AsyncGenerator<Bucket> {
    const edges = [...plan.partial].sort((a, b) =>
      direction === 'desc' ? b.bucket - a.bucket : a.bucket - b.bucket,
    );
    const leading = edges.filter((b) =>
      direction === 'desc'
        ? b.bucket > (plan.innerMax ?? Infinity)
        : b.bucket < (plan.innerMin ?? -Infinity),
    );
    for (const bucket of leading) if (bucket.n > 0) yield bucket;
    if (
      plan.innerMin === undefined ||
      plan.innerMax === undefined ||
      plan.innerMin <= plan.innerMax
    ) {
      let cursor = direction === 'desc' ? plan.innerMax : plan.innerMin;
      for (;;) {
        const { rows: chunk } = await sql<Bucket>`SELECT bucket, sum(n) AS n ${counterSource(
          r,
          direction === 'asc' ? cursor : plan.innerMin,
          direction === 'desc' ? cursor : plan.innerMax,
        )} GROUP BY bucket ORDER BY bucket ${sql.raw(direction)} LIMIT ${WALK_CHUNK}`.execute(db);
        for (const row of chunk) {
          const bucket = { bucket: Number(row.bucket), n: Number(row.n) };
          if (bucket.n > 0) yield bucket;
        }
        if (chunk.length < WALK_CHUNK) break;
        const lastBucket = Number(chunk[chunk.length - 1]!.bucket);
        cursor = direction === 'desc' ? lastBucket - 1 : lastBucket + 1;
      }
    }
    for (const bucket of edges) if (!leading.includes(bucket) && bucket.n > 0) yield bucket;
  }

  /** Exact count of the filtered set within [min, max] (and its own bounds). */
  private async countExact(
    db: Kysely<Database>,
    r: Resolved,
    min: number,
    max: number,
  ): Promise<number> {
    if (r.clauses.length > 0) return this.countKeys(db, r, { min, max });
    const row = await applyFilter(
      db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')),
      {
        orgId: r.orgId,
        eventTypes: r.types,
        minCreated: Math.max(r.minCreated ?? -Infinity, min),
        maxCreated: Math.min(r.maxCreated ?? Infinity, max),
      },
    ).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  // ---- organizations ------------------------------------------------------

  async createOrg(org: Org): Promise<Org> {
    await this.db.insertInto('orgs').values(org).execute();
    return org;
  }

  async getOrg(id: string): Promise<Org | null> {
    const row = await this.db
      .selectFrom('orgs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? { id: row.id, name: row.name, created: Number(row.created) } : null;
  }

  async listOrgs(): Promise<Org[]> {
    const rows = await this.db
      .selectFrom('orgs')
      .selectAll()
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ id: row.id, name: row.name, created: Number(row.created) }));
  }

  // ---- API keys -----------------------------------------------------------

  async createApiKey(key: ApiKeyRecord): Promise<ApiKeyRecord> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        public_key: key.publicKey,
        description: key.description,
        created: key.created,
        disabled: key.disabled ? 1 : 0,
        realm: key.realm,
        ha1_md5: key.ha1Md5,
        ha1_sha256: key.ha1Sha256,
      })
      .execute();
    return key;
  }

  async getApiKeyByPublicKey(publicKey: string): Promise<ApiKeyRecord | null> {
    // No key holds U+0000 (keys are issued here), and PostgreSQL fails a
    // query given one: a sign-in typing it is an unknown key, not a 500.
    if (publicKey.includes('\u0000')) return null;
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('public_key', '=', publicKey)
      .executeTakeFirst();
    return row ? toApiKey(row) : null;
  }

  async listApiKeys(orgId?: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll('api_keys')
      .$if(orgId !== undefined, (qb) =>
        qb.where((eb) =>
          eb.exists(
            eb
              .selectFrom('memberships')
              .select('memberships.api_key_id')
              .where('memberships.org_id', '=', orgId!)
              .whereRef('memberships.api_key_id', '=', 'api_keys.id'),
          ),
        ),
      )
      .orderBy('created')
      .orderBy('public_key')
      .execute();
    return rows.map(toApiKey);
  }

  async setApiKeyDisabled(publicKey: string, disabled: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ disabled: disabled ? 1 : 0 })
      .where('public_key', '=', publicKey)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setApiKeyHa1(
    apiKeyId: string,
    values: { ha1Md5: string; ha1Sha256: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ ha1_md5: values.ha1Md5, ha1_sha256: values.ha1Sha256 })
      .where('id', '=', apiKeyId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async replaceApiKeysHa1(
    changes: readonly {
      apiKeyId: string;
      from: { ha1Md5: string; ha1Sha256: string };
      to: { ha1Md5: string; ha1Sha256: string };
    }[],
  ): Promise<string[]> {
    if (changes.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      const changed: string[] = [];
      for (const { apiKeyId, from, to } of changes) {
        const result = await trx
          .updateTable('api_keys')
          .set({ ha1_md5: to.ha1Md5, ha1_sha256: to.ha1Sha256 })
          .where('id', '=', apiKeyId)
          .where('ha1_md5', '=', from.ha1Md5)
          .where('ha1_sha256', '=', from.ha1Sha256)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) > 0) changed.push(apiKeyId);
      }
      return changed;
    });
  }

  async grantRole(membership: Membership): Promise<void> {
    await this.db
      .insertInto('memberships')
      .values({
        org_id: membership.orgId,
        api_key_id: membership.apiKeyId,
        role: membership.role,
        created: membership.created,
      })
      .onConflict((oc) => oc.columns(['org_id', 'api_key_id', 'role']).doNothing())
      .execute();
  }

  async listMemberships(apiKeyId: string): Promise<Membership[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .selectAll()
      .where('api_key_id', '=', apiKeyId)
      .orderBy('org_id')
      .orderBy('role')
      .execute();
    return rows.map((row) => ({
      orgId: row.org_id,
      apiKeyId: row.api_key_id,
      role: row.role as OrgRole,
      created: Number(row.created),
    }));
  }

  async getRoles(orgId: string, apiKeyId: string): Promise<OrgRole[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .select('role')
      .where('org_id', '=', orgId)
      .where('api_key_id', '=', apiKeyId)
      .execute();
    return rows.map((row) => row.role as OrgRole);
  }

  // ---- saved views (lib/store/saved-views.ts) ------------------------------

  listSavedViews(orgId: string, apiKeyId: string) {
    return savedViews.listSavedViews(this.db, orgId, apiKeyId);
  }

  createSavedView(view: savedViews.SavedView) {
    return savedViews.createSavedView(this.db, view);
  }

  updateSavedView(
    orgId: string,
    id: string,
    ownerKeyId: string,
    patch: savedViews.SavedViewPatch,
    now: number,
  ) {
    return savedViews.updateSavedView(this.db, orgId, id, ownerKeyId, patch, now);
  }

  deleteSavedView(orgId: string, id: string, ownerKeyId: string) {
    return savedViews.deleteSavedView(this.db, orgId, id, ownerKeyId);
  }

  // ---- settings -----------------------------------------------------------

  async getOrCreateSetting(key: string, create: () => string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key, value: create() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  async deleteSetting(key: string): Promise<boolean> {
    const result = await this.db.deleteFrom('settings').where('key', '=', key).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/** The one place the event filter becomes SQL; values are always bound. */
function applyFilter<O>(
  qb: SelectQueryBuilder<Database, 'events', O>,
  filter: EventFilter,
): SelectQueryBuilder<Database, 'events', O> {
  let q = qb.where('org_id', '=', filter.orgId);
  const types = filter.eventTypes ?? [];
  if (types.length === 1) q = q.where('event_type', '=', types[0]!);
  else if (types.length > 1) q = q.where('event_type', 'in', types);
  if (filter.minCreated !== undefined && Number.isFinite(filter.minCreated)) {
    q = q.where('created', '>=', filter.minCreated);
  }
  if (filter.maxCreated !== undefined && Number.isFinite(filter.maxCreated)) {
    q = q.where('created', '<=', filter.maxCreated);
  }
  return q;
}

/**
 * Whether counters describe the filtered set: type and date filters
 * (event_counts), or one filter on one field with them (term_days: an event
 * holds at most one term of a field, so its terms' counters add up).
 */
function hasCounters(r: Resolved): boolean {
  if (r.clauses.length === 0) return true;
  return r.clauses.length === 1 && r.clauses[0]!.singleField && r.clauses[0]!.types.length === 0;
}

/** The counters' unit for a set hasCounters accepts: hours for all types, else days. */
function counterUnitOf(r: Resolved): number {
  return r.clauses.length > 0 ? DAY_MS : counterUnit(r.types !== undefined);
}

/** `FROM … WHERE …` of the counter rows describing the set, within [min, max] buckets. */
function counterSource(r: Resolved, min: number | undefined, max: number | undefined) {
  const buckets = sql`${min !== undefined ? sql` AND bucket >= ${min}` : sql``}${
    max !== undefined ? sql` AND bucket <= ${max}` : sql``
  }`;
  if (r.clauses.length > 0) {
    return sql`FROM term_days WHERE term_id IN (${list(r.clauses[0]!.termIds)})${typeIdCond(
      r,
      sql.raw('type_id'),
    )}${buckets}`;
  }
  return sql`FROM event_counts WHERE org_id = ${r.orgId} AND event_type IN (${list(r.types ?? [''])})${buckets}`;
}

/**
 * A date range as whole UTC days (`inner`, undefined when none; open ends
 * stay undefined) and the cut parts at either end, as inclusive ms windows.
 */
function splitDays(
  min: number | undefined,
  max: number | undefined,
): { inner?: { min?: number; max?: number }; cuts: [number, number][] } {
  if (min !== undefined && max !== undefined && min > max) return { cuts: [] };
  const minDay = min === undefined ? undefined : Math.floor(min / DAY_MS);
  const maxDay = max === undefined ? undefined : Math.floor(max / DAY_MS);
  const cutsMin = minDay !== undefined && min! > minDay * DAY_MS;
  const cutsMax = maxDay !== undefined && max! < (maxDay + 1) * DAY_MS - 1;
  if (minDay !== undefined && minDay === maxDay && (cutsMin || cutsMax)) {
    return { cuts: [[min!, max!]] };
  }
  const cuts: [number, number][] = [];
  if (cutsMin) cuts.push([min!, (minDay + 1) * DAY_MS - 1]);
  if (cutsMax) cuts.push([maxDay * DAY_MS, max!]);
  const innerMin = minDay === undefined ? undefined : cutsMin ? minDay + 1 : minDay;
  const innerMax = maxDay === undefined ? undefined : cutsMax ? maxDay - 1 : maxDay;
  const inner =
    innerMin === undefined || innerMax === undefined || innerMin <= innerMax
      ? { min: innerMin, max: innerMax }
      : undefined;
  return { inner, cuts };
}

/**
 * Counts the cut days of a range (splitDays) for a facet: each over its
 * window exactly (`exact`, an inclusive ms range), or as its whole day's
 * counters (`counters`, by day number) less the rest of that day when the
 * rest is the shorter part. `sign` is +1 to add, -1 to subtract.
 */
async function countCutDays(
  cuts: readonly [number, number][],
  counters: (firstDay: number, lastDay: number, sign: number) => Promise<void>,
  exact: (min: number, max: number, sign: number) => Promise<void>,
): Promise<void> {
  for (const [min, max] of cuts) {
    const day = Math.floor(min / DAY_MS);
    const [start, end] = [day * DAY_MS, (day + 1) * DAY_MS - 1];
    if (DAY_MS - (max - min + 1) < max - min + 1) {
      await counters(day, day, 1);
      if (min > start) await exact(start, min - 1, -1);
      if (max < end) await exact(max + 1, end, -1);
    } else {
      await exact(min, max, 1);
    }
  }
}

/** Facet fields whose values are read from documents (the type is a column). */
type DocumentFacetField = Exclude<FacetField, 'eventTypeName'>;

/** Binary string order, the same on every engine and in the contract's oracle. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const MINUTE_MS = 60_000;

export type EventRow = {
  org_id: string;
  id: string;
  created: number | string;
  event_type: string;
  doc: string;
  raw?: string | null;
};

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    orgId: row.org_id,
    id: row.id,
    created: Number(row.created),
    eventTypeName: row.event_type,
    doc: row.doc,
    raw: row.raw ?? null,
  };
}

type ApiKeyRow = {
  id: string;
  public_key: string;
  description: string;
  created: number;
  disabled: number;
  realm: string;
  ha1_md5: string;
  ha1_sha256: string;
};

function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    publicKey: row.public_key,
    description: row.description,
    created: Number(row.created),
    disabled: Number(row.disabled) !== 0,
    realm: row.realm,
    ha1Md5: row.ha1_md5,
    ha1Sha256: row.ha1_sha256,
  };
}

/** Counter deltas of one batch: (event_type, day) -> n, plus the all-types (hour) rows. */
export function countDeltas(
  inserted: Iterable<{ created: number; eventTypeName: string }>,
): Map<string, { eventType: string; bucket: number; n: number }> {
  const deltas = new Map<string, { eventType: string; bucket: number; n: number }>();
  const bump = (eventType: string, bucket: number) => {
    const key = `${eventType}\u0000${bucket}`;
    const entry = deltas.get(key);
    if (entry) entry.n += 1;
    else deltas.set(key, { eventType, bucket, n: 1 });
  };
  const typeUnit = counterUnit(true);
  const allUnit = counterUnit(false);
  for (const event of inserted) {
    bump(event.eventTypeName, Math.floor(event.created / typeUnit));
    bump('', Math.floor(event.created / allUnit));
  }
  return deltas;
}

export { sql };
