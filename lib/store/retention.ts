import { type Kysely, type RawBuilder, sql } from 'kysely';
import { DAY_MS } from '@/lib/domain/dates';
import { countDeltas } from './kysely-store';
import type { Database } from './schema';
import { documentTerms, eventKey, termWords } from './terms';
import type { DeleteOptions, EventSelection } from './types';

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
 * The statements are written once for both engines: row values with
 * `IN (VALUES …)`, `UPDATE … FROM (VALUES …)` (SQLite 3.33+) and
 * `DELETE … RETURNING` (SQLite 3.35+); VALUES columns are `column1…` on both.
 */

export const DEFAULT_DELETE_BATCH = 2000;

/** Rows per VALUES list: 3 parameters each stays far below either engine's limit. */
const VALUES_CHUNK = 300;

type DeletedRow = { id: string; created: number | string; event_type: string; doc: string };

export async function deleteEvents(
  db: Kysely<Database>,
  orgId: string,
  selection: EventSelection,
  options: DeleteOptions = {},
): Promise<number> {
  const batchSize = Math.max(1, options.batchSize ?? DEFAULT_DELETE_BATCH);
  let deleted = 0;
  const run = async (ids: RawBuilder<unknown>) => {
    // READ COMMITTED on PostgreSQL whatever the server's default, as inserts
    // (postgres.ts writeBatch): counters shared with concurrent writers.
    // SQLite has one writer at a time and ignores the setting.
    const n = await db
      .transaction()
      .setIsolationLevel('read committed')
      .execute((trx) => deleteBatch(trx, orgId, ids));
    deleted += n;
    if (n > 0) options.onBatch?.(deleted);
    return n;
  };
  if ('ids' in selection) {
    const unique = [...new Set(selection.ids)];
    for (let i = 0; i < unique.length; i += batchSize) {
      if (i > 0 && options.stop?.()) break;
      const chunk = unique.slice(i, i + batchSize);
      await run(sql`${sql.join(chunk.map((id) => sql`${id}`))}`);
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
    const n = await run(pick);
    if (n < batchSize || options.stop?.()) break;
  }
  return deleted;
}

/** One transaction: the events whose ids `ids` yields, their postings and counters. */
async function deleteBatch(
  trx: Kysely<Database>,
  orgId: string,
  ids: RawBuilder<unknown>,
): Promise<number> {
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

  const counters = [...countDeltas(events).values()];
  await decrementEventCounts(
    trx,
    orgId,
    counters.map((c) => [c.eventType, c.bucket, c.n]),
  );

  // The postings the events had, by key; counters move by what was really there.
  const perEvent = events.map((event) => documentTerms(event.doc));
  const distinct = [...new Set(perEvent.flat())];
  const termIds = new Map<string, number>();
  for (let i = 0; i < distinct.length; i += VALUES_CHUNK) {
    const rows = await trx
      .selectFrom('term_dict')
      .select(['id', 'term'])
      .where('org_id', '=', orgId)
      .where('term', 'in', distinct.slice(i, i + VALUES_CHUNK))
      .execute();
    for (const row of rows) termIds.set(row.term, Number(row.id));
  }
  const keys: [number, number, number, number][] = [];
  events.forEach((event, e) => {
    const [hi, lo] = eventKey(event.id);
    for (const term of perEvent[e]!) {
      const id = termIds.get(term);
      if (id !== undefined) keys.push([id, event.created, hi, lo]);
    }
  });
  const removed: { termId: number; created: number; typeId: number }[] = [];
  for (let i = 0; i < keys.length; i += VALUES_CHUNK) {
    const chunk = keys.slice(i, i + VALUES_CHUNK);
    const { rows: postings } = await sql<{
      term_id: number | string;
      created: number | string;
      type_id: number | string;
    }>`
      DELETE FROM term_postings
      WHERE (term_id, created, id_hi, id_lo) IN (VALUES ${sql.join(
        chunk.map(
          ([t, c, hi, lo]) =>
            sql`(CAST(${t} AS bigint), CAST(${c} AS bigint), CAST(${hi} AS bigint), CAST(${lo} AS bigint))`,
        ),
      )})
      RETURNING term_id, created, type_id`.execute(trx);
    for (const p of postings) {
      removed.push({
        termId: Number(p.term_id),
        created: Number(p.created),
        typeId: Number(p.type_id),
      });
    }
  }
  const perDay = new Map<string, [number, number, number, number]>();
  const perTerm = new Map<number, number>();
  for (const { termId, created, typeId } of removed) {
    const day = Math.floor(created / DAY_MS);
    const key = `${day}:${termId}:${typeId}`;
    const entry = perDay.get(key);
    if (entry) entry[3] += 1;
    else perDay.set(key, [termId, day, typeId, 1]);
    perTerm.set(termId, (perTerm.get(termId) ?? 0) + 1);
  }
  await decrementTermDays(trx, [...perDay.values()]);
  await decrementTerms(trx, [...perTerm]);
  return rows.length;
}

/** Subtracts `n` from (org, type, bucket) event counters and drops those left at zero. */
async function decrementEventCounts(
  trx: Kysely<Database>,
  orgId: string,
  deltas: [string, number, number][],
): Promise<void> {
  for (let i = 0; i < deltas.length; i += VALUES_CHUNK) {
    const chunk = deltas.slice(i, i + VALUES_CHUNK);
    const values = sql.join(
      chunk.map(
        ([key, bucket, n]) =>
          sql`(CAST(${key} AS text), CAST(${bucket} AS bigint), CAST(${n} AS bigint))`,
      ),
    );
    await sql`UPDATE event_counts SET n = n - d.column3 FROM (VALUES ${values}) AS d
      WHERE event_counts.org_id = ${orgId} AND event_counts.event_type = d.column1
        AND event_counts.bucket = d.column2`.execute(trx);
    const keys = sql.join(
      chunk.map(([key, bucket]) => sql`(CAST(${key} AS text), CAST(${bucket} AS bigint))`),
    );
    await sql`DELETE FROM event_counts WHERE org_id = ${orgId} AND n <= 0
      AND (event_type, bucket) IN (VALUES ${keys})`.execute(trx);
  }
}

/** Subtracts `n` from (term id, day, type id) counters and drops those left at zero. */
async function decrementTermDays(
  trx: Kysely<Database>,
  deltas: [number, number, number, number][],
): Promise<void> {
  for (let i = 0; i < deltas.length; i += VALUES_CHUNK) {
    const chunk = deltas.slice(i, i + VALUES_CHUNK);
    const values = sql.join(
      chunk.map(
        ([id, bucket, type, n]) =>
          sql`(CAST(${id} AS bigint), CAST(${bucket} AS bigint), CAST(${type} AS bigint), CAST(${n} AS bigint))`,
      ),
    );
    await sql`UPDATE term_days SET n = n - d.column4 FROM (VALUES ${values}) AS d
      WHERE term_days.term_id = d.column1 AND term_days.bucket = d.column2
        AND term_days.type_id = d.column3`.execute(trx);
    const keys = sql.join(
      chunk.map(
        ([id, bucket, type]) =>
          sql`(CAST(${id} AS bigint), CAST(${bucket} AS bigint), CAST(${type} AS bigint))`,
      ),
    );
    await sql`DELETE FROM term_days WHERE n <= 0
      AND (term_id, bucket, type_id) IN (VALUES ${keys})`.execute(trx);
  }
}

/** Subtracts `n` from dictionary counts; a term no event holds any more leaves the dictionary. */
async function decrementTerms(trx: Kysely<Database>, deltas: [number, number][]): Promise<void> {
  for (let i = 0; i < deltas.length; i += VALUES_CHUNK) {
    const chunk = deltas.slice(i, i + VALUES_CHUNK);
    const values = sql.join(
      chunk.map(([id, n]) => sql`(CAST(${id} AS bigint), CAST(${n} AS bigint))`),
    );
    await sql`UPDATE term_dict SET n = n - d.column2 FROM (VALUES ${values}) AS d
      WHERE term_dict.id = d.column1`.execute(trx);
    const ids = sql.join(chunk.map(([id]) => sql`${id}`));
    const { rows: gone } = await sql<{ id: number | string; org_id: string; term: string }>`
      DELETE FROM term_dict WHERE n <= 0 AND id IN (${ids}) RETURNING id, org_id, term`.execute(
      trx,
    );
    // Their words go with them (term_words, keyed by word).
    const words = gone.flatMap((row) =>
      termWords(row.term).map(
        (word) =>
          sql`(CAST(${row.org_id} AS text), CAST(${word} AS text), CAST(${Number(row.id)} AS bigint))`,
      ),
    );
    for (let w = 0; w < words.length; w += VALUES_CHUNK) {
      await sql`DELETE FROM term_words WHERE (org_id, word, term_id) IN (VALUES ${sql.join(
        words.slice(w, w + VALUES_CHUNK),
      )})`.execute(trx);
    }
  }
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
