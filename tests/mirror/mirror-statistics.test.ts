import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { runMirror } from '@/lib/mirror/mirror';
import { openStore } from '@/lib/store';
import { eventsSecondApart, listingSource } from '@/tests/helpers/mirror-copy';
import { databaseWithVacuumLock } from '@/tests/helpers/postgres';

/**
 * A mirror refreshes the planner's statistics once its copy has committed.
 * When that refresh fails (here a DBA's lock_timeout, with another session
 * holding the lock VACUUM takes, which inserts do not wait for), the copy
 * stands and the mirror says why, as import, seed, prune and undo do: it
 * used to swallow the failure unsaid.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0091');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0092');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

test('a mirror whose statistics refresh fails keeps its copy, finishes its run and says why (PostgreSQL)', async () => {
  const events = eventsSecondApart(20, { base: BASE, orgId: SOURCE_ORG, idTag: 'cdcdcdcd' });
  const source = await listingSource(events, {});
  const database = await databaseWithVacuumLock();
  const store = await openStore(database.url);
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    await database.holdVacuumLock();
    const said: { reason: string; copied: number }[] = [];
    const summary = await runMirror({
      store,
      orgId: ORG,
      itemsPerPage: 5,
      eventsPerWrite: 5,
      source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
      onStatisticsNotRefreshed: (reason, copied) => said.push({ reason, copied }),
    });
    assert.equal(summary.copied, 20);
    assert.match(summary.statisticsNotRefreshed ?? '', /lock timeout/);
    assert.deepEqual(said, [{ reason: summary.statisticsNotRefreshed, copied: 20 }]);
    assert.equal(await store.countEvents({ orgId: ORG }), 20);
    const run = await store.getIngestRun(summary.runId);
    assert.deepEqual(
      { status: run?.status, inserted: run?.inserted },
      { status: 'finished', inserted: 20 },
    );
  } finally {
    await store.close();
    source.close();
    await database.drop();
  }
});
