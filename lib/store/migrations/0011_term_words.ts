import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { termWords } from '../terms';

/**
 * The words of each dictionary term (issue 9's `q` at 10M events): a `q`
 * word matched the dictionary by `LIKE '%word%'`, a scan of every term the
 * org holds (1.3M at 10M events, 370 ms a word). Here each term's value is
 * split into its words (lib/domain/filters.ts `words`), so a word prefix is
 * one index range. Words compare byte-wise (C collation on PostgreSQL) so
 * a prefix range holds exactly the words starting with it.
 *
 * Existing dictionaries are split here, a chunk of terms at a time (37 s
 * for the 1.3M terms of a 10M-event SQLite store, 21 s with 0010 for a
 * 1M-event PostgreSQL store, on a loaded 2-core machine).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await sql`CREATE TABLE term_words (
    org_id text NOT NULL,
    word text ${sqlite ? sql`` : sql`COLLATE "C" `}NOT NULL,
    term_id bigint NOT NULL,
    PRIMARY KEY (org_id, word, term_id)
  )${sqlite ? sql.raw(' WITHOUT ROWID') : sql.raw('')}`.execute(db);
  let last = -1;
  for (;;) {
    const { rows } = await sql<{ id: number | string; org_id: string; term: string }>`
      SELECT id, org_id, term FROM term_dict WHERE id > ${last} ORDER BY id
      LIMIT ${TERMS_PER_STEP}`.execute(db);
    if (rows.length === 0) break;
    last = Number(rows[rows.length - 1]!.id);
    const values = rows.flatMap((row) =>
      termWords(row.term).map((word) => sql`(${row.org_id}, ${word}, ${Number(row.id)})`),
    );
    for (let i = 0; i < values.length; i += INSERT_ROWS) {
      await sql`INSERT INTO term_words (org_id, word, term_id)
        VALUES ${sql.join(values.slice(i, i + INSERT_ROWS))}`.execute(db);
    }
  }
}

/** Terms read per step of the conversion. */
const TERMS_PER_STEP = 20_000;
/** Rows per INSERT (3 parameters each, far below either engine's limit). */
const INSERT_ROWS = 1_000;

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('term_words').execute();
}
