/**
 * The storage contract. Every read is scoped to one organization; the API,
 * the dashboard and the CLI depend on this interface only, never on an engine.
 */
import type { NewEvent, StoredEvent } from '@/lib/domain/event';
import type { FacetField, FieldFilters, HistogramInterval } from '@/lib/domain/filters';
import type { BulkLoadHelperTarget } from './bulk-load-helper';
import type { SavedView, SavedViewPatch } from './saved-views';

export type { SavedView, SavedViewPatch } from './saved-views';

export const ORG_ROLES = [
  'ORG_OWNER',
  'ORG_MEMBER',
  'ORG_GROUP_CREATOR',
  'ORG_BILLING_ADMIN',
  'ORG_BILLING_READ_ONLY',
  'ORG_READ_ONLY',
] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

// The event's wire and storage forms belong to the domain; the store keeps them.
export type { NewEvent, StoredEvent } from '@/lib/domain/event';

export type EventFilter = FieldFilters & {
  orgId: string;
  /** Empty or undefined: every type. */
  eventTypes?: readonly string[];
  /** Inclusive bounds, milliseconds since the epoch. */
  minCreated?: number;
  maxCreated?: number;
};

export type FacetCount = { value: string; count: number };

export type Facets = {
  /** Size of the filtered set (every filter applied). */
  totalCount: number;
  /** Per field: its top values under every filter except the field's own, count desc then value. */
  facets: Partial<Record<FacetField, FacetCount[]>>;
};

export type HistogramQuery = EventFilter & { buckets: number; interval?: HistogramInterval };

export type Histogram = {
  interval: HistogramInterval;
  totalCount: number;
  /** Aligned to UTC boundaries of the interval, oldest first, empty ones included. */
  buckets: { start: number; count: number }[];
};

/** The histogram would need more than the maximum number of buckets. */
export class TooManyBucketsError extends Error {
  constructor(readonly needed: number) {
    super(`The range needs ${needed} buckets`);
    this.name = 'TooManyBucketsError';
  }
}

export type EventPageQuery = EventFilter & {
  offset: number;
  limit: number;
  includeCount: boolean;
  includeRaw: boolean;
};

export type EventPage = {
  events: StoredEvent[];
  /** Exact size of the filtered set, or null when includeCount was false. */
  totalCount: number | null;
  /** Whether rows exist after this page. */
  hasMore: boolean;
};

export type InsertResult = { inserted: number; skipped: number };

export type Org = { id: string; name: string; created: number };

export type ApiKeyRecord = {
  id: string;
  publicKey: string;
  description: string;
  created: number;
  disabled: boolean;
  /** The realm the HA1 values were computed for. */
  realm: string;
  /** MD5(publicKey:realm:privateKey), hex. Never the private key itself. */
  ha1Md5: string;
  /** SHA-256(publicKey:realm:privateKey), hex. */
  ha1Sha256: string;
};

/** What a readiness probe needs to know of the store. */
export type StoreHealth = {
  /** The database answered and every migration this build ships is applied. */
  ready: boolean;
  /** Shipped migrations the database has not applied, in order. */
  pendingMigrations: string[];
  /** Why not ready (absent when ready). */
  reason?: string;
};

export type Membership = { orgId: string; apiKeyId: string; role: OrgRole; created: number };

export interface EventStore {
  readonly dialect: 'sqlite' | 'postgres';

  // Events
  listEvents(query: EventPageQuery): Promise<EventPage>;
  getEvent(orgId: string, id: string, includeRaw: boolean): Promise<StoredEvent | null>;
  countEvents(filter: EventFilter): Promise<number>;
  /**
   * The event types present in an organization with their counts, most
   * frequent first; with a filter, counted under it, except its own
   * eventTypes/excludeEventTypes (types with no events left out).
   */
  eventTypeCounts(
    orgId: string,
    filter?: Omit<EventFilter, 'orgId'>,
  ): Promise<{ eventTypeName: string; count: number }[]>;
  /** Facet counts of the filtered set (see Facets). */
  facets(filter: EventFilter, fields: readonly FacetField[], limit: number): Promise<Facets>;
  /** Counts of the filtered set per interval bucket. */
  histogram(query: HistogramQuery): Promise<Histogram>;
  /**
   * Inserts a batch atomically: either every new event of the batch is
   * written (with its counters) or none is. Existing ids are skipped.
   */
  insertEvents(orgId: string, events: readonly NewEvent[]): Promise<InsertResult>;

  /**
   * Brings planner statistics and counter storage up to date after a bulk
   * load (PostgreSQL: VACUUM ANALYZE, since the counters are updated in place
   * and autovacuum may be off or late; SQLite: PRAGMA optimize).
   */
  refreshStatistics(): Promise<void>;

  /**
   * Upkeep a bulk load may hand to another thread while this one inserts
   * (open it there with `openBulkLoadHelper`), or undefined when the engine
   * has none. SQLite: WAL checkpoints, so inserts never stop to run them.
   */
  bulkLoadHelperTarget(): BulkLoadHelperTarget | undefined;

  // Organizations
  createOrg(org: Org): Promise<Org>;
  getOrg(id: string): Promise<Org | null>;
  listOrgs(): Promise<Org[]>;

  // API keys and memberships
  createApiKey(key: ApiKeyRecord): Promise<ApiKeyRecord>;
  getApiKeyByPublicKey(publicKey: string): Promise<ApiKeyRecord | null>;
  listApiKeys(orgId?: string): Promise<ApiKeyRecord[]>;
  setApiKeyDisabled(publicKey: string, disabled: boolean): Promise<boolean>;
  /**
   * Replaces a key's stored HA1 values (re-encryption at rest, a rotated
   * private key). False when no key has that id.
   */
  setApiKeyHa1(apiKeyId: string, values: { ha1Md5: string; ha1Sha256: string }): Promise<boolean>;
  grantRole(membership: Membership): Promise<void>;
  listMemberships(apiKeyId: string): Promise<Membership[]>;
  /** The roles an API key holds in one organization (empty when none). */
  getRoles(orgId: string, apiKeyId: string): Promise<OrgRole[]>;

  /**
   * Whether the store answers and its database is migrated to the latest
   * migration. Never throws: failures are reported as not ready.
   */
  health(): Promise<StoreHealth>;

  // Saved dashboard views (lib/store/saved-views.ts)
  /** The views a key sees in an org: its own and the org's shared ones, by name. */
  listSavedViews(orgId: string, apiKeyId: string): Promise<SavedView[]>;
  createSavedView(view: SavedView): Promise<SavedView>;
  /** Only the owner changes a view; null when the owner holds no such view. */
  updateSavedView(
    orgId: string,
    id: string,
    ownerKeyId: string,
    patch: SavedViewPatch,
    now: number,
  ): Promise<SavedView | null>;
  /** Only the owner deletes a view; false when the owner holds no such view. */
  deleteSavedView(orgId: string, id: string, ownerKeyId: string): Promise<boolean>;

  // Settings (secrets generated on first start, shared by every instance)
  getOrCreateSetting(key: string, create: () => string): Promise<string>;

  close(): Promise<void>;
}
