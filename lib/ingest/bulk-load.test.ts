import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { runBulkLoad } from './bulk-load';

const ORG = '6a0a1b2c3d4e5f6a7b8c9d31';

describe('a bulk load stopped on request', () => {
  let dir: string;
  let store: EventStore;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-bulk-stop-'));
    store = await openStore(`file:${path.join(dir, 'stop.db')}`);
    await store.createOrg({ id: ORG, name: 'Stop', created: Date.UTC(2025, 0, 1) });
  });
  after(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('once every batch is in, it is whole, not stopped', async () => {
    const count = 3000;
    const stop = new AbortController();
    // The last batch's insert takes its time: the producer has said it is
    // done by the moment the stop comes (in that batch's onBatch).
    const insertEvents = store.insertEvents.bind(store);
    let batches = 0;
    store.insertEvents = async (...args) => {
      const result = await insertEvents(...args);
      if (++batches === count / 1000) await new Promise((resolve) => setTimeout(resolve, 300));
      return result;
    };
    try {
      const result = await runBulkLoad(
        store,
        ORG,
        {
          kind: 'seed',
          options: {
            orgId: ORG,
            count,
            seed: 'stop',
            from: Date.UTC(2026, 0, 1),
            to: Date.UTC(2026, 0, 2),
          },
          batchSize: 1000,
        },
        {
          stop: stop.signal,
          onBatch: ({ inserted }) => {
            if (inserted === count) stop.abort();
          },
        },
      );
      assert.ok(stop.signal.aborted, 'the stop came');
      assert.equal(result.inserted, count);
      assert.equal(result.stopped, undefined, 'a whole load is not reported as stopped');
    } finally {
      store.insertEvents = insertEvents;
    }
  });
});
