import { type Kysely, type SelectQueryBuilder, Migrator, sql } from 'kysely';
import { migrationProvider } from './migrations';
import { type Database, HOUR_MS } from './schema';
import type {
  ApiKeyRecord,
  EventFilter,
  EventPage,
  EventPageQuery,
  EventStore,
  InsertResult,
  Membership,
  NewEvent,
  Org,
  OrgRole,
  StoredEvent,
} from './types';

type HourBucket = { hour: number; n: number };

/**
 * The engine-neutral store: every query is written once with Kysely and runs
 * on SQLite and PostgreSQL alike. Engines differ only in how they bulk-insert.
 */
export abstract class KyselyStore implements EventStore {
  abstract readonly dialect: 'sqlite' | 'postgres';

  protected constructor(protected readonly db: Kysely<Database>) {}

  protected abstract insertBatch(orgId: string, events: readonly NewEvent[]): Promise<InsertResult>;

  async migrate(): Promise<void> {
    const migrator = new Migrator({ db: this.db, provider: migrationProvider });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) {
      const reason =
        error instanceof Error ? error.message : String(error ?? failed?.migrationName);
      throw new Error(`Database migration failed: ${reason}`);
    }
  }

  // ---- events -------------------------------------------------------------

  async listEvents(query: EventPageQuery): Promise<EventPage> {
    const buckets = await this.hourBuckets(query);
    const total = buckets.reduce((sum, b) => sum + b.n, 0);
    const totalCount = query.includeCount ? total : null;
    if (query.offset >= total || query.limit <= 0) {
      return { events: [], totalCount, hasMore: false };
    }

    // Walk the per-hour counters (newest first) to the hour holding row
    // `offset`, and on to the hour holding the page's last row. The page query
    // then reads a narrow time window instead of skipping `offset` rows.
    const last = Math.min(query.offset + query.limit, total) - 1;
    let seen = 0;
    let startHour: number | undefined;
    let skipInWindow = 0;
    let endHour = buckets[buckets.length - 1]!.hour;
    for (const bucket of buckets) {
      if (startHour === undefined && seen + bucket.n > query.offset) {
        startHour = bucket.hour;
        skipInWindow = query.offset - seen;
      }
      seen += bucket.n;
      if (seen > last) {
        endHour = bucket.hour;
        break;
      }
    }
    const windowEnd = (startHour! + 1) * HOUR_MS - 1;
    const windowStart = endHour * HOUR_MS;

    let select = this.db
      .selectFrom('events')
      .select(['org_id', 'id', 'created', 'event_type', 'doc'])
      .$if(query.includeRaw, (qb) => qb.select('raw'));
    select = applyFilter(select, {
      ...query,
      minCreated: Math.max(query.minCreated ?? -Infinity, windowStart),
      maxCreated: Math.min(query.maxCreated ?? Infinity, windowEnd),
    });
    const rows = await select
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .offset(skipInWindow)
      .execute();

    const events = rows.map(toStoredEvent);
    return { events, totalCount, hasMore: query.offset + events.length < total };
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
    const buckets = await this.hourBuckets(filter);
    return buckets.reduce((sum, b) => sum + b.n, 0);
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
   * Per-hour counts of the filtered set, newest hour first. Whole hours come
   * from the counters; an hour cut by minCreated/maxCreated is counted exactly
   * (one short index range), so the sum is the exact total.
   */
  private async hourBuckets(filter: EventFilter): Promise<HourBucket[]> {
    const { minCreated, maxCreated } = filter;
    if (minCreated !== undefined && maxCreated !== undefined && minCreated > maxCreated) return [];
    const types = filter.eventTypes?.length ? filter.eventTypes : [''];
    const minHour = minCreated === undefined ? undefined : Math.floor(minCreated / HOUR_MS);
    const maxHour = maxCreated === undefined ? undefined : Math.floor(maxCreated / HOUR_MS);

    const rows = await this.db
      .selectFrom('event_counts')
      .select(['hour', (eb) => eb.fn.sum<number>('n').as('n')])
      .where('org_id', '=', filter.orgId)
      .where('event_type', 'in', types)
      .$if(minHour !== undefined, (qb) => qb.where('hour', '>=', minHour!))
      .$if(maxHour !== undefined, (qb) => qb.where('hour', '<=', maxHour!))
      .groupBy('hour')
      .orderBy('hour', 'desc')
      .execute();
    const buckets = rows.map((r) => ({ hour: Number(r.hour), n: Number(r.n) }));

    const partialHours = new Set<number>();
    if (minHour !== undefined && minCreated! > minHour * HOUR_MS) partialHours.add(minHour);
    if (maxHour !== undefined && maxCreated! < (maxHour + 1) * HOUR_MS - 1) {
      partialHours.add(maxHour);
    }
    for (const hour of partialHours) {
      const bucket = buckets.find((b) => b.hour === hour);
      if (!bucket) continue;
      bucket.n = await this.countExact({
        ...filter,
        minCreated: Math.max(minCreated ?? -Infinity, hour * HOUR_MS),
        maxCreated: Math.min(maxCreated ?? Infinity, (hour + 1) * HOUR_MS - 1),
      });
    }
    return buckets.filter((b) => b.n > 0);
  }

  private async countExact(filter: EventFilter): Promise<number> {
    const row = await applyFilter(
      this.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')),
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

/** Counter deltas of one batch: (event_type, hour) -> n, plus the all-types row. */
export function countDeltas(
  inserted: Iterable<{ created: number; eventTypeName: string }>,
): Map<string, { eventType: string; hour: number; n: number }> {
  const deltas = new Map<string, { eventType: string; hour: number; n: number }>();
  const bump = (eventType: string, hour: number) => {
    const key = `${eventType}\u0000${hour}`;
    const entry = deltas.get(key);
    if (entry) entry.n += 1;
    else deltas.set(key, { eventType, hour, n: 1 });
  };
  for (const event of inserted) {
    const hour = Math.floor(event.created / HOUR_MS);
    bump(event.eventTypeName, hour);
    bump('', hour);
  }
  return deltas;
}

export { sql };
