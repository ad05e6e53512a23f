import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { runMirror } from '@/lib/mirror/mirror';
import { openStore } from '@/lib/store';
import { copyIds, eventsSecondApart, listingSource } from '@/tests/helpers/mirror-copy';
import { fillDisk, mountSmallDisk } from '@/tests/helpers/small-disk';

/**
 * A mirror whose every page is stored, but whose run cannot then be
 * recorded as finished (the disk filled up after its last write): its
 * summary stands, saying why, where it failed with the engine's error
 * alone. As an import's (tests/cli/full-disk.test.ts), the run shows
 * interrupted with what it copied until the database can write again.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0093');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0094');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

test('a mirror whose end cannot be recorded (its disk full once its copy is complete) keeps its copy and says why in its summary', async (t) => {
  const disk = mountSmallDisk(32);
  if (typeof disk === 'string') {
    t.skip(disk);
    return;
  }
  const events = eventsSecondApart(20, { base: BASE, orgId: SOURCE_ORG, idTag: 'dededede' });
  const source = await listingSource(events, {});
  const filler = path.join(disk.dir, 'filler');
  const store = await openStore(`file:${path.join(disk.dir, 'copy.db')}`);
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    const summary = await runMirror({
      store,
      orgId: ORG,
      itemsPerPage: 5,
      eventsPerWrite: 5,
      source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
      // Following: once its catch-up is complete (every page stored, its
      // checkpoint saved), the disk fills while it waits, and it is stopped.
      follow: true,
      intervalSeconds: 0,
      pause: () => Promise.resolve(fillDisk(filler)),
      shouldStop: () => fs.existsSync(filler),
    });
    assert.ok(fs.existsSync(filler), 'the disk was filled');
    assert.equal(summary.copied, 20);
    assert.match(summary.runNotRecorded ?? '', /disk is full/);
    assert.deepEqual(
      await copyIds(store, ORG),
      events.map((e) => e.id),
    );
    // Meanwhile the ledger still holds it running; settled (its process
    // gone) it shows interrupted, with what it copied.
    const [run] = await store.listIngestRuns(ORG);
    assert.deepEqual(
      { id: run?.id, status: run?.status },
      { id: summary.runId, status: 'running' },
    );
  } finally {
    source.close();
    await store.close();
    disk.unmount();
  }
});
