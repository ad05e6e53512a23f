import { type Kysely, sql } from 'kysely';
import { isIndexable } from '@/lib/domain/filters';
import { valueOfTerm } from '../terms';

/**
 * Terms whose value is no longer indexed (isIndexable: over 800 UTF-16 code
 * units since 2026-11) leave the index. Both engines took them before
 * (PostgreSQL up to its B-tree entry's 2,704 bytes, which failed the batch
 * beyond); undo and prune find an event's postings by the terms of its
 * document, which no longer yield them, so they would stay counted after
 * their events were gone.
 * The document and its raw keep the value; only its term goes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A value over 800 code units has over 400 characters (2 units at most
  // each), on either engine's `length`: the rest is judged as the writers do.
  const { rows } = await sql<{ id: number | string; term: string }>`
    SELECT id, term FROM term_dict WHERE length(term) > 400`.execute(db);
  const ids = rows
    .filter((row) => !isIndexable(valueOfTerm(row.term)))
    .map((row) => Number(row.id));
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = sql.join(ids.slice(i, i + 500));
    for (const table of ['term_postings', 'term_days', 'term_words']) {
      await sql`DELETE FROM ${sql.table(table)} WHERE term_id IN (${chunk})`.execute(db);
    }
    await sql`DELETE FROM term_dict WHERE id IN (${chunk})`.execute(db);
  }
}

/** Nothing to put back: the terms are made again only by importing their events again. */
export async function down(): Promise<void> {}
