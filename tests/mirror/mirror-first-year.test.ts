import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatCreated } from '@/lib/domain/event';
import { FIRST_INSTANT } from '@/lib/domain/dates';
import { objectIdAt } from '@/lib/domain/object-id';
import { undoIngestRun } from '@/lib/ingest/ingest-runs';
import { runMirror } from '@/lib/mirror/mirror';
import {
  copyIds,
  groupCreatedDocument,
  listingSource,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * A copy whose events lie in the first minute of year 0000, the earliest a
 * `created` may be: its next runs ask for windows reaching back by the
 * catch-up's overlap, which must stop at 0000-01-01T00:00:00Z, the earliest
 * minDate a source accepts. It went below, the source answered 400, and every
 * later run failed the same way.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0061');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0062');

for (const [engine, open] of TEST_ENGINES) {
  describe(`a copy of events from the first minute of year 0000 (${engine})`, () => {
    test('later runs, and a run after an undo, ask only for dates a source accepts and copy what is missing', async () => {
      const events: SourceEvent[] = [10, 9, 8].map((seconds, i) => {
        const at = FIRST_INSTANT + seconds * 1000;
        const id = `5f00000000000000000a0${i}00`;
        return { id, at, doc: groupCreatedDocument({ at, id, orgId: SOURCE_ORG, groupId: id }) };
      });
      assert.equal(formatCreated(events[0]!.at), '0000-01-01T00:00:10Z');
      const source = await listingSource(events);
      const { store, drop } = await open();
      try {
        await store.createOrg({ id: ORG, name: 'Copy', created: 0 });
        const mirror = () =>
          runMirror({
            store,
            orgId: ORG,
            itemsPerPage: 2,
            source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
          });
        const first = await mirror();
        assert.equal(first.copied, 3);
        assert.equal((await mirror()).copied, 0);
        await undoIngestRun(store, first.runId);
        assert.deepEqual(await copyIds(store, ORG), []);
        assert.equal((await mirror()).copied, 3);
        assert.deepEqual(
          await copyIds(store, ORG),
          events.map((e) => e.id),
        );
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    });
  });
}
