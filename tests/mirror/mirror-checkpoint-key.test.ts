import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { runMirror } from '@/lib/mirror/mirror';
import { groupCreatedEvent, listingSource } from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * The checkpoint belongs to the source, not to how its URL was typed: a
 * second run given the same base URL with the scheme in capitals and a
 * trailing slash resumes where the first stopped instead of walking the
 * whole organization again.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0061');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0062');

const sourceEvent = (at: number, tag: string) => groupCreatedEvent(SOURCE_ORG, at, tag);

for (const [engine, open] of TEST_ENGINES) {
  describe(`the mirror's checkpoint (${engine})`, () => {
    test('a base URL spelled another way resumes the same checkpoint', async () => {
      // Newest first. A resumed walk starts a minute (the overlap) before the
      // newest event copied: it reads that one again, never the older one.
      const events = [
        sourceEvent(Date.now() - 1000, 'b0'),
        sourceEvent(Date.now() - 7_200_000, 'a0'),
      ];
      const source = await listingSource(events);
      const { store, drop } = await open();
      const mirror = (baseUrl: string) =>
        runMirror({
          store,
          orgId: ORG,
          itemsPerPage: 5,
          source: { baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
        });
      try {
        await store.createOrg({ id: ORG, name: 'Copy', created: 0 });
        const first = await mirror(source.baseUrl);
        assert.deepEqual([first.copied, first.skipped], [2, 0]);

        const url = new URL(source.baseUrl);
        assert.equal(url.protocol, 'http:');
        const respelled = `HTTP://${url.host}${url.pathname}/`;
        const second = await mirror(respelled);
        // The same mirror: what it reads again it copied before, so none is
        // counted present. Taken for another source (a checkpoint of its
        // own), it would have walked from nothing and found both present,
        // copied by another source's mirror.
        assert.deepEqual([second.copied, second.skipped], [0, 0]);
        const key = `http://${url.host}${url.pathname}#${SOURCE_ORG}`;
        const runs = await store.listIngestRuns(ORG);
        assert.deepEqual(
          runs.map((r) => r.source),
          [key, key],
          'both runs are of one source',
        );
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    });
  });
}
