import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { objectIdAt } from '@/lib/domain/object-id';
import { runMirror } from '@/lib/mirror/mirror';
import type { Database } from '@/lib/store/schema';
import { eventsSecondApart, listingSource } from '@/tests/helpers/mirror-copy';
import { createTestDatabase, testKysely } from '@/tests/helpers/postgres';
import { openStore } from '@/lib/store';

/**
 * A mirror run refreshes the planner's statistics once it has copied, as an
 * import does: on PostgreSQL, statistics that never saw the copy's org plan
 * its queries (an undo's among them) for a handful of rows.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0071');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0072');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

test('PostgreSQL: after a mirror run that copied events, the planner knows how many rows the events table holds', async () => {
  const events = eventsSecondApart(12, { base: BASE, orgId: SOURCE_ORG, idTag: 'abababab' });
  const src = await listingSource(events);
  const database = await createTestDatabase();
  const store = await openStore(database.url);
  const db = testKysely<Database>(database.url);
  // -1 until the table is first analyzed or vacuumed (PostgreSQL 14 and later).
  const estimate = async () => {
    const { rows } = await sql<{ n: number }>`SELECT reltuples::float8 AS n FROM pg_class
      WHERE oid = 'events'::regclass`.execute(db);
    return Number(rows[0]!.n);
  };
  try {
    await sql`ALTER TABLE events SET (autovacuum_enabled = false)`.execute(db);
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    assert.equal(await estimate(), -1);
    const summary = await runMirror({
      store,
      orgId: ORG,
      itemsPerPage: 5,
      source: { baseUrl: src.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
    });
    assert.equal(summary.copied, 12);
    assert.equal(await estimate(), 12);
  } finally {
    src.close();
    await db.destroy();
    await store.close();
    await database.drop();
  }
});
