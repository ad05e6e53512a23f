import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { type MirrorOptions, type MirrorSummary, runMirror } from '@/lib/mirror/mirror';
import { groupCreatedDocument, listingSource, type SourceEvent } from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * A source event dated in the future (bad data, a source clock ahead) must
 * not end the copy: `through`, where each catch-up starts again, was the
 * newest `created` seen, so a catch-up after an event of 2099 asked for
 * events from 2099 on and never copied another.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0051');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0052');

function sourceEvent(at: number, tag: string): SourceEvent {
  const id = objectIdAt(Math.min(at, Date.UTC(2099, 0, 1)), `${tag}`.padEnd(16, '0'));
  return { id, at, doc: groupCreatedDocument({ at, id, orgId: SOURCE_ORG, groupId: SOURCE_ORG }) };
}

for (const [engine, open] of TEST_ENGINES) {
  describe(`a source event dated in the future (${engine})`, () => {
    test('later catch-ups still copy what arrives, and the copy is never said complete beyond its run', async () => {
      const future = sourceEvent(Date.UTC(2099, 0, 1), 'f0');
      const past = sourceEvent(Date.now() - 3_600_000, 'a0');
      // Newest first, as the source lists; pushed to as events arrive.
      const events: SourceEvent[] = [future, past];
      const source = await listingSource(events);
      const { store, drop } = await open();
      const options: MirrorOptions = {
        store,
        orgId: ORG,
        itemsPerPage: 5,
        eventsPerWrite: 5,
        source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
      };
      try {
        await store.createOrg({ id: ORG, name: 'Copy', created: 0 });
        const startedBefore = Date.now();
        const first = await runMirror(options);
        assert.equal(first.copied, 2);
        assert.ok(
          first.through !== null && Date.parse(first.through) <= Date.now(),
          first.through!,
        );
        assert.ok(Date.parse(first.through) >= startedBefore - 1000, first.through);

        const arrived = sourceEvent(Date.now(), 'b0');
        events.splice(1, 0, arrived);
        const second = await runMirror(options);
        // The event dated in the future is read again: copied before, not counted present.
        assert.deepEqual([second.copied, second.skipped], [1, 0]);
        assert.ok(await store.getEvent(ORG, arrived.id, false));
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    });

    /** One mirror run over a source listing `event`, from a stored checkpoint `state`. */
    async function mirrorFrom(event: SourceEvent, state: object): Promise<MirrorSummary> {
      const source = await listingSource([event]);
      const { store, drop } = await open();
      try {
        await store.createOrg({ id: ORG, name: 'Copy', created: 0 });
        const key = `${source.baseUrl}#${SOURCE_ORG}`;
        assert.equal(await store.setMirrorCheckpoint(ORG, key, JSON.stringify(state)), true);
        return await runMirror({
          store,
          orgId: ORG,
          itemsPerPage: 5,
          source: { baseUrl: source.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
        });
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    }

    test('a capped checkpoint ahead of this clock (saved on a host whose clock is ahead) is trusted: nothing older is walked again', async () => {
      // An event the copy lacks (pruned on purpose, say), older than the checkpoint.
      const old = sourceEvent(Date.now() - 30 * 86_400_000, 'd0');
      const run = await mirrorFrom(old, {
        version: 1,
        through: Date.now() + 120_000,
        capped: true,
      });
      assert.equal(run.copied, 0);
    });

    test('a checkpoint saved complete through a future instant (before walks were capped) is walked again from the start', async () => {
      const past = sourceEvent(Date.now() - 3_600_000, 'c0');
      const run = await mirrorFrom(past, { version: 1, through: Date.UTC(2099, 0, 1) });
      assert.equal(run.copied, 1);
      assert.ok(run.through !== null && Date.parse(run.through) <= Date.now(), run.through!);
    });
  });
}
