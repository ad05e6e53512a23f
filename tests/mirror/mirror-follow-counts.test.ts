import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { type MirrorCaughtUp, runMirror } from '@/lib/mirror/mirror';
import { groupCreatedEvent, listingSource } from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * Each `--follow` catch-up reads the minute before the newest event again
 * (the overlap, for late arrivals). A quiet org's newest events were
 * counted "already present" at every check: the counts grew without
 * anything happening. Read again by the run that stored them, they are not
 * counted; an event that arrives is copied.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0071');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0072');

const sourceEvent = (at: number, tag: string) => groupCreatedEvent(SOURCE_ORG, at, tag);

for (const [engine, open] of TEST_ENGINES) {
  describe(`a following mirror's counts (${engine})`, () => {
    test('the overlap read again at each check is not counted again; an arrival is copied', async () => {
      const now = Date.now();
      // Newest first: two within the overlap of the newest, one long before.
      const events = [
        sourceEvent(now - 2000, 'c0'),
        sourceEvent(now - 5000, 'b0'),
        sourceEvent(now - 7_200_000, 'a0'),
      ];
      const source = await listingSource(events);
      const { store, drop } = await open();
      const checks: MirrorCaughtUp[] = [];
      try {
        await store.createOrg({ id: ORG, name: 'Copy', created: 0 });
        const summary = await runMirror({
          store,
          orgId: ORG,
          itemsPerPage: 5,
          follow: true,
          intervalSeconds: 1,
          pause: () => Promise.resolve(),
          onCaughtUp: (state) => {
            checks.push(state);
            // Between the second and third checks an event arrives.
            if (checks.length === 2) events.unshift(sourceEvent(Date.now(), 'd0'));
          },
          shouldStop: () => checks.length >= 4,
          source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
        });
        assert.deepEqual(
          checks.map((check) => [check.copied, check.skipped]),
          [
            [3, 0],
            [3, 0],
            [4, 0],
            [4, 0],
          ],
        );
        assert.deepEqual([summary.copied, summary.skipped], [4, 0]);
        assert.ok(await store.getEvent(ORG, events[0]!.id, false), 'the arrival is stored');
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    });
  });
}
