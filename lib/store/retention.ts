import { type Kysely, type RawBuilder, SqliteAdapter, sql } from 'kysely';
import { DAY_MS } from '@/lib/domain/dates';
import { countDeltas } from './kysely-store';
import { pgArray } from './pg-array';
import type { Database } from './schema';
import { documentTerms, eventKey, termWords } from './terms';
import type { DeleteOptions, EventSelection } from './types';
import { compareText, writeTransaction } from './write-transaction';

/**
 * Deleting events with exact counters: the one primitive behind retention
 * (`events prune`) and undoing an import (`imports undo`).
 *
 * Each batch is one transaction that deletes its events (RETURNING what it
 * deleted), then exactly the postings those events had, then decrements the
 * hourly/daily event counters, the per-day term counters and the term
 * dictionary by what was really deleted, and drops the counter rows that reach
 * zero: afterwards the store holds what it would hold had those events never
 * been inserted. Batches keep each transaction (and SQLite's write lock)
 * short, so the API and imports go on while a large prune runs.
 *
 * Rows are picked by whole keys, in the form each engine runs as one index
 * search per key (see deleteByKeys); the rest is written once for both
 * engines, with `DELETE … RETURNING` (SQLite 3.35+).
 */

/**
 * SQLite: runs one statement (an UPDATE or DELETE of one row by its whole
 * key), prepared once, for each parameter list in turn, on the store's own
 * connection and so inside the caller's transaction (a SQLite store has one
 * connection), and returns each run's count of changed rows. The SQLite
 * store provides it; PostgreSQL's deletion needs none.
 */
export type RunEachKey = (text: string, parameters: readonly (readonly unknown[])[]) => number[];

/** A deletion's transaction, and on SQLite the store's way to run a statement per key. */
type Target = { trx: Kysely<Database>; eachKey: RunEachKey | undefined };

/**
 * Events per transaction, by engine.
 *
 * - SQLite: 5,000 undid 250,000 events at ~18,700/s against ~14,600 with
 *   2,000 (fewer commits); a batch holds the write lock for ~0.3 s, well
 *   within a waiting writer's busy timeout, and readers never wait for it.
 * - PostgreSQL: 20,000. Each batch rewrites its counter rows once, and each
 *   rewrite leaves a row version the next batches step over: deleting
 *   200,000 events took 116 µs an event in batches of 5,000, 96 with 10,000,
 *   88 with 20,000, 85 with 40,000. A batch holds its counter rows' locks for
 *   ~2 s, which an import bumping the same counters waits out; readers never
 *   wait.
 */
const DELETE_BATCH = { sqlite: 5_000, postgres: 20_000 } as const;

/** Terms looked up per statement: one parameter each. */
const TERMS_PER_LOOKUP = 300;

/** A key's columns with their SQL types (PostgreSQL's arrays are typed). */
type KeyColumns = readonly (readonly [name: string, type: 'text' | 'bigint'])[];
type Key = readonly (string | number)[];

const POSTING_KEY: KeyColumns = [
  ['term_id', 'bigint'],
  ['created', 'bigint'],
  ['id_hi', 'bigint'],
  ['id_lo', 'bigint'],
];
const EVENT_COUNT_KEY: KeyColumns = [
  ['org_id', 'text'],
  ['event_type', 'text'],
  ['bucket', 'bigint'],
];
const TERM_DAY_KEY: KeyColumns = [
  ['term_id', 'bigint'],
  ['bucket', 'bigint'],
  ['type_id', 'bigint'],
];
const TERM_KEY: KeyColumns = [['id', 'bigint']];
const WORD_KEY: KeyColumns = [
  ['org_id', 'text'],
  ['word', 'text'],
  ['term_id', 'bigint'],
];

function isSqlite(trx: Kysely<Database>): boolean {
  return trx.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * Deletes the rows of `table` whose key (`columns`) is one of `keys` (each a
 * key's values, maybe followed by more).
 *
 * Each engine gets the form it searches key by key. PostgreSQL: the keys
 * as one array per column, `(a, b) IN (SELECT * FROM unnest(…))`, one short
 * statement whatever their number. SQLite, which has no arrays: one
 * prepared statement run once per key (RunEachKey), without RETURNING, whose
 * temporary table cost ~3.5 µs a row. Its earlier form, an OR of 300
 * whole-key equalities a statement with RETURNING, took ~7 µs a posting, most
 * of an undo's time; before that `(a, b) IN (VALUES …)`, planned as one list
 * per column whose cross product was probed, took 10.6 minutes to undo a
 * 1M-event import.
 */
async function deleteByKeys(
  { trx, eachKey }: Target,
  table: string,
  columns: KeyColumns,
  keys: readonly Key[],
): Promise<void> {
  if (keys.length === 0) return;
  if (!isSqlite(trx)) {
    await sql`DELETE FROM ${sql.table(table)} WHERE ${inArrays(columns, keys)}`.execute(trx);
    return;
  }
  sqliteEachKey(eachKey)(
    `DELETE FROM ${table} WHERE ${wholeKey(columns)}`,
    keys.map((key) => key.slice(0, columns.length)),
  );
}

/**
 * Deletes postings by key (`keys`: term id, created, id halves; `keyTypes`:
 * each key's event type name) and returns the (term id, created, type id) of
 * those that were there, for the counters. PostgreSQL returns them from the
 * DELETE. SQLite runs a statement per key (see deleteByKeys), whose count of
 * changes says whether the posting was there, and takes its type id from its
 * event's type, as the writers stored it.
 */
async function deletePostings(
  { trx, eachKey }: Target,
  keys: readonly (readonly [number, number, number, number])[],
  keyTypes: readonly string[],
): Promise<(readonly [termId: number, created: number, typeId: number])[]> {
  if (keys.length === 0) return [];
  if (!isSqlite(trx)) {
    const { rows } = await sql<{
      term_id: number | string;
      created: number | string;
      type_id: number | string;
    }>`DELETE FROM term_postings WHERE ${inArrays(POSTING_KEY, keys)}
      RETURNING term_id, created, type_id`.execute(trx);
    return rows.map((row) => [Number(row.term_id), Number(row.created), Number(row.type_id)]);
  }
  const typeIds = new Map<string, number>();
  const names = [...new Set(keyTypes)];
  for (let i = 0; i < names.length; i += TERMS_PER_LOOKUP) {
    const rows = await trx
      .selectFrom('event_type_ids')
      .select(['id', 'name'])
      .where('name', 'in', names.slice(i, i + TERMS_PER_LOOKUP))
      .execute();
    for (const row of rows) typeIds.set(row.name, Number(row.id));
  }
  const changes = sqliteEachKey(eachKey)(
    `DELETE FROM term_postings WHERE ${wholeKey(POSTING_KEY)}`,
    keys,
  );
  const gone: (readonly [number, number, number])[] = [];
  changes.forEach((n, k) => {
    // The writer made the type's id with the posting, so it is there.
    if (n > 0) gone.push([keys[k]![0], keys[k]![1], typeIds.get(keyTypes[k]!)!]);
  });
  return gone;
}

/**
 * Subtracts from a counter table's `n` each key's amount (`deltas`: the key's
 * values, then the amount, in the writers' lock order: write-transaction.ts)
 * and deletes the rows left at zero, returning their keys.
 * PostgreSQL: the rows are locked in the order given, then updated by
 * `UPDATE … FROM unnest(…)`, which alone would lock them in its join's order.
 * (Not one statement, a CTE locking the rows and an UPDATE joining them by
 * ctid: ~7% faster alone, but beside an import some decrements were lost,
 * the ctid of a row locked after waiting for another writer being stale;
 * the contract's concurrent undo test caught it.)
 * SQLite (one writer at a time): an UPDATE, then a DELETE of the row if left
 * at zero, each run per key as in deleteByKeys. Not `UPDATE … FROM (VALUES
 * …)` there: given 300 rows, SQLite's planner scans the whole table against
 * an automatic index of the values, once per statement.
 */
async function subtractCounts(
  target: Target,
  table: 'event_counts' | 'term_days' | 'term_dict',
  columns: KeyColumns,
  deltas: readonly Key[],
): Promise<Key[]> {
  if (deltas.length === 0) return [];
  const { trx, eachKey } = target;
  if (!isSqlite(trx)) {
    const names = columns.map(([name]) => sql.ref(name));
    const arrays = sql.join([
      ...columns.map(([, type], i) => typedArray(type, deltas, i)),
      sql`${deltas.map((delta) => delta[columns.length])}::bigint[]`,
    ]);
    const sameKey = sql.join(
      columns.map(([name]) => sql`${sql.ref(`${table}.${name}`)} = ${sql.ref(`d.${name}`)}`),
      sql` AND `,
    );
    await sql`SELECT 1 FROM ${sql.table(table)}
      JOIN unnest(${arrays}) WITH ORDINALITY AS d(${sql.join(names)}, amount, position)
        ON ${sameKey}
      ORDER BY d.position FOR UPDATE OF ${sql.table(table)}`.execute(trx);
    const { rows } = await sql<Record<string, number>>`UPDATE ${sql.table(table)}
      SET n = ${sql.ref(`${table}.n`)} - d.amount
      FROM unnest(${arrays}) AS d(${sql.join(names)}, amount)
      WHERE ${sameKey}
      RETURNING ${sql.join(columns.map(([name]) => sql.ref(`${table}.${name}`)))}, ${sql.ref(`${table}.n`)}`.execute(
      trx,
    );
    // The rows left at zero, deleted by key alone: this transaction holds
    // their locks, so they are still at zero. Not `n <= 0 AND key IN (…)`:
    // PostgreSQL's statistics say no counter is ever zero, so it scanned the
    // whole table for `n <= 0` and compared each row found with every key
    // (~12 s a statement; undoing 40,000 events took 100 s).
    const emptied = rows
      .filter((row) => Number(row.n) <= 0)
      .map((row) => columns.map(([name]) => row[name]!));
    await deleteByKeys(target, table, columns, emptied);
    return emptied;
  }
  const run = sqliteEachKey(eachKey);
  const keys = deltas.map((delta) => delta.slice(0, columns.length));
  run(
    `UPDATE ${table} SET n = n - ? WHERE ${wholeKey(columns)}`,
    deltas.map((delta, d) => [delta[columns.length], ...keys[d]!]),
  );
  const changes = run(`DELETE FROM ${table} WHERE n <= 0 AND ${wholeKey(columns)}`, keys);
  return keys.filter((_, k) => changes[k]! > 0);
}

/** PostgreSQL: `(a, b) IN (SELECT * FROM unnest(a's values, b's values))`. */
function inArrays(columns: KeyColumns, keys: readonly Key[]) {
  return sql`(${sql.join(columns.map(([name]) => sql.ref(name)))}) IN (SELECT * FROM unnest(${sql.join(
    columns.map(([, type], i) => typedArray(type, keys, i)),
  )}))`;
}

/**
 * Column `i` of `keys` as one PostgreSQL array of its type. Integers as
 * array text (pgArray): pg's own serialization of a batch's ~100,000 posting
 * keys was the largest part of an undo's client time. Texts (counter and word
 * keys, far fewer) keep pg's serialization, which quotes them.
 */
function typedArray(type: 'text' | 'bigint', keys: readonly Key[], i: number) {
  return type === 'bigint'
    ? sql`${pgArray(keys.map((key) => key[i]!))}::bigint[]`
    : sql`${keys.map((key) => key[i])}::text[]`;
}

/** Event ids as parameters of an `id IN (…)` list. */
function idList(ids: readonly string[]): RawBuilder<unknown> {
  return sql`${sql.join(ids.map((id) => sql`${id}`))}`;
}

/** SQLite: `a = ? AND b = ? …`, one row by its whole key (the table's primary key). */
function wholeKey(columns: KeyColumns): string {
  return columns.map(([name]) => `${name} = ?`).join(' AND ');
}

function sqliteEachKey(eachKey: RunEachKey | undefined): RunEachKey {
  if (!eachKey) throw new Error('Deleting from SQLite needs the store to run statements by key');
  return eachKey;
}

type DeletedRow = { id: string; created: number | string; event_type: string; doc: string };

export async function deleteEvents(
  db: Kysely<Database>,
  orgId: string,
  selection: EventSelection,
  options: DeleteOptions = {},
  /** SQLite: the store's statements by key (RunEachKey). */
  eachKey?: RunEachKey,
): Promise<number> {
  const batchSize = Math.max(
    1,
    options.batchSize ?? DELETE_BATCH[isSqlite(db) ? 'sqlite' : 'postgres'],
  );
  let deleted = 0;
  /**
   * One batch, in one transaction: the events `ids` names, or, with `pick`,
   * those the query `ids` selects. Returns how many ids it found: a whole
   * batch's worth means more may follow.
   */
  const run = async (ids: RawBuilder<unknown>, pick = false): Promise<number> => {
    let found: number | undefined;
    // Counters shared with concurrent writers, as inserts (write-transaction.ts).
    const n = await writeTransaction(db, async (trx) => {
      let list = ids;
      if (pick && !isSqlite(trx)) {
        // PostgreSQL: the ids first, as a list. A subquery in the DELETE was
        // planned under lookUpByKey's settings, and with statistics that did
        // not know the org yet (a mirror's run, an import killed before its
        // ANALYZE) the planner estimated one row and ran the pick again for
        // every event of the org: undoing a 40,000-event run outlasted the
        // query deadline every time, deleting nothing. (SQLite keeps the
        // subquery: its first statement must write, see deleteBatch.)
        const { rows } = await sql<{ id: string }>`${ids}`.execute(trx);
        found = rows.length;
        if (rows.length === 0) return 0;
        list = idList(rows.map((row) => row.id));
      }
      await lookUpByKey(trx);
      return deleteBatch({ trx, eachKey }, orgId, list);
    });
    deleted += n;
    if (n > 0) options.onBatch?.(deleted);
    // A turn of the event loop's I/O phase before `stop` is asked: SQLite's
    // batches settle as microtasks only, so a SIGINT's handler (which sets
    // what `stop` reads) would not run before the whole deletion was done.
    if (options.stop) await new Promise<void>((resolve) => setImmediate(resolve));
    return found ?? n;
  };
  if ('ids' in selection) {
    const unique = [...new Set(selection.ids)];
    for (let i = 0; i < unique.length; i += batchSize) {
      if (i > 0 && options.stop?.()) break;
      await run(idList(unique.slice(i, i + batchSize)));
    }
    return deleted;
  }
  const pick =
    'before' in selection
      ? sql`SELECT id FROM events WHERE org_id = ${orgId} AND created < ${selection.before}
          ORDER BY created, id LIMIT ${batchSize}`
      : sql`SELECT id FROM events WHERE org_id = ${orgId} AND run_id = ${selection.runId}
          LIMIT ${batchSize}`;
  for (;;) {
    const found = await run(pick, true);
    if (found < batchSize || options.stop?.()) break;
  }
  return deleted;
}

/**
 * PostgreSQL: the rest of this transaction joins its key lists to the tables
 * by index lookups, never by hashing or merging a scan of the whole table.
 * A deletion batch names tens of thousands of keys (postings, counter rows),
 * and the planner, costing random reads as a disk's, chose a scan of the
 * whole table beyond a few thousand: the cost of a batch grew with the store
 * instead of the batch. Undoing a 100,000-event run in a 1.1M-event store:
 * 5,093 / 5,688 events/s so, 8,306 / 7,663 with lookups (alternating); the
 * same at 200,000 events, where the scans were still small.
 */
async function lookUpByKey(trx: Kysely<Database>): Promise<void> {
  if (isSqlite(trx)) return;
  await sql`SET LOCAL enable_hashjoin = off`.execute(trx);
  await sql`SET LOCAL enable_mergejoin = off`.execute(trx);
}

/** One transaction: the events whose ids `ids` yields, their postings and counters. */
async function deleteBatch(
  target: Target,
  orgId: string,
  ids: RawBuilder<unknown>,
): Promise<number> {
  const { trx } = target;
  // The first statement writes, so SQLite takes the write lock at once
  // (a deferred transaction that read first could not be upgraded).
  const { rows } = await sql<DeletedRow>`DELETE FROM events
    WHERE org_id = ${orgId} AND id IN (${ids})
    RETURNING id, created, event_type, doc`.execute(trx);
  if (rows.length === 0) return 0;
  const events = rows.map((row) => ({
    id: row.id,
    created: Number(row.created),
    eventTypeName: row.event_type,
    doc: row.doc,
  }));

  // Counter rows in the writers' lock order (write-transaction.ts).
  const counters = [...countDeltas(events).values()].sort(
    (a, b) => compareText(a.eventType, b.eventType) || a.bucket - b.bucket,
  );
  await subtractCounts(
    target,
    'event_counts',
    EVENT_COUNT_KEY,
    counters.map((c) => [orgId, c.eventType, c.bucket, c.n]),
  );

  // The postings the events had, by key; counters move by what was really there.
  const perEvent = events.map((event) => documentTerms(event.doc));
  const distinct = [...new Set(perEvent.flat())];
  const termIds = new Map<string, number>();
  for (let i = 0; i < distinct.length; i += TERMS_PER_LOOKUP) {
    const rows = await trx
      .selectFrom('term_dict')
      .select(['id', 'term'])
      .where('org_id', '=', orgId)
      .where('term', 'in', distinct.slice(i, i + TERMS_PER_LOOKUP))
      .execute();
    for (const row of rows) termIds.set(row.term, Number(row.id));
  }
  const keys: [number, number, number, number][] = [];
  const keyTypes: string[] = [];
  events.forEach((event, e) => {
    const [hi, lo] = eventKey(event.id);
    for (const term of perEvent[e]!) {
      const id = termIds.get(term);
      if (id === undefined) continue;
      keys.push([id, event.created, hi, lo]);
      keyTypes.push(event.eventTypeName);
    }
  });
  const postings = await deletePostings(target, keys, keyTypes);
  const perDay = new Map<string, [number, number, number, number]>();
  const perTerm = new Map<number, number>();
  for (const [termId, created, typeId] of postings) {
    const day = Math.floor(created / DAY_MS);
    const key = `${day}:${termId}:${typeId}`;
    const entry = perDay.get(key);
    if (entry) entry[3] += 1;
    else perDay.set(key, [termId, day, typeId, 1]);
    perTerm.set(termId, (perTerm.get(termId) ?? 0) + 1);
  }
  // The dictionary before the term counters, each in the writers' lock
  // order: terms by their text, term counters by key.
  const termOf = new Map<number, string>();
  for (const [term, id] of termIds) termOf.set(id, term);
  await decrementTerms(
    target,
    orgId,
    [...perTerm].sort(([a], [b]) => compareText(termOf.get(a)!, termOf.get(b)!)),
    termOf,
  );
  await subtractCounts(
    target,
    'term_days',
    TERM_DAY_KEY,
    [...perDay.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]),
  );
  return rows.length;
}

/** Subtracts `n` from dictionary counts; a term no event holds any more leaves the dictionary. */
async function decrementTerms(
  target: Target,
  orgId: string,
  deltas: [id: number, n: number][],
  termOf: ReadonlyMap<number, string>,
): Promise<void> {
  const gone = await subtractCounts(target, 'term_dict', TERM_KEY, deltas);
  // Their words go with them (term_words, keyed by word).
  const words = gone.flatMap(([key]) => {
    const id = Number(key);
    return termWords(termOf.get(id)!).map((word) => [orgId, word, id] as const);
  });
  await deleteByKeys(target, 'term_words', WORD_KEY, words);
}

/**
 * Every row the org owns, table by table: the tables with an `org_id`
 * column (found in the catalogue, so tables added later are included) and
 * its row in `orgs`. Rows are sorted by their JSON text for a stable order.
 */
export async function dumpOrg(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
  orgId: string,
): Promise<Record<string, Record<string, unknown>[]>> {
  const { rows: tables } =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`SELECT m.name FROM sqlite_master m
          WHERE m.type = 'table' AND EXISTS (
            SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'org_id')
          ORDER BY m.name`.execute(db)
      : await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name = 'org_id'
          ORDER BY table_name`.execute(db);
  const dump: Record<string, Record<string, unknown>[]> = {};
  const sorted = (rows: Record<string, unknown>[]) =>
    rows
      .map((row) => ({ row, key: JSON.stringify(normalize(row)) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ row }) => normalize(row));
  const { rows: org } = await sql<Record<string, unknown>>`SELECT * FROM orgs
    WHERE id = ${orgId}`.execute(db);
  dump.orgs = sorted(org);
  for (const { name } of tables) {
    const { rows } = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(name)}
      WHERE org_id = ${orgId}`.execute(db);
    dump[name] = sorted(rows);
  }
  // Tables keyed by term id hold no org_id: theirs are the org's terms'.
  // Term ids differ between stores holding the same events, so every term
  // table is shown by term text instead.
  dump.term_dict = sorted(dump.term_dict!.map(({ id: _id, ...rest }) => rest));
  const { rows: postings } = await sql<Record<string, unknown>>`SELECT d.org_id, d.term,
      p.created, p.id_hi, p.id_lo, y.name AS event_type
    FROM term_postings p JOIN term_dict d ON d.id = p.term_id
    JOIN event_type_ids y ON y.id = p.type_id
    WHERE d.org_id = ${orgId}`.execute(db);
  dump.term_postings = sorted(postings);
  const { rows: days } = await sql<Record<string, unknown>>`SELECT d.org_id, d.term, c.bucket,
      y.name AS event_type, c.n
    FROM term_days c JOIN term_dict d ON d.id = c.term_id
    JOIN event_type_ids y ON y.id = c.type_id WHERE d.org_id = ${orgId}`.execute(db);
  dump.term_days = sorted(days);
  const { rows: words } = await sql<Record<string, unknown>>`SELECT w.org_id, w.word, d.term
    FROM term_words w LEFT JOIN term_dict d ON d.id = w.term_id WHERE w.org_id = ${orgId}`.execute(
    db,
  );
  dump.term_words = sorted(words);
  return dump;
}

/** Engines return bigints as numbers or strings: one form for comparisons. */
function normalize(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row).sort()) {
    const value = row[key];
    out[key] = typeof value === 'bigint' ? Number(value) : value;
  }
  return out;
}
