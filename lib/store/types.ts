/**
 * The storage contract. Every read is scoped to one organization; the API,
 * the dashboard and the CLI depend on this interface only, never on an engine.
 */
import type { NewEvent, StoredEvent } from '@/lib/domain/event';
import type { FacetField, FieldFilters, HistogramInterval } from '@/lib/domain/filters';
import type { BulkLoadHelper } from './bulk-load-helper';
import type { SavedView, SavedViewPatch } from './saved-views';
import type { BatchTerms } from './terms';

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

export type HistogramQuery = EventFilter & {
  buckets: number;
  interval?: HistogramInterval;
  /** An IANA zone whose clock starts the buckets (lib/domain/histogram.ts); default UTC. */
  timeZone?: string;
};

export type Histogram = {
  interval: HistogramInterval;
  totalCount: number;
  /** Aligned to boundaries of the interval (UTC's, or the query's zone's), oldest first, empty ones included. */
  buckets: { start: number; count: number }[];
};

/** The histogram would need more than the maximum number of buckets. */
export class TooManyBucketsError extends Error {
  /** `exact` is false where `needed` is an estimate (bucketStartsWithin). */
  constructor(
    readonly needed: number,
    readonly exact: boolean,
  ) {
    super(`The range needs ${exact ? '' : 'about '}${needed} buckets`);
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

/** See EventStore.runsHolding. */
export type RunsHolding = {
  /** Events a run of the mirror copied (the one running included). */
  bySource: number;
  /** Per other run holding some of the events: the oldest `created` (ms) among them. */
  others: Record<string, number>;
};

/**
 * A filtered set read whole, newest first, from one snapshot of the
 * database: events committed after it opened are never seen, none is seen
 * twice. Holds a transaction (SQLite: on a connection of its own) until it
 * is read to the end or closed: close it in a `finally`.
 */
export interface EventCursor {
  /** Size of the set, counted in the cursor's snapshot. */
  readonly totalCount: number;
  /** The next batch (newest first), or an empty array at the end, which also closes the cursor. */
  read(): Promise<StoredEvent[]>;
  /** Ends the query and the snapshot now; idempotent. */
  close(): Promise<void>;
  /** Whether the query has ended (read to the end or closed). */
  readonly closed: boolean;
}
export type InsertOptions = {
  /** The import or mirror run inserting the batch (the ledger, for undo). */
  runId?: string;
  /**
   * The batch's postings, when a bulk load's producer thread already
   * computed them (lib/store/terms.ts batchTerms of these events).
   */
  terms?: BatchTerms;
};

/** Which of an org's events a deletion removes. */
export type EventSelection =
  /** Every event created strictly before this instant (retention). */
  | { before: number }
  /** Every event the run inserted (undo). */
  | { runId: string }
  /** These events, by id (ids not stored are ignored). */
  | { ids: readonly string[] };

export type DeleteOptions = {
  /** Events deleted per transaction (default 2,000): a deletion never holds a long lock. */
  batchSize?: number;
  /** After each committed batch, the total deleted so far. */
  onBatch?: (deleted: number) => void;
  /** Checked between batches: true stops the deletion after the current batch. */
  stop?: () => boolean;
};

export type IngestRunKind = 'import' | 'mirror';
/** A run's states in the ledger (lib/ingest/ingest-runs.ts says how a run moves through them). */
export const INGEST_RUN_STATUSES = [
  'running',
  'finished',
  'failed',
  'interrupted',
  'undone',
] as const;
export type IngestRunStatus = (typeof INGEST_RUN_STATUSES)[number];

/** One import or mirror run, as the ledger records it. */
export type IngestRun = {
  id: string;
  orgId: string;
  kind: IngestRunKind;
  /** A file path, "-" (stdin), or the mirrored source's URL and org. */
  source: string;
  started: number;
  finished: number | null;
  inserted: number;
  /** Records already present (same id). */
  skipped: number;
  /** Records refused as invalid. */
  rejected: number;
  status: IngestRunStatus;
  /** Why it failed, or what undid it. */
  detail: string | null;
  /** The machine (os.hostname()) and process that ran it; null on runs older than that record. */
  host: string | null;
  pid: number | null;
  /** Its last sign of life (ms), or null (then `started` stands in). */
  heartbeat: number | null;
  /**
   * While an undo of it is under way (or was stopped midway): the `created`
   * of its oldest event when that undo began, where mirror checkpoints are
   * wound back from; null otherwise.
   */
  undoFrom: number | null;
};

export type IngestRunPatch = Partial<
  Pick<
    IngestRun,
    | 'finished'
    | 'inserted'
    | 'skipped'
    | 'rejected'
    | 'status'
    | 'detail'
    | 'heartbeat'
    | 'undoFrom'
  >
>;

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
  /**
   * The SQLite database's file (an absolute path); null for PostgreSQL and
   * an in-memory SQLite database. Its generated secret lives beside it
   * (lib/auth/secrets.ts).
   */
  readonly databaseFile: string | null;

  // Events
  listEvents(query: EventPageQuery): Promise<EventPage>;
  getEvent(orgId: string, id: string, includeRaw: boolean): Promise<StoredEvent | null>;
  countEvents(filter: EventFilter): Promise<number>;
  /** The whole filtered set from one snapshot, in batches of about `batchSize` (see EventCursor). */
  openEventCursor(
    filter: EventFilter,
    options: { includeRaw: boolean; batchSize?: number },
  ): Promise<EventCursor>;
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
  insertEvents(
    orgId: string,
    events: readonly NewEvent[],
    options?: InsertOptions,
  ): Promise<InsertResult>;
  /**
   * Deletes a selection of an org's events with their postings, keeping every
   * counter exact (counter rows that reach zero are removed, so the store is
   * as if those events had never been inserted). Batches of `batchSize`
   * events, each one transaction. Returns how many were deleted. The
   * statistics are the caller's to refresh afterwards (refreshStatistics):
   * on PostgreSQL each batch rewrote its counter rows, whose sums read the
   * dead versions too until a vacuum.
   */
  deleteEvents(orgId: string, selection: EventSelection, options?: DeleteOptions): Promise<number>;
  /**
   * Every row of every table that belongs to the org (an `org_id` column, and
   * its `orgs` row), each table's rows in a stable order: for comparisons of a
   * whole org before and after an operation.
   */
  dumpOrg(orgId: string): Promise<Record<string, Record<string, unknown>[]>>;

  // The import ledger (lib/store/ingest-runs.ts)
  createIngestRun(run: IngestRun): Promise<IngestRun>;
  /**
   * Whether the run was updated: with `unlessStatus`, a run of that status
   * is left as it is, in the same statement (a run undone while it went on).
   */
  updateIngestRun(
    id: string,
    patch: IngestRunPatch,
    guard?: { unlessStatus: IngestRunStatus },
  ): Promise<boolean>;
  getIngestRun(id: string): Promise<IngestRun | null>;
  /** How many of the org's events the run added and are still stored. */
  countRunEvents(orgId: string, runId: string): Promise<number>;
  /**
   * Newest first: one org's, or every org's when `orgId` is undefined; only
   * those of `statuses` when given (as stored: a dead run still `running`
   * is settled by lib/ingest/ingest-runs.ts, not here).
   */
  listIngestRuns(
    orgId: string | undefined,
    limit?: number,
    statuses?: readonly IngestRunStatus[],
  ): Promise<IngestRun[]>;
  /** A mirror's saved position for one source (opaque JSON text), or null. */
  getMirrorCheckpoint(orgId: string, source: string): Promise<string | null>;
  /**
   * Saves (null: drops) a checkpoint; with `expected`, only if the stored one
   * is still that (null: none), atomically. Returns whether it was written.
   */
  setMirrorCheckpoint(
    orgId: string,
    source: string,
    state: string | null,
    expected?: string | null,
  ): Promise<boolean>;
  /**
   * Rewrites every mirror checkpoint of the org (`rewrite` gives the new
   * state, or null to drop it), each compare-and-set over the state it was
   * computed from; returns how many changed.
   */
  rewriteMirrorCheckpoints(
    orgId: string,
    rewrite: (state: string, source: string) => string | null,
  ): Promise<number>;
  /** The oldest `created` (ms) of the events a run inserted that are still stored, or null. */
  oldestRunEvent(orgId: string, runId: string): Promise<number | null>;
  /**
   * Who inserted the org's events `ids`, for the mirror of `mirror.source`:
   * how many a run of that mirror copied (any run, the one running too),
   * and per other run (an import, another source's mirror) the oldest
   * `created` (ms) of those it holds.
   */
  runsHolding(
    orgId: string,
    ids: readonly string[],
    mirror: { source: string },
  ): Promise<RunsHolding>;

  /**
   * Brings planner statistics and counter storage up to date after a bulk
   * load (PostgreSQL: VACUUM ANALYZE, since the counters are updated in place
   * and autovacuum may be off or late; SQLite: PRAGMA optimize).
   */
  refreshStatistics(): Promise<void>;

  /**
   * Starts the upkeep a bulk load hands to a thread of its own while this
   * one inserts, or returns undefined when the engine has none. SQLite: WAL
   * checkpoints, so inserts never stop to run them. The load closes it.
   */
  startBulkLoadHelper(): BulkLoadHelper | undefined;

  /**
   * How many batches a bulk load may insert at once: 1 where the engine has
   * one writer (SQLite), more where concurrent transactions use more cores.
   */
  bulkInsertLanes(): number;

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
  /**
   * Replaces several keys' HA1 values in one transaction (sealing the plain
   * ones at start: all or none), each only where it still holds `from` (a
   * key rotated meanwhile keeps its new values). Returns the ids changed.
   */
  replaceApiKeysHa1(
    changes: readonly {
      apiKeyId: string;
      from: { ha1Md5: string; ha1Sha256: string };
      to: { ha1Md5: string; ha1Sha256: string };
    }[],
  ): Promise<string[]>;
  grantRole(membership: Membership): Promise<void>;
  listMemberships(apiKeyId: string): Promise<Membership[]>;
  /** The roles an API key holds in one organization (empty when none). */
  getRoles(orgId: string, apiKeyId: string): Promise<OrgRole[]>;

  /**
   * Whether the store answers and its database is migrated to the latest
   * migration. Never throws: failures are reported as not ready.
   */
  health(): Promise<StoreHealth>;
  /** The migrations opening this store applied, in order (none: it was up to date). */
  readonly appliedAtOpen: readonly string[];

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
  /** Removes a setting; false when there was none. */
  deleteSetting(key: string): Promise<boolean>;

  close(): Promise<void>;
}
