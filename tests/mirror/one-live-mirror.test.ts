import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { MirrorError, runMirror } from '@/lib/mirror/mirror';
import { TEST_ENGINES, type TestStore } from '@/tests/helpers/test-stores';

/**
 * Two mirrors of one source into one org started at the same moment (two
 * terminals, two cron jobs): both pass the ledger's check before either has
 * written its run, so only the database can refuse the second (migration
 * 0012). The source holds every request until the refusal is seen, so the
 * first mirror is still live when the second is refused: without the
 * database's rule neither would be refused and the test would time out.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0012');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0013');

/** A source that answers every page with no events, once released. */
async function heldSource(): Promise<{ baseUrl: string; release: () => void; close: () => void }> {
  let released = false;
  const waiting: http.ServerResponse[] = [];
  const answer = (res: http.ServerResponse) =>
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"links":[],"results":[],"totalCount":0}');
  const server = http.createServer((_req, res) => (released ? answer(res) : waiting.push(res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
    release: () => {
      released = true;
      for (const res of waiting.splice(0)) answer(res);
    },
    close: () => server.close(),
  };
}

function oneLiveMirror(engine: string, open: () => Promise<TestStore>) {
  describe(`two mirrors of one source started together (${engine})`, () => {
    test('exactly one runs; the other is refused as ALREADY_RUNNING and leaves no run behind', async () => {
      const { store, drop } = await open();
      const source = await heldSource();
      try {
        await store.createOrg({ id: ORG, name: 'Mirror copy', created: Date.UTC(2025, 0, 1) });
        const mirror = () =>
          runMirror({
            store,
            orgId: ORG,
            source: {
              baseUrl: source.baseUrl,
              orgId: SOURCE_ORG,
              publicKey: 'pub',
              privateKey: 'private',
            },
          });
        const both = [mirror(), mirror()];
        const refused = await Promise.race([
          Promise.race(
            both.map((p) =>
              p.then(
                () => null,
                (error: unknown) => error,
              ),
            ),
          ),
          new Promise((resolve) => setTimeout(() => resolve('neither was refused'), 20_000)),
        ]);
        assert.ok(refused instanceof MirrorError, `expected a refusal, got ${String(refused)}`);
        assert.equal(refused.code, 'ALREADY_RUNNING');
        assert.match(
          refused.message,
          /Another mirror of .* is running \(run [0-9a-f]{24}, process \d+ on /,
        );

        source.release();
        const outcomes = await Promise.allSettled(both);
        const finished = outcomes.filter((o) => o.status === 'fulfilled');
        assert.equal(finished.length, 1, 'the other mirror runs to its end');
        const runs = await store.listIngestRuns(ORG);
        assert.deepEqual(
          runs.map((r) => [r.kind, r.status]),
          [['mirror', 'finished']],
        );

        // Once it has ended, the source is free again.
        const again = await mirror();
        assert.equal(again.copied, 0);
      } finally {
        source.close();
        await store.close();
        await drop();
      }
    });
  });
}

for (const [engine, open] of TEST_ENGINES) oneLiveMirror(engine, open);
