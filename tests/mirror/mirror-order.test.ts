import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import {
  groupCreatedDocument,
  listingSource,
  mirrorIntoFreshStore,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES, type TestStore } from '@/tests/helpers/test-stores';

/**
 * Events sharing a second keep the order their source listed them in
 * (issue 11). The real service sorts by its stored, sub-second time and
 * renders `created` to the second (atlas-events-api.md §6), so within a
 * second its order is not the ids' order. This source does the same from a
 * hidden millisecond per event, answering minDate/maxDate/pageNum/
 * itemsPerPage as the real service does; pages of 3 make the mirror split
 * windows inside a second and page within one (pageNum > 1). The copy, listed
 * by the store, must give the source's order exactly.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0021');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0022');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

/**
 * Events shown at these seconds (`count` each), newest first by a hidden
 * millisecond (`first` into the second, then `step` ms apart), ids in an
 * order unrelated to time (tails from a fixed permutation).
 */
function sourceEvents(
  seconds: readonly (readonly [second: number, count: number])[],
  first: number,
  step: number,
): SourceEvent[] {
  const events: SourceEvent[] = [];
  let n = 0;
  for (const [second, count] of seconds) {
    for (let i = 0; i < count; i++) {
      const at = second + first - i * step;
      const id = objectIdAt(second, ((n * 7919) % 9973).toString(16).padStart(16, '0'));
      n++;
      events.push({
        id,
        at,
        doc: groupCreatedDocument({
          at: second,
          id,
          orgId: SOURCE_ORG,
          groupId: objectIdAt(BASE, 'aaaaaaaaaaaa0001'),
        }),
      });
    }
  }
  return events.sort((a, b) => b.at - a.at);
}

function mirrorOrder(engine: string, open: () => Promise<TestStore>) {
  /** Copies the source at `baseUrl` into a fresh store, `itemsPerPage` a page, and lists `listed` of the copy. */
  const copyFrom = (baseUrl: string, itemsPerPage: number, listed?: number) =>
    mirrorIntoFreshStore(open, {
      baseUrl,
      sourceOrg: SOURCE_ORG,
      orgId: ORG,
      created: BASE,
      itemsPerPage,
      listed,
    });

  describe(`the source's order within a second (${engine})`, () => {
    test('a copy made through windows that split seconds lists same-second events in the order the source listed them', async () => {
      // 7, 4 and 2 events in three seconds.
      const events = sourceEvents(
        [
          [BASE + 2000, 7],
          [BASE + 1000, 4],
          [BASE, 2],
        ],
        900,
        100,
      );
      const source = await listingSource(events);
      try {
        const { summary, events: copied } = await copyFrom(source.baseUrl, 3);
        assert.equal(summary.copied, events.length);
        // Windows end with the second the last page ended in, so its events
        // are served again: recognised, not counted as already present.
        assert.equal(summary.skipped, 0);
        // Id order alone would differ: the test would not show anything otherwise.
        const second = (e: SourceEvent) => Math.floor(e.at / 1000);
        const byId = [...events].sort((a, b) => second(b) - second(a) || (a.id < b.id ? 1 : -1));
        assert.notDeepEqual(
          byId.map((e) => e.id),
          events.map((e) => e.id),
        );
        assert.deepEqual(
          copied.map((e) => e.id),
          events.map((e) => e.id),
        );
        // The documents keep the source's second-precision `created` (links
        // are the copy's own; orgId is the local org's).
        assert.deepEqual(
          copied.map((e) => JSON.parse(e.doc) as unknown),
          events.map(({ doc: { links: _links, ...doc } }) => ({ ...doc, orgId: ORG })),
        );
      } finally {
        source.close();
      }
    });
    test('a source holding events with and without a fraction in one second (another org-events) is copied in its order', async () => {
      // Shown as 12:00:01 (sorted by a hidden .600, .400, .300) and as
      // 12:00:01.500, listed newest first as the source sorts them.
      const second = BASE + 1000;
      const at = [600, 500, 400, 300].map((ms) => second + ms);
      const events: SourceEvent[] = at.map((hidden, i) => {
        const id = objectIdAt(second, `00000000000000${(0x1f - i).toString(16)}`);
        const shown = i === 1 ? hidden : second;
        const doc = groupCreatedDocument({
          at: shown,
          id,
          orgId: SOURCE_ORG,
          groupId: objectIdAt(BASE, 'aaaaaaaaaaaa0001'),
        });
        return { id, at: hidden, doc };
      });
      assert.equal(events[1]!.doc.created, '2025-06-01T12:00:01.500Z');
      const source = await listingSource(events);
      try {
        const { summary, events: copied } = await copyFrom(source.baseUrl, 2);
        assert.equal(summary.copied, events.length);
        assert.deepEqual(
          copied.map((e) => e.id),
          events.map((e) => e.id),
        );
      } finally {
        source.close();
      }
    });
    test('a source listing a whole second between two events of one fraction (another org-events, as it lists them sharing that key) is copied in its order', async () => {
      // All three sorted at .999 by the source, so listed by id: the whole
      // second's id lies between the others'.
      const second = BASE + 1000;
      const events: SourceEvent[] = [3, 2, 1].map((tail) => {
        const id = objectIdAt(second, `00000000000000${tail.toString(16).padStart(2, '0')}`);
        const doc = groupCreatedDocument({
          at: tail === 2 ? second : second + 999,
          id,
          orgId: SOURCE_ORG,
          groupId: objectIdAt(BASE, 'aaaaaaaaaaaa0001'),
        });
        return { id, at: second + 999, doc };
      });
      assert.equal(events[1]!.doc.created, '2025-06-01T12:00:01Z');
      const source = await listingSource(events);
      try {
        for (const itemsPerPage of [1, 3]) {
          const { summary, events: copied } = await copyFrom(source.baseUrl, itemsPerPage);
          assert.equal(summary.copied, events.length);
          // Before, the whole second took .998 and was listed below the .999 after it.
          assert.deepEqual(
            copied.map((e) => e.id),
            events.map((e) => e.id),
            `pages of ${itemsPerPage}`,
          );
        }
      } finally {
        source.close();
      }
    });
    test('a source serving fewer events a page than asked (it clamps itemsPerPage) still gives its order across a busy second of 999 events', async () => {
      // 999 is as many as a second's sort keys tell apart (ListingOrder: .999
      // down to .001). Each page's place in the second was counted in pages
      // of the size asked, so from the 11th page of 20 on every event shared
      // the last key.
      const events = sourceEvents([[BASE + 5000, 999]], 999, 1);
      const source = await listingSource(events, { clamp: 20 });
      try {
        const { summary, events: copied } = await copyFrom(source.baseUrl, 100, 999);
        assert.deepEqual([summary.copied, summary.skipped], [999, 0]);
        assert.deepEqual(
          copied.map((e) => e.id),
          events.map((e) => e.id),
        );
      } finally {
        source.close();
      }
    });
  });
}

for (const [engine, open] of TEST_ENGINES) mirrorOrder(engine, open);
