import { inspect } from 'node:util';
import {
  DEFAULT_MIGRATION_TABLE,
  type Kysely,
  type SelectQueryBuilder,
  Migrator,
  sql,
} from 'kysely';
import { isUnavailable, StoreUnavailableError } from './errors';
import type { BulkLoadHelperTarget } from './bulk-load-helper';
import { migrationProvider } from './migrations';
import * as savedViews from './saved-views';
import { counterUnit, type Database } from './schema';
import type {
  ApiKeyRecord,
  EventFilter,
  EventPage,
  EventPageQuery,
  EventStore,
  InsertResult,
  StoreHealth,
  Membership,
  NewEvent,
  Org,
  OrgRole,
  StoredEvent,
} from './types';

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

/** Counter rows read per step of a page walk. */
const WALK_CHUNK = 512;

/** Applies every pending versioned migration, in order, or throws. */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
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
    throw new Error(`Database migration failed: ${reason}`);
  }
}

/**
 * The engine-neutral store: every query is written once with Kysely and runs
 * on SQLite and PostgreSQL alike. Engines differ only in how they bulk-insert.
 */
export abstract class KyselyStore implements EventStore {
  abstract readonly dialect: 'sqlite' | 'postgres';

  protected constructor(protected readonly db: Kysely<Database>) {}

  abstract refreshStatistics(): Promise<void>;

  /** No bulk-load upkeep to hand off unless the engine has some. */
  bulkLoadHelperTarget(): BulkLoadHelperTarget | undefined {
    return undefined;
  }

  protected abstract insertBatch(orgId: string, events: readonly NewEvent[]): Promise<InsertResult>;

  async migrate(): Promise<void> {
    await migrateToLatest(this.db);
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
      const detail = error instanceof Error ? error.message : String(error);
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
    const plan = await this.countPlan(db, query);
    const totalCount = query.includeCount ? plan.total : null;
    if (query.offset >= plan.total || query.limit <= 0) {
      return { events: [], totalCount, hasMore: false };
    }

    // Find the buckets holding the page's first and last rows by walking the
    // counters from the nearer end, then read only that time window:
    // a deep page costs a few counter rows and one short index range instead
    // of skipping `offset` events.
    const last = Math.min(query.offset + query.limit, plan.total) - 1;
    const window = await this.locateWindow(db, query, plan, query.offset, last);

    let select = db
      .selectFrom('events')
      .select(['org_id', 'id', 'created', 'event_type', 'doc'])
      .$if(query.includeRaw, (qb) => qb.select('raw'));
    select = applyFilter(select, {
      ...query,
      minCreated: Math.max(query.minCreated ?? -Infinity, window.endBucket * plan.unit),
      maxCreated: Math.min(query.maxCreated ?? Infinity, (window.startBucket + 1) * plan.unit - 1),
    });
    const rows = await select
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset(window.skip)
      .execute();

    const events = rows.map(toStoredEvent);
    return { events, totalCount, hasMore: query.offset + events.length < plan.total };
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
    // Without date bounds the count is one SUM over the counters; a bound that
    // cuts a bucket adds exact counts, and those must share the SUM's snapshot.
    const cuts = filter.minCreated !== undefined || filter.maxCreated !== undefined;
    const plan = cuts
      ? await this.readSnapshot((db) => this.countPlan(db, filter))
      : await this.countPlan(this.db, filter);
    return plan.total;
  }

  async eventTypeCounts(orgId: string): Promise<{ eventTypeName: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('event_counts')
      .select(['event_type', (eb) => eb.fn.sum<number>('n').as('n')])
      .where('org_id', '=', orgId)
      .where('event_type', '<>', '')
      .groupBy('event_type')
      .execute();
    return rows
      .map((r) => ({ eventTypeName: r.event_type, count: Number(r.n) }))
      .sort((a, b) => b.count - a.count || a.eventTypeName.localeCompare(b.eventTypeName));
  }

  async insertEvents(orgId: string, events: readonly NewEvent[]): Promise<InsertResult> {
    if (events.length === 0) return { inserted: 0, skipped: 0 };
    return this.insertBatch(orgId, events);
  }

  /**
   * The exact size of the filtered set. Whole buckets come from the counters
   * (one SUM); a bucket cut by minCreated/maxCreated is counted exactly over a
   * short index range, and kept so the page walk can use it too.
   */
  private async countPlan(db: Kysely<Database>, filter: EventFilter): Promise<CountPlan> {
    const { minCreated, maxCreated } = filter;
    const unit = counterUnit(Boolean(filter.eventTypes?.length));
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
      const n = await this.countExact(db, {
        ...filter,
        minCreated: Math.max(minCreated ?? -Infinity, bucket * unit),
        maxCreated: Math.min(maxCreated ?? Infinity, (bucket + 1) * unit - 1),
      });
      partial.push({ bucket, n });
    }
    const innerMin = minBucket === undefined ? undefined : cutsMin ? minBucket + 1 : minBucket;
    const innerMax = maxBucket === undefined ? undefined : cutsMax ? maxBucket - 1 : maxBucket;
    let inner = 0;
    if (innerMin === undefined || innerMax === undefined || innerMin <= innerMax) {
      const row = await this.counters(db, filter, innerMin, innerMax)
        .select((eb) => eb.fn.sum<number>('n').as('n'))
        .executeTakeFirst();
      inner = Number(row?.n ?? 0);
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
    filter: EventFilter,
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
    for await (const bucket of this.walkBuckets(db, filter, plan, fromNewest ? 'desc' : 'asc')) {
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
    filter: EventFilter,
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
        const chunk = await this.counters(
          db,
          filter,
          direction === 'asc' ? cursor : plan.innerMin,
          direction === 'desc' ? cursor : plan.innerMax,
        )
          .select(['bucket', (eb) => eb.fn.sum<number>('n').as('n')])
          .groupBy('bucket')
          .orderBy('bucket', direction)
          .limit(WALK_CHUNK)
          .execute();
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

  /** Counter rows of the filter's types (or the all-types row) within [min, max] buckets. */
  private counters(
    db: Kysely<Database>,
    filter: EventFilter,
    min: number | undefined,
    max: number | undefined,
  ) {
    const types = filter.eventTypes?.length ? filter.eventTypes : [''];
    return db
      .selectFrom('event_counts')
      .where('org_id', '=', filter.orgId)
      .$if(types.length === 1, (qb) => qb.where('event_type', '=', types[0]!))
      .$if(types.length > 1, (qb) => qb.where('event_type', 'in', types))
      .$if(min !== undefined, (qb) => qb.where('bucket', '>=', min!))
      .$if(max !== undefined, (qb) => qb.where('bucket', '<=', max!));
  }

  private async countExact(db: Kysely<Database>, filter: EventFilter): Promise<number> {
    const row = await applyFilter(
      db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')),
      filter,
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

type EventRow = {
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
