import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';
import { type BulkLoadHelper, startSqliteCheckpointer } from './bulk-load-helper';
import { isUnavailable, translateStoreError } from './errors';
import {
  countDeltas,
  type EventRow,
  KyselyStore,
  migrateToLatest,
  type RowSlices,
  type Snapshot,
} from './kysely-store';
import { reportingUnavailable } from './unavailable-dialect';
import type { RunEachKey } from './retention';
import type { Database } from './schema';
import { type BatchTerms, batchTerms, keptTerms, termWords } from './terms';
import type { DeleteOptions, EventSelection, InsertResult, NewEvent } from './types';

/** An event cursor's row in its SELECT's column order (kysely-store.ts: org_id, id, created, event_type, doc[, raw]). */
type EventRowValues = [string, string, number, string, string, (string | null)?];

/**
 * Rows per statement of a multi-row INSERT, largest first: full runs use the
 * first size, what remains the smaller ones (then single rows). Bulk loads
 * are bound by per-statement overhead: 400 rows a statement measured ~5%
 * less writer CPU than 100 and ~1.5x less than one row at a time; the
 * smaller sizes keep a small batch (a mirror's page) from falling back to
 * hundreds of one-row statements. 400 x 5 parameters stays far below
 * SQLite's 32,766 limit.
 */
const ROWS_PER_STATEMENT = [400, 40, 1] as const;

const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/** How long the WAL truncation after a deletion waits for readers (see truncateWal). */
const TRUNCATE_WAIT_MS = 500;

/**
 * One INSERT run as few statements as possible: rows are added one by one
 * and flushed by the largest statement, the remainder by the smaller ones.
 * With RETURNING, `start({ onRows })` receives each statement's returned rows.
 *
 * A row is `width` positional values, or a template naming the columns that
 * hold the same value in every row of a batch (`($org, ?, ?)`, whose `?`s
 * are the values `add` takes): those are
 * bound once per statement from `start({ constants })` instead of once per
 * row. Each bound value costs the driver a property read and a conversion
 * (a string is measured, converted to UTF-8 and copied twice): the events
 * rows' org and run ids were two of their seven values. Writer alone, 300,000
 * events of an export, alternating: 14.5-15.2 CPU-us an event before, 12.9-13.6
 * with the constants bound per statement.
 *
 * Every statement is `INSERT OR FAIL`. A multi-row statement that may abort
 * (any NOT NULL or key constraint does, by default) makes SQLite copy each
 * page it first touches into a statement journal, so it can undo that
 * statement alone: 8.6% of the writer's time in a profile, for an undo we
 * never need. Every MultiRow statement runs inside a batch's transaction,
 * and any error rolls the whole transaction back (insertBatch), so FAIL's
 * "keep the statement's earlier rows" is never seen. (An upsert's DO UPDATE
 * still aborts by default, so the counters' statements keep their journal:
 * 1.5% of the writer's time left.)
 *
 * The values are passed as arguments, not as one array: the driver reads an
 * array element by element through V8's API (`Object::Get`, 9.8% of the
 * writer's time), arguments directly.
 */
class MultiRow {
  private readonly statements: BetterSqlite3.Statement[];
  private readonly args: unknown[];
  /** Values per row `add` takes (2 to 5): the row's `?`s. */
  private readonly width: number;
  private filled = 0;
  private changes = 0;
  private onRows: ((rows: unknown[][]) => void) | undefined;
  private constants: Record<string, unknown> | undefined;

  /** `into`: the table and its columns, as after `INSERT OR FAIL INTO`. */
  constructor(
    sqlite: BetterSqlite3.Database,
    into: string,
    row: 4 | 5 | `(${string})`,
    tail: string,
    returning = false,
  ) {
    const template = typeof row === 'number' ? `(${Array<string>(row).fill('?').join(', ')})` : row;
    this.width = template.split('?').length - 1;
    this.statements = ROWS_PER_STATEMENT.map((rows) => {
      const statement = sqlite.prepare(
        `INSERT OR FAIL INTO ${into} VALUES ${Array<string>(rows).fill(template).join(', ')} ${tail}`,
      );
      return returning ? statement.raw(true) : statement;
    });
    this.args = new Array<unknown>(ROWS_PER_STATEMENT[0] * this.width);
  }

  start(
    options: {
      onRows?: (rows: unknown[][]) => void;
      constants?: Record<string, unknown>;
    } = {},
  ): this {
    this.filled = 0;
    this.changes = 0;
    this.onRows = options.onRows;
    this.constants = options.constants;
    return this;
  }

  /** One row of `width` (2 to 5) values; positional, so no array is made per row. */
  add(a: unknown, b: unknown, c?: unknown, d?: unknown, e?: unknown): void {
    const args = this.args;
    const width = this.width;
    const offset = this.filled * width;
    args[offset] = a;
    args[offset + 1] = b;
    if (width > 2) args[offset + 2] = c;
    if (width > 3) args[offset + 3] = d;
    if (width > 4) args[offset + 4] = e;
    if (++this.filled === ROWS_PER_STATEMENT[0]) {
      this.run(0, this.args);
      this.filled = 0;
    }
  }

  /** Flushes the remainder; the rows the INSERT changed since start(). */
  end(): number {
    let from = 0;
    for (let size = 1; size < ROWS_PER_STATEMENT.length; size++) {
      const rows = ROWS_PER_STATEMENT[size]!;
      for (; this.filled - from >= rows; from += rows) {
        this.run(size, this.args.slice(from * this.width, (from + rows) * this.width));
      }
    }
    this.filled = 0;
    return this.changes;
  }

  private run(size: number, args: unknown[]): void {
    const statement = this.statements[size]!;
    const constants = this.constants;
    if (this.onRows) {
      const rows = constants ? statement.all(...args, constants) : statement.all(...args);
      this.onRows(rows as unknown[][]);
    } else {
      this.changes += (
        constants ? statement.run(...args, constants) : statement.run(...args)
      ).changes;
    }
  }
}

/**
 * Event type names to their ids (event_type_ids), remembered across
 * batches: ids are never deleted or reused, so a remembered id stays right.
 * Ids created inside a transaction are remembered only once it commits.
 */
class TypeIds {
  private readonly known = new Map<string, number>();
  private pending = new Map<string, number>();
  private readonly add: BetterSqlite3.Statement;
  private readonly get: BetterSqlite3.Statement;

  constructor(sqlite: BetterSqlite3.Database) {
    this.add = sqlite.prepare(
      'INSERT INTO event_type_ids (name) VALUES (?) ON CONFLICT DO NOTHING',
    );
    this.get = sqlite.prepare('SELECT id FROM event_type_ids WHERE name = ?').pluck();
  }

  /** Each event's type id (inside the batch's transaction). */
  of(events: readonly NewEvent[]): Float64Array {
    const ids = new Float64Array(events.length);
    for (let e = 0; e < events.length; e++) {
      const name = events[e]!.eventTypeName;
      let id = this.known.get(name) ?? this.pending.get(name);
      if (id === undefined) {
        this.add.run(name);
        id = this.get.get(name) as number;
        this.pending.set(name, id);
      }
      ids[e] = id;
    }
    return ids;
  }

  commit(): void {
    for (const [name, id] of this.pending) this.known.set(name, id);
    this.pending = new Map();
  }

  rollback(): void {
    this.pending = new Map();
  }
}

/** Prepared statements kept per SQL text (queries are parameterized, so the set is small). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The connection's prepare(), reusing statements by SQL text (the least
 * recently used one evicted first). Kysely's SQLite driver prepares every
 * query anew, which costs more than running our indexed reads; a deletion's
 * statements by key (runEachKey) come from the same cache. Sharing a
 * statement is safe: better-sqlite3 is synchronous, and Kysely serializes
 * access to its one connection.
 */
function cachedPrepare(sqlite: BetterSqlite3.Database): (sql: string) => BetterSqlite3.Statement {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement) {
      // Refresh its place so the least recently used one is evicted first.
      cache.delete(sql);
    } else {
      statement = sqlite.prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, statement);
    return statement;
  };
}

/**
 * Migrates under the file's write lock. Kysely takes no migration lock on
 * SQLite, so two processes opening a new file at once both ran the first
 * migration and one failed ("table orgs already exists"). BEGIN IMMEDIATE
 * makes the second wait (busy_timeout), then find everything applied; the
 * migrations run inside that transaction on the same connection, and SQLite's
 * DDL is transactional, so a failure leaves nothing half-applied.
 */
async function migrateSerialized(
  sqlite: BetterSqlite3.Database,
  db: Kysely<Database>,
): Promise<string[]> {
  if (sqlite.memory) return migrateToLatest(db);
  try {
    sqlite.exec('BEGIN IMMEDIATE');
  } catch (error) {
    throw translateStoreError(error);
  }
  try {
    const applied = await migrateToLatest(db);
    sqlite.exec('COMMIT');
    return applied;
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    throw error;
  }
}

/**
 * Runs `open` again while SQLite answers SQLITE_BUSY without waiting out
 * busy_timeout, as it may when connections open a new file at the same
 * moment (one switching it to WAL or recovering its WAL index while another
 * reads the header): seen once in 24 racing opens on a loaded CI machine.
 * Bounded by the same timeout.
 */
async function retryWhileBusy<T>(open: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 250)) {
    try {
      return await open();
    } catch (error) {
      if (!isUnavailable(error) || Date.now() + wait > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** Whole-set reads (see SqliteStore.readWholeSet) on connections of their own at once. */
const WHOLE_SET_READS = 2;

/**
 * How long a whole-set read steps its query before giving the thread back:
 * another request's statements then wait this long at most for it.
 */
const SLICE_MS = 8;

/** Rows stepped between two looks at the clock. */
const ROWS_PER_CLOCK = 64;

/**
 * `query`'s rows on `connection`, as arrays, a slice of about SLICE_MS at a
 * time; the thread goes back to the event loop (setImmediate: pending I/O
 * first) before each next slice. The statement is ended however the reader
 * stops (done, thrown, abandoned).
 */
async function* rowSlices(
  connection: BetterSqlite3.Database,
  query: CompiledQuery,
): AsyncGenerator<unknown[][]> {
  const rows = connection
    .prepare(query.sql)
    .raw(true)
    .iterate(...(query.parameters as unknown[])) as IterableIterator<unknown[]>;
  try {
    for (let done = false; !done; ) {
      const slice: unknown[][] = [];
      const until = performance.now() + SLICE_MS;
      do {
        for (let i = 0; i < ROWS_PER_CLOCK; i++) {
          const step = rows.next();
          if (step.done) {
            done = true;
            break;
          }
          slice.push(step.value);
        }
      } while (!done && performance.now() < until);
      if (slice.length > 0) yield slice;
      if (!done) await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    rows.return?.();
  }
}

/** The backup thread's code (SqliteStore.backupInto): plain JavaScript, no loader. */
const BACKUP_SOURCE = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.source, { fileMustExist: true, readonly: true });
try {
  db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
  db.prepare('VACUUM INTO ?').run(workerData.target);
} catch (error) {
  // The driver's SqliteError is no Error to the clone that carries it out of
  // this thread: it arrived as {code} alone, its message lost (a full disk
  // was reported as "Error: [object Object]"). An Error crosses whole.
  throw Object.assign(new Error(error.message), { code: error.code });
} finally {
  db.close();
}
`;

/** The embedded default: one file, WAL, zero set-up. */
export class SqliteStore extends KyselyStore {
  readonly dialect = 'sqlite' as const;
  // A field, not a getter: the abstract declaration in KyselyStore becomes a
  // field under define semantics (Playwright's loader), which a getter here
  // could not be assigned over.
  readonly databaseFile: string | null;
  /** Whole-set reads under way, and those waiting their turn (readWholeSet). */
  private wholeSetReads = 0;
  private readonly wholeSetQueue: (() => void)[] = [];
  private readonly insertRows: MultiRow;
  private readonly maxRowid: BetterSqlite3.Statement;
  private readonly rowsAfter: BetterSqlite3.Statement;
  private readonly insertPostings: MultiRow;
  private readonly bumpCounts: MultiRow;
  private readonly bumpTermDays: MultiRow;
  private readonly insertWords: MultiRow;
  private readonly bumpTerms: MultiRow;
  private readonly typeIds: TypeIds;

  private constructor(
    private readonly sqlite: BetterSqlite3.Database,
    db: Kysely<Database>,
    /** The statements Kysely runs too, cached by text (cachedPrepare). */
    private readonly statementFor: (sql: string) => BetterSqlite3.Statement,
  ) {
    super(db);
    this.databaseFile = sqlite.memory ? null : path.resolve(sqlite.name);
    this.insertRows = new MultiRow(
      sqlite,
      'events (org_id, id, created, event_type, doc, raw, run_id)',
      // A document or raw bound as bytes (NewEvent.docBytes) is a BLOB: the
      // cast stores it as the TEXT it is, byte for byte (UTF-8, the
      // database's encoding). A string passes unchanged.
      '($org, ?, ?, ?, CAST(? AS TEXT), CAST(? AS TEXT), $run)',
      'ON CONFLICT (org_id, id) DO NOTHING',
    );
    this.maxRowid = sqlite.prepare('SELECT max(rowid) AS n FROM events').pluck();
    this.rowsAfter = sqlite.prepare('SELECT id FROM events WHERE rowid > ?').pluck();
    this.insertPostings = new MultiRow(
      sqlite,
      'term_postings (term_id, created, id_hi, id_lo, type_id)',
      5,
      '',
    );
    // Counters move by multi-row upserts too: a batch of 10,000 events
    // bumps thousands of (term, day, type) counters.
    this.bumpTermDays = new MultiRow(
      sqlite,
      'term_days (term_id, bucket, type_id, n)',
      4,
      'ON CONFLICT (term_id, bucket, type_id) DO UPDATE SET n = n + excluded.n',
    );
    this.insertWords = new MultiRow(
      sqlite,
      'term_words (org_id, word, term_id)',
      '($org, ?, ?)',
      'ON CONFLICT DO NOTHING',
    );
    // The dictionary: each upsert bumps its terms' counts and returns their
    // ids, new or old.
    this.bumpTerms = new MultiRow(
      sqlite,
      'term_dict (org_id, term, n)',
      '($org, ?, ?)',
      'ON CONFLICT (org_id, term) DO UPDATE SET n = n + excluded.n RETURNING id, term, n',
      true,
    );
    this.typeIds = new TypeIds(sqlite);
    this.bumpCounts = new MultiRow(
      sqlite,
      'event_counts (org_id, event_type, bucket, n)',
      4,
      'ON CONFLICT (org_id, event_type, bucket) DO UPDATE SET n = n + excluded.n',
    );
  }

  /**
   * `busyTimeoutMs`: how long a write waits for another connection's write
   * to finish before failing as StoreUnavailableError. The default outlasts
   * the largest import batch (50,000 events) by far.
   */
  static async open(
    filename: string,
    { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS }: { busyTimeoutMs?: number } = {},
  ): Promise<SqliteStore> {
    if (filename !== ':memory:') {
      fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
      // A new database is its owner's alone (SQLite gives its -wal and -shm
      // files the same mode): it holds the key hashes, and without
      // ORG_EVENTS_SECRET the server's secret too. It was created 0644,
      // readable by every local user. An existing file keeps its mode, and
      // is not opened here: closing a descriptor of it would drop every
      // POSIX lock this process holds on it, those of a store already open
      // on it included (npm start opens two, the API's and the dashboard's),
      // and another process would then take the file for unused and delete
      // the WAL under them. 'wx' creates the file or fails, opening nothing.
      try {
        fs.closeSync(fs.openSync(filename, 'wx', 0o600));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    const sqlite = new BetterSqlite3(filename);
    try {
      return await retryWhileBusy(() => SqliteStore.prepare(sqlite, busyTimeoutMs), busyTimeoutMs);
    } catch (error) {
      sqlite.close();
      throw error;
    }
  }

  /** Settings, migrations and statements of a new connection (repeatable). */
  private static async prepare(
    sqlite: BetterSqlite3.Database,
    busyTimeoutMs: number,
  ): Promise<SqliteStore> {
    // First: every step below, switching to WAL included, may meet another
    // connection opening the same file at the same moment.
    sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // 16 KiB pages for new files (a no-op on existing ones): event rows are
    // ~1 KB, and larger pages cut b-tree splits on bulk loads by a fifth.
    sqlite.pragma('page_size = 16384');
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('cache_size = -65536');
    sqlite.pragma('temp_store = MEMORY');
    // Deleted content is overwritten with zeros, not left in free space
    // where a copy of the file would still show it (see deleteEvents).
    // Undoing a 500,000-event import took 22.5 s without, 22.4 s with.
    sqlite.pragma('secure_delete = ON');
    // Checkpoint every 16,384 pages (256 MB of WAL with 16 KiB pages)
    // instead of every 1,000: each checkpoint costs two fsyncs, which
    // dominated bulk inserts (commits themselves do not fsync in WAL mode
    // with synchronous = NORMAL). 4,096 and 65,536 pages measured no better
    // (a 1M-event import, alternating runs).
    sqlite.pragma('wal_autocheckpoint = 16384');
    const prepare = cachedPrepare(sqlite);
    const database: SqliteDatabase = { close: () => sqlite.close(), prepare };
    const db = new Kysely<Database>({
      dialect: reportingUnavailable(new SqliteDialect({ database })),
    });
    // The schema must exist before the insert statements are prepared.
    const applied = await migrateSerialized(sqlite, db);
    const store = new SqliteStore(sqlite, db, prepare);
    store.appliedAtOpen = applied;
    return store;
  }

  /**
   * One synchronous transaction per batch: the events and their counters are
   * committed together or not at all, so a crash never leaves half a batch.
   * Rows are written many per statement (MultiRow); when some already
   * existed, the rows this transaction added are read back by rowid (new rows
   * always get rowids above the previous maximum) so the counters move only
   * for them.
   */
  protected insertBatch(
    orgId: string,
    events: readonly NewEvent[],
    runId: string | null,
    prepared: BatchTerms | undefined,
  ): Promise<InsertResult> {
    const run = this.sqlite.transaction((batch: readonly NewEvent[]) => {
      const before = (this.maxRowid.get() as number | null) ?? 0;
      const rows = this.insertRows.start({ constants: { org: orgId, run: runId } });
      for (const event of batch) {
        const doc = event.docBytes;
        if (doc === undefined) {
          rows.add(event.id, event.created, event.eventTypeName, event.doc, event.raw);
        } else {
          rows.add(event.id, event.created, event.eventTypeName, doc, event.rawBytes);
        }
      }
      const inserted = rows.end();
      let added = batch;
      let terms = prepared;
      if (inserted !== batch.length) {
        // Each new id once: a batch may repeat an id, and only its first copy was inserted.
        const ids = new Set(this.rowsAfter.all(before) as string[]);
        const kept = batch.map((event) => ids.delete(event.id));
        added = batch.filter((_, e) => kept[e]);
        terms = prepared && keptTerms(batch, prepared, (e) => kept[e]!);
      }
      const counts = this.bumpCounts.start();
      for (const delta of countDeltas(added).values()) {
        counts.add(orgId, delta.eventType, delta.bucket, delta.n);
      }
      counts.end();
      if (terms) this.writeTerms(orgId, batch, terms);
      else this.writeTerms(orgId, added, batchTerms(added));
      return inserted;
    });
    // Type ids learnt by an earlier, failed transaction went with it.
    this.typeIds.rollback();
    // IMMEDIATE: take the write lock before the first read. A deferred
    // transaction reads max(rowid) first, and a reader cannot be upgraded to
    // a writer once another connection has written: SQLite then fails at
    // once with "database is locked" instead of waiting out busy_timeout.
    try {
      const inserted = run.immediate(events);
      this.typeIds.commit();
      return Promise.resolve({ inserted, skipped: events.length - inserted });
    } catch (error) {
      const reason = translateStoreError(error);
      return Promise.reject(reason instanceof Error ? reason : new Error(String(reason)));
    }
  }

  /** The postings, term counters and dictionary of a batch (inside its transaction). */
  private writeTerms(orgId: string, events: readonly NewEvent[], batch: BatchTerms): void {
    const { terms, postings, dayCounts, values, keys } = batch;
    if (postings.length === 0) return;
    // Term ids: the dictionary's upsert returns them (RETURNING order is
    // unspecified, so each row names its term).
    const index = new Map<string, number>();
    const added = new Float64Array(terms.length);
    for (let i = 0; i < values.length; i += 2) {
      index.set(terms[values[i]!]!, values[i]!);
      added[values[i]!] = values[i + 1]!;
    }
    const ids = new Float64Array(terms.length);
    // A term whose count is this batch's alone is new: its words go to term_words.
    const words = this.insertWords.start({ constants: { org: orgId } });
    const take = (rows: [number, string, number][]) => {
      for (const [id, term, n] of rows) {
        const t = index.get(term)!;
        ids[t] = id;
        if (n === added[t]) for (const word of termWords(term)) words.add(word, id);
      }
    };
    const dict = this.bumpTerms.start({
      onRows: (rows) => take(rows as [number, string, number][]),
      constants: { org: orgId },
    });
    for (let i = 0; i < values.length; i += 2) dict.add(terms[values[i]!]!, values[i + 1]!);
    dict.end();
    words.end();

    const typeIds = this.typeIds.of(events);
    const rows = this.insertPostings.start();
    for (let p = 0; p < postings.length; p += 2) {
      const e = postings[p]!;
      rows.add(ids[postings[p + 1]!], events[e]!.created, keys[e * 2], keys[e * 2 + 1], typeIds[e]);
    }
    rows.end();
    const days = this.bumpTermDays.start();
    for (let d = 0; d < dayCounts.length; d += 4) {
      days.add(
        ids[dayCounts[d]!],
        dayCounts[d + 1]!,
        typeIds[dayCounts[d + 2]!],
        dayCounts[d + 3]!,
      );
    }
    days.end();
  }

  /**
   * A read-only connection of its own, in a deferred transaction whose first
   * read pins one WAL snapshot: an export never holds up this store's
   * connection, and writers go on. Its rows come from one statement's
   * iterator, pulled a batch at a time. An in-memory database has no other
   * connection: there the snapshot is this connection's, which nothing else
   * may use until the cursor is closed.
   */
  protected async openSnapshot(): Promise<Snapshot> {
    const own = !this.sqlite.memory;
    const { connection, db } = own ? this.openReader() : { connection: this.sqlite, db: this.db };
    connection.exec('BEGIN');
    let rows: IterableIterator<unknown> | undefined;
    let ended = false;
    return Promise.resolve({
      db,
      streamRows: (query, batchSize) => {
        // Rows as arrays: building each row object in JavaScript is cheaper
        // than better-sqlite3 building it through the native API.
        rows = connection
          .prepare(query.sql)
          .raw(true)
          .iterate(...(query.parameters as unknown[]));
        const iterator = rows as IterableIterator<EventRowValues>;
        return Promise.resolve(() => {
          const batch: EventRow[] = [];
          while (batch.length < batchSize) {
            const step = iterator.next();
            if (step.done) break;
            const [org_id, id, created, event_type, doc, raw] = step.value;
            batch.push({ org_id, id, created, event_type, doc, raw });
          }
          return Promise.resolve(batch);
        });
      },
      end: async () => {
        if (ended) return;
        ended = true;
        rows?.return?.();
        if (connection.inTransaction) connection.exec('COMMIT');
        if (own) await db.destroy();
      },
    });
  }

  /** A read-only connection of its own to this store's file (not in-memory), and Kysely on it. */
  private openReader(): { connection: BetterSqlite3.Database; db: Kysely<Database> } {
    const connection = new BetterSqlite3(this.sqlite.name, { readonly: true, fileMustExist: true });
    connection.pragma(`busy_timeout = ${DEFAULT_BUSY_TIMEOUT_MS}`);
    const db = new Kysely<Database>({
      dialect: reportingUnavailable(new SqliteDialect({ database: connection })),
    });
    return { connection, db };
  }

  /**
   * A whole-set read (facets under field filters read every matching
   * document: seconds over millions of events) on a read-only connection of
   * its own, in a deferred transaction whose first read pins one WAL
   * snapshot, its long queries' rows taken SLICE_MS at a time with the
   * thread given back between slices. better-sqlite3 runs on this thread:
   * on this store's connection every other request waited for the whole
   * read (a page of events 2 s instead of 10 ms). At most WHOLE_SET_READS
   * run at once; more wait their turn, so a burst of them holds a bounded
   * number of connections and snapshots (each pins the WAL's frames against
   * checkpoints). An in-memory database has no other connection: there the
   * read holds this one, as before.
   */
  protected override async readWholeSet<T>(
    read: (db: Kysely<Database>, rows: RowSlices) => Promise<T>,
  ): Promise<T> {
    if (this.sqlite.memory) return super.readWholeSet(read);
    if (this.wholeSetReads < WHOLE_SET_READS) this.wholeSetReads++;
    else await new Promise<void>((resolve) => this.wholeSetQueue.push(resolve));
    try {
      const { connection, db } = this.openReader();
      try {
        connection.exec('BEGIN');
        return await read(db, (query) => rowSlices(connection, query));
      } finally {
        // Closing ends the transaction. Kysely closes the connection only
        // if it ever ran a query on it: closed here whatever ran.
        await db.destroy();
        if (connection.open) connection.close();
      }
    } finally {
      // The slot passes to the next waiting read, if any.
      const next = this.wholeSetQueue.shift();
      if (next) next();
      else this.wholeSetReads--;
    }
  }

  /**
   * A deletion's statements by key, on this connection: inside the
   * deletion's Kysely transaction, which runs on it too.
   */
  protected override runEachKey(): RunEachKey {
    return (text, parameters) => {
      const statement = this.statementFor(text);
      const changes = new Array<number>(parameters.length);
      for (let k = 0; k < parameters.length; k++) {
        changes[k] = statement.run(...parameters[k]!).changes;
      }
      return changes;
    };
  }

  /**
   * Deleted events (prune, imports undo) leave none of their text in the
   * file: secure_delete zeroes it in the pages that held it, and a TRUNCATE
   * checkpoint empties the WAL, whose older frames still hold those pages as
   * they were.
   */
  override async deleteEvents(orgId: string, selection: EventSelection, options?: DeleteOptions) {
    const deleted = await super.deleteEvents(orgId, selection, options);
    if (deleted > 0 && !this.sqlite.memory) this.truncateWal();
    return deleted;
  }

  /**
   * Best effort, and brief: a TRUNCATE checkpoint holds the write lock while
   * it waits for readers of older snapshots (the server's, an export's), so
   * other writers wait behind it. It waits TRUNCATE_WAIT_MS at most, not the
   * connection's busy_timeout (10 s, as long as a waiting writer's own), then
   * gives up, leaving the WAL's old frames to be overwritten by later writes.
   */
  private truncateWal(): void {
    const busyTimeout = this.sqlite.pragma('busy_timeout', { simple: true }) as number;
    this.sqlite.pragma(`busy_timeout = ${TRUNCATE_WAIT_MS}`);
    try {
      this.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // Busy: see above.
    } finally {
      this.sqlite.pragma(`busy_timeout = ${busyTimeout}`);
    }
  }

  async refreshStatistics(): Promise<void> {
    this.sqlite.pragma('optimize');
    return Promise.resolve();
  }

  /**
   * A file's WAL checkpoints run on a thread of their own during a bulk load
   * (an in-memory database has no WAL and no file another connection could open).
   */
  override startBulkLoadHelper(): BulkLoadHelper | undefined {
    return this.sqlite.memory ? undefined : startSqliteCheckpointer(path.resolve(this.sqlite.name));
  }

  /**
   * A consistent copy of the whole database in `file`, which must be a new,
   * empty file (its mode is the copy's: create it 0600, it holds the key
   * hashes). VACUUM INTO reads one snapshot while other processes go on
   * reading and writing, and leaves free pages (deleted content) out. The
   * online backup API was not used: it starts over whenever another process
   * writes, which a mirror following its source does every few seconds. On
   * a thread of its own: the copy is one long synchronous call, and the
   * caller's thread stays free to handle a signal meanwhile.
   */
  async backupInto(file: string): Promise<void> {
    if (this.sqlite.memory) throw new Error('An in-memory database has no file to copy');
    const worker = new Worker(BACKUP_SOURCE, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        source: path.resolve(this.sqlite.name),
        target: file,
        busyTimeoutMs: this.sqlite.pragma('busy_timeout', { simple: true }) as number,
      },
    });
    const failure = await new Promise<unknown>((resolve) => {
      worker.once('error', resolve);
      worker.once('exit', () => resolve(undefined));
    });
    if (failure !== undefined) throw translateStoreError(failure);
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.sqlite.open) this.sqlite.close();
  }
}
