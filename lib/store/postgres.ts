import { CompiledQuery, Kysely, PostgresDialect, type RawBuilder, sql } from 'kysely';
import { DEFAULT_POOL_SIZE } from '@/lib/config';
import type pg from 'pg';
import { countDeltas, type EventRow, KyselyStore, type Snapshot } from './kysely-store';
import { pgArray } from './pg-array';
import { errorDetails, storeLogger } from './log';
import {
  type ConnectionSlot,
  copyRows,
  encodeBinaryCopy,
  trackingConnections,
  withConnectionSlot,
} from './postgres-copy';
import { isUniqueViolation, translateStoreError } from './errors';
import { applyQueryDeadlines, socketOf, withoutQueryDeadline } from './postgres-deadline';
import { reportingUnavailable } from './unavailable-dialect';
import { withLibpqSslModes } from './database-url';
import type { Database } from './schema';
import { type BatchTerms, batchTerms, keptTerms, termWords } from './terms';
import type { InsertResult, NewEvent } from './types';
import { compareText, inWriteOrder, writeTransaction } from './write-transaction';

const INT8_OID = 20;
const NUMERIC_OID = 1700;
/** How long getting a connection (new, or free in the pool) may take. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * How long a query may run before it is cancelled on the server, and how
 * long after that a server that has not acted on it is taken for gone
 * (lib/store/postgres-deadline.ts): past any request's life behind a proxy
 * (nginx gives up after 60 s), far short of TCP's 15 minutes. The deadline
 * and the pool's size are defaults: DATABASE_QUERY_TIMEOUT_SECONDS and
 * DATABASE_POOL_SIZE set them (lib/store/index.ts).
 */
const QUERY_DEADLINE_MS = 90_000;
const CANCEL_GRACE_MS = 10_000;
const POOL_SIZE = DEFAULT_POOL_SIZE;

/**
 * node-postgres, loaded when a PostgreSQL store is first opened: every
 * process imports this module (lib/store/index.ts), and a CLI command on the
 * SQLite default spent ~40 ms of its start loading pg for nothing.
 */
let pgLoaded: Promise<typeof pg> | undefined;
const loadPg = () => (pgLoaded ??= import('pg').then((module) => module.default));

/**
 * A connection that dies while nobody is querying on it (a restart, an
 * administrator's pg_terminate_backend, a network cut) makes node-postgres
 * emit 'error' on it, and on the pool for idle ones: without a listener that
 * is an uncaught exception. Log one line instead and carry on: the pool drops
 * the dead connection and opens a fresh one when next needed, and a query
 * that was running on it has already failed (as StoreUnavailableError).
 */
function reportLostConnections(pool: pg.Pool): void {
  pool.on('error', (error) => {
    storeLogger().warn(
      { component: 'store', ...errorDetails(error) },
      'PostgreSQL connection lost while idle in the pool',
    );
  });
  // A connection checked out but between queries (inside a transaction) has
  // no pool listener: its loss surfaces on the next query, so stay quiet here.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
}

/**
 * pg_cancel_backend(pid) on a connection of its own, given up after
 * `timeoutMs` (a server that does not answer it is what the cancel's grace
 * period then finds out).
 */
async function cancelBackend(connectionString: string, pid: number, timeoutMs: number) {
  const { Client } = await loadPg();
  const canceller = new Client({
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  canceller.on('error', () => undefined);
  try {
    await canceller.connect();
    await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    await canceller.end();
  } finally {
    // Never left waiting on a server that stopped answering.
    socketOf(canceller)?.destroy();
  }
}

/** PostgreSQL (or a PostgreSQL-compatible distributed engine) for when one machine is not enough. */
export class PostgresStore extends KyselyStore {
  /**
   * Settled once the batch last handed to insertBatch has inserted its events
   * (or failed). Batches written at once (a bulk load's lanes) insert their
   * events in the order they were handed over: an earlier batch's rows are
   * then in place, locked until it commits, before a later one reaches them,
   * so of an id both hold the earlier batch's copy is kept (the later waits
   * for that commit and skips it), as on SQLite, whichever is the faster.
   */
  private eventsTurn: Promise<void> = Promise.resolve();

  readonly dialect = 'postgres' as const;
  readonly databaseFile = null;
  /** Event type ids known committed (see typeIdsOf). */
  private readonly typeIds = new Map<string, number>();

  private constructor(
    db: Kysely<Database>,
    private readonly pool: pg.Pool,
  ) {
    super(db);
  }

  /**
   * Two batches at once: one batch's statements keep one server core busy
   * and leave the other to the client; a third measured no faster on two
   * cores (bench/load.ts).
   */
  override bulkInsertLanes(): number {
    return Math.min(BULK_INSERT_LANES, this.pool.options.max);
  }

  /** The connection pool's figures, for /metrics. */
  poolStats(): { total: number; idle: number; waiting: number } {
    return {
      total: this.pool.totalCount,
      idle: this.pool.idleCount,
      waiting: this.pool.waitingCount,
    };
  }

  static async open(
    connectionString: string,
    poolSize = POOL_SIZE,
    {
      queryDeadlineMs = QUERY_DEADLINE_MS,
      cancelGraceMs = CANCEL_GRACE_MS,
    }: { queryDeadlineMs?: number; cancelGraceMs?: number } = {},
  ): Promise<PostgresStore> {
    connectionString = withLibpqSslModes(connectionString);
    const pg = await loadPg();
    const pool = new pg.Pool({
      connectionString,
      max: poolSize,
      // A database that does not answer at all (a host gone, a full pool
      // that never frees) fails the request as unavailable instead of
      // holding it forever.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // Notices a peer that vanished without closing the socket.
      keepAlive: true,
      // bigint milliseconds and SUM() results fit in a double: read them as numbers.
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID || oid === NUMERIC_OID
            ? (value: string) => Number(value)
            : (pg.types.getTypeParser(oid, format) as (
                value: string,
              ) => unknown)) as typeof pg.types.getTypeParser,
      },
    });
    reportLostConnections(pool);
    applyQueryDeadlines(pool, {
      deadlineMs: queryDeadlineMs,
      graceMs: cancelGraceMs,
      cancel: (pid) => cancelBackend(connectionString, pid, cancelGraceMs),
    });
    const store = new PostgresStore(
      new Kysely<Database>({
        dialect: reportingUnavailable(
          new PostgresDialect({
            pool: trackingConnections(pool),
          }),
        ),
      }),
      pool,
    );
    try {
      store.appliedAtOpen = await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /**
   * REPEATABLE READ: every statement of the transaction reads the snapshot
   * its first one took (READ COMMITTED would take a new one per statement).
   * READ ONLY: a read can never fail on a write conflict, so it never retries.
   */
  protected override readSnapshot<T>(read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(read);
  }

  /**
   * A REPEATABLE READ, READ ONLY transaction on a connection of the pool,
   * read through a server-side cursor (FETCH a batch at a time), so neither
   * side holds more than a batch.
   */
  protected async openSnapshot(): Promise<Snapshot> {
    const trx = await this.db
      .startTransaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute();
    let ended = false;
    return {
      db: trx,
      streamRows: async (query, batchSize) => {
        await trx.executeQuery(
          CompiledQuery.raw(`DECLARE event_cursor NO SCROLL CURSOR FOR ${query.sql}`, [
            ...query.parameters,
          ]),
        );
        const fetch = CompiledQuery.raw(
          `FETCH FORWARD ${Math.max(1, Math.floor(batchSize))} FROM event_cursor`,
        );
        return async () => (await trx.executeQuery<EventRow>(fetch)).rows;
      },
      end: async () => {
        if (ended) return;
        ended = true;
        // Read only: a rollback ends it as well as a commit, and also after a failed statement.
        try {
          await trx.rollback().execute();
        } catch (error) {
          // The connection died under the snapshot (a restart, a failover,
          // idle_in_transaction_session_timeout): nothing is left to end, and
          // Kysely has released it to the pool, which drops a broken client.
          // Ending is what closing an export does when its client goes away,
          // where nobody awaits it: thrown, it was an unhandled rejection
          // that ended the server.
          storeLogger().warn(
            { component: 'store', ...errorDetails(error) },
            'snapshot ended with its connection lost',
          );
        }
      },
    };
  }

  /** Migrations may rightly run for minutes on a large store: no query deadline. */
  override migrate(): Promise<string[]> {
    return withoutQueryDeadline(() => super.migrate());
  }

  async refreshStatistics(): Promise<void> {
    // One connection, with the server's statement_timeout lifted while it
    // vacuums: a vacuum after a large load outlasts a timeout meant for
    // queries, and failing here would report a load whose rows all committed
    // as failed. VACUUM cannot run inside a transaction, so the setting is
    // the session's, reset before the connection goes back to the pool.
    // The client-side deadline (postgres-deadline.ts) is lifted likewise.
    await withoutQueryDeadline(() =>
      this.db.connection().execute(async (connection) => {
        await sql`SET statement_timeout = 0`.execute(connection);
        try {
          // Each batch rewrites its counter rows (ON CONFLICT DO UPDATE); without a
          // vacuum the sums read every dead version (16 ms instead of 1 ms seen
          // after a 1M-event seed with autovacuum off).
          await sql`VACUUM (ANALYZE) event_counts`.execute(connection);
          await sql`VACUUM (ANALYZE) term_days`.execute(connection);
          await sql`VACUUM (ANALYZE) term_dict`.execute(connection);
          // Index-only scans of the postings need their pages marked all-visible.
          await sql`VACUUM (ANALYZE) term_postings`.execute(connection);
          await sql`ANALYZE events`.execute(connection);
        } finally {
          await sql`RESET statement_timeout`.execute(connection);
        }
      }),
    );
  }

  /**
   * One transaction per batch: its events (insertNewEvents), their counters,
   * postings and dictionary, committed together. A few statements write
   * thousands of rows: large batches by COPY, the rest as one text parameter
   * (eventRowsSource).
   *
   * Batches may be written at once (a bulk load's lanes, two imports into
   * one org). Every transaction takes its locks table by table in one order,
   * and by key within each table (write-transaction.ts), so waits never form
   * a cycle; a deadlock caused by another client is run again
   * (writeTransaction).
   */
  protected async insertBatch(
    orgId: string,
    events: readonly NewEvent[],
    runId: string | null,
    prepared: BatchTerms | undefined,
  ): Promise<InsertResult> {
    // Rows in the writers' one order: two batches holding some of the same
    // ids (overlapping files imported at once) wait for each other instead
    // of deadlocking on them.
    const ordered = inWriteOrder(events);
    let learnt: Map<string, number> | undefined;
    // This batch inserts its events once the batch handed over before it has
    // inserted its own (eventsTurn); its counters and terms overlap still.
    const previousTurn = this.eventsTurn;
    let endTurn = (): void => undefined;
    this.eventsTurn = new Promise<void>((resolve) => (endTurn = resolve));
    // READ COMMITTED, and run again if PostgreSQL breaks a deadlock with it.
    // The slot holds the transaction's pg client, for COPY. However the
    // transaction ends, the next batch's turn comes (finally).
    const inserted = await withConnectionSlot((slot) =>
      writeTransaction(this.db, async (trx) => {
        await previousTurn;
        const added = await insertNewEvents(trx, slot, orgId, ordered, runId);
        endTurn();
        // Counter rows are locked in the writers' one order (write-transaction.ts),
        // as the dictionary and term counters below: two batches bumping the
        // same counters in different orders deadlocked.
        const deltas = [...countDeltas(added).values()].sort(
          (a, b) => compareText(a.eventType, b.eventType) || a.bucket - b.bucket,
        );
        if (deltas.length > 0) {
          await sql`
            INSERT INTO event_counts (org_id, event_type, bucket, n)
            SELECT ${orgId}, t.event_type, t.bucket, t.n
            FROM unnest(
              ${deltas.map((d) => d.eventType)}::text[],
              ${deltas.map((d) => d.bucket)}::bigint[],
              ${deltas.map((d) => d.n)}::bigint[]
            ) AS t(event_type, bucket, n)
            ON CONFLICT (org_id, event_type, bucket) DO UPDATE SET n = event_counts.n + excluded.n`.execute(
            trx,
          );
        }
        if (added.length === events.length) {
          learnt = await this.writeTerms(trx, slot, orgId, events, prepared ?? batchTerms(events));
        } else {
          // Each new id once: a batch may repeat an id, and only its first copy was inserted.
          const ids = new Set(added.map((r) => r.id));
          const kept = events.map((event) => ids.delete(event.id));
          // Prepared terms refer to the whole batch's events: kept by index.
          let termEvents: readonly NewEvent[] = events;
          let terms: BatchTerms;
          if (prepared) {
            terms = keptTerms(events, prepared, (e) => kept[e]!);
          } else {
            termEvents = events.filter((_, e) => kept[e]);
            terms = batchTerms(termEvents);
          }
          learnt = await this.writeTerms(trx, slot, orgId, termEvents, terms);
        }
        return added.length;
      }),
    ).finally(endTurn);
    // Committed: the type ids the batch used are known for good.
    for (const [name, id] of learnt ?? []) this.typeIds.set(name, id);
    return { inserted, skipped: events.length - inserted };
  }

  /** The postings, term counters and dictionary of a batch (inside its transaction). */
  private async writeTerms(
    trx: Kysely<Database>,
    slot: ConnectionSlot,
    orgId: string,
    events: readonly NewEvent[],
    batch: BatchTerms,
  ): Promise<Map<string, number> | undefined> {
    const { terms, postings, dayCounts, values, keys } = batch;
    if (postings.length === 0) return undefined;
    // The dictionary's upsert returns every term's id, new or old. Rows are
    // locked in term order, the same in every transaction, so two batches
    // sharing terms wait for each other instead of deadlocking.
    const order: number[] = [];
    for (let i = 0; i < values.length; i += 2) order.push(i);
    order.sort((a, b) => compareText(terms[values[a]!]!, terms[values[b]!]!));
    const valueTerms = order.map((i) => terms[values[i]!]!);
    const valueNs = order.map((i) => values[i + 1]!);
    const { rows: dict } = await sql<{ id: number | string; term: string; n: number | string }>`
      INSERT INTO term_dict (org_id, term, n)
      SELECT ${orgId}, t.term, t.n
      FROM unnest(${valueTerms}::text[], ${pgArray(valueNs)}::bigint[]) AS t(term, n)
      ON CONFLICT (org_id, term) DO UPDATE SET n = term_dict.n + excluded.n
      RETURNING id, term, n`.execute(trx);
    const index = new Map<string, number>();
    const added = new Float64Array(terms.length);
    for (let i = 0; i < values.length; i += 2) {
      index.set(terms[values[i]!]!, values[i]!);
      added[values[i]!] = values[i + 1]!;
    }
    const ids = new Float64Array(terms.length);
    // A term whose count is this batch's alone is new: its words go to term_words.
    const wordTexts: string[] = [];
    const wordIds: number[] = [];
    for (const row of dict) {
      const t = index.get(row.term)!;
      ids[t] = Number(row.id);
      if (Number(row.n) === added[t]) {
        for (const word of termWords(row.term)) {
          wordTexts.push(word);
          wordIds.push(ids[t]);
        }
      }
    }
    if (wordTexts.length > 0) {
      await sql`INSERT INTO term_words (org_id, word, term_id)
        SELECT ${orgId}, * FROM unnest(${wordTexts}::text[], ${pgArray(wordIds)}::bigint[])
        ON CONFLICT DO NOTHING`.execute(trx);
    }

    const typeIds = await this.typeIdsOf(trx, events);
    const count = postings.length / 2;
    const termIds = new Float64Array(count);
    const created = new Float64Array(count);
    const his = new Float64Array(count);
    const los = new Float64Array(count);
    const types = new Float64Array(count);
    for (let p = 0; p < count; p++) {
      const e = postings[p * 2]!;
      const event = events[e]!;
      termIds[p] = ids[postings[p * 2 + 1]!]!;
      created[p] = event.created;
      his[p] = keys[e * 2]!;
      los[p] = keys[e * 2 + 1]!;
      types[p] = typeIds.get(event.eventTypeName)!;
    }
    // New events' postings never exist yet: a plain COPY, no conflict to handle.
    await copyInTransaction(
      slot,
      'term_postings',
      ['term_id', 'created', 'id_hi', 'id_lo', 'type_id'],
      encodeBinaryCopy(count, [
        { int8: termIds },
        { int8: created },
        { int8: his },
        { int8: los },
        { int8: types },
      ]),
    );
    // Counter rows in key order too (see the dictionary above).
    const dayCount = dayCounts.length / 4;
    const dayIds = new Float64Array(dayCount);
    const dayBuckets = new Float64Array(dayCount);
    const dayTypes = new Float64Array(dayCount);
    const dayNs = new Float64Array(dayCount);
    const days: number[] = [];
    for (let d = 0; d < dayCount; d++) {
      days.push(d);
      dayIds[d] = ids[dayCounts[d * 4]!]!;
      dayBuckets[d] = dayCounts[d * 4 + 1]!;
      dayTypes[d] = typeIds.get(events[dayCounts[d * 4 + 2]!]!.eventTypeName)!;
      dayNs[d] = dayCounts[d * 4 + 3]!;
    }
    days.sort(
      (a, b) =>
        dayIds[a]! - dayIds[b]! || dayBuckets[a]! - dayBuckets[b]! || dayTypes[a]! - dayTypes[b]!,
    );
    const inOrder = (column: Float64Array) => Float64Array.from(days, (d) => column[d]!);
    await sql`
      INSERT INTO term_days (term_id, bucket, type_id, n)
      SELECT * FROM unnest(${pgArray(inOrder(dayIds))}::bigint[], ${pgArray(inOrder(dayBuckets))}::bigint[],
        ${pgArray(inOrder(dayTypes))}::bigint[], ${pgArray(inOrder(dayNs))}::bigint[])
      ON CONFLICT (term_id, bucket, type_id) DO UPDATE SET n = term_days.n + excluded.n`.execute(
      trx,
    );
    return typeIds;
  }

  /**
   * The type ids of a batch's events (event_type_ids), remembered across
   * batches once known committed: ids are never deleted or reused. A name
   * first seen here is added in the batch's transaction and remembered only
   * after it commits (see insertBatch).
   */
  private async typeIdsOf(
    trx: Kysely<Database>,
    events: readonly NewEvent[],
  ): Promise<Map<string, number>> {
    const names = new Set<string>();
    for (const event of events) names.add(event.eventTypeName);
    const ids = new Map<string, number>();
    const missing: string[] = [];
    for (const name of names) {
      const id = this.typeIds.get(name);
      if (id === undefined) missing.push(name);
      else ids.set(name, id);
    }
    // In name order, like every lock a batch takes (see insertBatch).
    missing.sort(compareText);
    if (missing.length > 0) {
      await sql`INSERT INTO event_type_ids (name) SELECT unnest(${missing}::text[])
        ON CONFLICT (name) DO NOTHING`.execute(trx);
      const { rows } = await sql<{ id: number; name: string }>`SELECT id, name
        FROM event_type_ids WHERE name = ANY(${missing}::text[])`.execute(trx);
      for (const row of rows) ids.set(row.name, Number(row.id));
    }
    return ids;
  }
}

/** An event as the events insert selects it. */
type BatchRow = {
  id: string;
  created: number;
  event_type: string;
  doc: string;
  raw: string | null;
};

/** Between an event's fields and between events in eventRowsSource's text: never in JSON text. */
const FIELD_SEPARATOR = '\x1f';
const EVENT_SEPARATOR = '\x1e';
// eslint-disable-next-line no-control-regex -- control characters are the point: JSON never holds them raw
const SEPARATORS = /[\x1e\x1f]/;

/**
 * A batch's events as a row source (id, created, event_type, doc, raw) for
 * INSERT ... SELECT, sent as one parameter.
 *
 * Mostly one text: fields joined by U+001F, events by U+001E, split in SQL
 * (string_to_table: PostgreSQL 14 or newer). doc and raw are JSON texts,
 * which hold neither character (JSON escapes control characters inside
 * strings and allows none outside), so they go as they are. The JSON
 * parameter this replaces had them escaped by JSON.stringify and unescaped
 * again by the server: ~5 µs an event of the ~22 µs the events' insert
 * took, plus ~1.5 µs of the client's (200,000 events, alternating). A batch
 * that holds either character anyway (in an id or a type name, which are
 * not JSON) goes as JSON, through json_to_recordset. (Not one array per
 * column: pg serializes array parameters element by element in JavaScript,
 * over ten times the CPU of JSON.stringify on the same batch.)
 */
function eventRowsSource(events: readonly NewEvent[]): RawBuilder<BatchRow> {
  const parts: string[] = [];
  for (const e of events) {
    const raw = e.raw ?? '';
    if (
      SEPARATORS.test(e.id) ||
      SEPARATORS.test(e.eventTypeName) ||
      SEPARATORS.test(e.doc) ||
      SEPARATORS.test(raw) ||
      (e.raw !== null && raw === '')
    ) {
      return jsonRowsSource(events);
    }
    parts.push(
      e.id +
        FIELD_SEPARATOR +
        e.created +
        FIELD_SEPARATOR +
        e.eventTypeName +
        FIELD_SEPARATOR +
        e.doc +
        FIELD_SEPARATOR +
        raw,
    );
  }
  // NULLIF: an empty raw field is a null raw (a JSON text is never empty).
  return sql<BatchRow>`(
    SELECT f[1] AS id, f[2]::bigint AS created, f[3] AS event_type, f[4] AS doc,
      NULLIF(f[5], '') AS raw
    FROM (SELECT string_to_array(e, ${FIELD_SEPARATOR}) AS f
      FROM string_to_table(${parts.join(EVENT_SEPARATOR)}::text, ${EVENT_SEPARATOR}) AS e) fields
  )`;
}

function jsonRowsSource(events: readonly NewEvent[]): RawBuilder<BatchRow> {
  const payload = JSON.stringify(
    events.map((e) => ({
      id: e.id,
      created: e.created,
      event_type: e.eventTypeName,
      doc: e.doc,
      raw: e.raw,
    })),
  );
  return sql<BatchRow>`(SELECT * FROM json_to_recordset(${payload}::json)
    AS j(id text, created bigint, event_type text, doc text, raw text))`;
}

/** An event a batch added: what its counters need. */
type AddedEvent = { id: string; created: number; eventTypeName: string };

/**
 * Inserts the batch's events not stored yet (in the order given) and returns
 * them: by COPY when the batch is large and none of it is stored
 * (copyNewEvents), else by INSERT ... ON CONFLICT DO NOTHING, which skips the
 * stored ones and repeats within the batch.
 */
async function insertNewEvents(
  trx: Kysely<Database>,
  slot: ConnectionSlot,
  orgId: string,
  events: readonly NewEvent[],
  runId: string | null,
): Promise<AddedEvent[]> {
  if (events.length >= COPY_MIN_EVENTS && (await copyNewEvents(trx, slot, orgId, events, runId))) {
    return events.map(({ id, created, eventTypeName }) => ({ id, created, eventTypeName }));
  }
  const { rows } = await sql<{ id: string; created: number; event_type: string }>`
    INSERT INTO events (org_id, id, created, event_type, doc, raw, run_id)
    SELECT ${orgId}, t.id, t.created, t.event_type, t.doc, t.raw, CAST(${runId} AS text)
    FROM ${eventRowsSource(events)} AS t
    ON CONFLICT (org_id, id) DO NOTHING
    RETURNING id, created, event_type`.execute(trx);
  return rows.map((r) => ({ id: r.id, created: Number(r.created), eventTypeName: r.event_type }));
}

/**
 * Batches of at least this many events are copied (copyNewEvents); smaller
 * ones (a few events written at a time, a mirror's catch-up) often repeat
 * events already stored, and a COPY that meets one is wasted.
 */
const COPY_MIN_EVENTS = 1_000;

/**
 * Copies a batch's events (COPY, in their write order) if none of them is
 * stored yet, as in a seed or the first import of a file: true when copied.
 * COPY has no ON CONFLICT: an event already stored (or twice in the batch)
 * fails it with a unique violation, and the savepoint takes it back; the
 * caller then inserts the batch with INSERT ... ON CONFLICT DO NOTHING,
 * which skips those. A batch all stored already (a file imported again)
 * fails on its first row, so the attempt costs little; one that overlaps
 * stored events only in part may waste up to a whole COPY.
 */
async function copyNewEvents(
  trx: Kysely<Database>,
  slot: ConnectionSlot,
  orgId: string,
  events: readonly NewEvent[],
  runId: string | null,
): Promise<boolean> {
  await sql`SAVEPOINT copy_events`.execute(trx);
  try {
    await copyInTransaction(
      slot,
      'events',
      ['org_id', 'id', 'created', 'event_type', 'doc', 'raw', 'run_id'],
      encodeBinaryCopy(events.length, [
        { constant: orgId },
        { text: events.map((e) => e.id) },
        { int8: events.map((e) => e.created) },
        { text: events.map((e) => e.eventTypeName) },
        { text: events.map((e) => e.doc) },
        { text: events.map((e) => e.raw) },
        { constant: runId },
      ]),
    );
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await sql`ROLLBACK TO SAVEPOINT copy_events`.execute(trx);
    return false;
  }
  await sql`RELEASE SAVEPOINT copy_events`.execute(trx);
  return true;
}

/** COPY on the client of the transaction being run (withConnectionSlot), its failures as the store reports them. */
async function copyInTransaction(
  slot: ConnectionSlot,
  table: string,
  columns: readonly string[],
  rows: Buffer,
): Promise<void> {
  if (!slot.client) throw new Error('COPY outside a transaction run withConnectionSlot');
  try {
    await copyRows(slot.client, table, columns, rows);
  } catch (error) {
    throw translateStoreError(error);
  }
}

/** Batches a bulk load inserts at once (see bulkInsertLanes). */
const BULK_INSERT_LANES = 2;
