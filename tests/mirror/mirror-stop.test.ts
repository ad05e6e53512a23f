import assert from 'node:assert/strict';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { type MirrorOptions, runMirror } from '@/lib/mirror/mirror';
import { eventsSecondApart, followMirror, listingSource } from '@/tests/helpers/mirror-copy';
import { openSqliteTestStore } from '@/tests/helpers/test-stores';

/**
 * A stop request (SIGINT, SIGTERM) within a walk leaves a copy that is not
 * complete: the run is recorded as interrupted, as an import's is (the CLI
 * exits 130 without --follow), and the next run completes it. A --follow
 * mirror stopped between its checks had completed its last catch-up: its
 * run is finished.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0081');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0082');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

const events = eventsSecondApart(12, { base: BASE, orgId: SOURCE_ORG, idTag: 'abcdabcd' });

test('a mirror stopped within its walk is recorded as interrupted; the next run completes the copy and is finished', async () => {
  const source = await listingSource(events);
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    const options = (more: Partial<MirrorOptions> = {}): MirrorOptions => ({
      store,
      orgId: ORG,
      itemsPerPage: 3,
      eventsPerWrite: 3,
      source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
      ...more,
    });
    let pages = 0;
    const cut = await runMirror(options({ shouldStop: () => ++pages >= 2 }));
    assert.deepEqual([cut.stopped, cut.interrupted], [true, true]);
    assert.ok(cut.copied < events.length, `${cut.copied} copied`);
    const [run] = await store.listIngestRuns(ORG);
    assert.deepEqual(
      [run!.id, run!.status, run!.detail],
      [cut.runId, 'interrupted', 'stopped on request within a walk; the next run resumes'],
    );

    const rest = await runMirror(options());
    assert.deepEqual([rest.stopped, rest.interrupted], [false, false]);
    assert.equal(cut.copied + rest.copied, events.length);
    assert.equal((await store.getIngestRun(rest.runId))?.status, 'finished');
  } finally {
    source.close();
    await store.close();
    await drop();
  }
});

test('a --follow mirror stopped between its checks is finished, not interrupted', async () => {
  const source = await listingSource(events);
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    const { summary } = await followMirror(store, {
      baseUrl: source.baseUrl,
      sourceOrg: SOURCE_ORG,
      orgId: ORG,
      checks: 2,
    });
    assert.deepEqual([summary.stopped, summary.interrupted, summary.copied], [true, false, 12]);
    assert.equal((await store.getIngestRun(summary.runId))?.status, 'finished');
  } finally {
    source.close();
    await store.close();
    await drop();
  }
});
