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
        // Walked again from nothing, it would have read and skipped both.
        assert.deepEqual([second.copied, second.skipped], [0, 1]);
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    });
  });
}
