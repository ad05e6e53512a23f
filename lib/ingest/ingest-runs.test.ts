import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openStore } from '@/lib/store';
import type { NewEvent } from '@/lib/domain/event';
import type { EventStore } from '@/lib/store/types';
import { endIngestRun, startIngestRun, UndoRefusedError, undoIngestRun } from './ingest-runs';
import { generateEventBatches } from './seed';

const ORG = '6a0a1b2c3d4e5f6a7b8c9d21';

describe('the import ledger: a run undone while it goes on', () => {
  let store: EventStore;
  const [events] = [
    ...generateEventBatches(
      {
        orgId: ORG,
        count: 30,
        seed: 'ledger',
        from: Date.UTC(2026, 0, 1),
        to: Date.UTC(2026, 0, 2),
      },
      30,
    ),
  ] as [NewEvent[]];

  before(async () => {
    store = await openStore(':memory:');
    await store.createOrg({ id: ORG, name: 'Ledger', created: Date.UTC(2025, 0, 1) });
  });
  after(() => store.close());

  test('stays undone when it ends, says what it did after, and a second undo removes that', async () => {
    const run = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'file.ndjson' });
    await store.insertEvents(ORG, events.slice(0, 20), { runId: run.id });
    const undone = await undoIngestRun(store, run.id, { force: true });
    assert.equal(undone.deleted, 20);
    // The import goes on (its process did not know) and ends.
    await store.insertEvents(ORG, events.slice(20), { runId: run.id });
    const status = await endIngestRun(store, run.id, { status: 'finished', inserted: 30 });
    assert.equal(status, 'undone');
    const ended = (await store.getIngestRun(run.id))!;
    assert.equal(ended.status, 'undone', 'not overwritten by finished');
    assert.equal(
      ended.inserted,
      30,
      'what it inserted in all, not the zero of before its first heartbeat',
    );
    assert.match(ended.detail ?? '', /20 events removed; it went on until .* and ended finished/);
    assert.match(ended.detail ?? '', new RegExp(`'imports undo ${run.id}' again removes it`));

    const again = await undoIngestRun(store, run.id);
    assert.equal(again.deleted, 10);
    const page = await store.listEvents({
      orgId: ORG,
      offset: 0,
      limit: 100,
      includeCount: true,
      includeRaw: false,
    });
    assert.equal(page.totalCount, 0);
    await assert.rejects(undoIngestRun(store, run.id), UndoRefusedError);
  });

  test('a live mirror run is not undone, even with force: its walk would copy back what the undo removes', async () => {
    const run = await startIngestRun(store, { orgId: ORG, kind: 'mirror', source: 'https://x#y' });
    await store.insertEvents(ORG, events.slice(0, 5), { runId: run.id });
    await assert.rejects(undoIngestRun(store, run.id, { force: true }), (error: unknown) => {
      assert.ok(error instanceof UndoRefusedError);
      assert.match(
        error.message,
        /^Run [0-9a-f]{24} is a mirror still running \(process \d+ on .*\): stop it first \(SIGINT or SIGTERM ends it after its current page\); --force does not apply to a live mirror/,
      );
      return true;
    });
    assert.equal(await store.countRunEvents(ORG, run.id), 5);
    // Once it has ended, it is undone as any run.
    await endIngestRun(store, run.id, { status: 'interrupted', inserted: 5 });
    assert.equal((await undoIngestRun(store, run.id)).deleted, 5);
  });
  test('a run that ends without being undone ends as it says', async () => {
    const run = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'other.ndjson' });
    assert.equal(await endIngestRun(store, run.id, { status: 'failed', detail: 'x' }), 'failed');
    assert.equal((await store.getIngestRun(run.id))!.status, 'failed');
  });
  test('an undo stopped midway leaves the run saying so, and running it again completes it', async () => {
    const run = await startIngestRun(store, { orgId: ORG, kind: 'import', source: 'third.ndjson' });
    await store.insertEvents(ORG, events, { runId: run.id });
    await endIngestRun(store, run.id, { status: 'finished', inserted: events.length });
    // The real store, whose deletion fails as a killed process's would.
    const failing = new Proxy(store, {
      get: (target, name, receiver) =>
        name === 'deleteEvents'
          ? () => Promise.reject(new Error('killed midway'))
          : (Reflect.get(target, name, receiver) as unknown),
    });
    await assert.rejects(undoIngestRun(failing, run.id), /killed midway/);
    const stopped = (await store.getIngestRun(run.id))!;
    assert.equal(stopped.status, 'finished');
    assert.match(stopped.detail ?? '', /undo started at .* and not finished/);
    assert.equal((await undoIngestRun(store, run.id)).deleted, events.length);
    assert.match((await store.getIngestRun(run.id))!.detail ?? '', /^undone at /);
  });
  test('an undo asked to stop ends after its batch, says what remains, and is not marked undone; run again, it completes', async () => {
    const run = await startIngestRun(store, {
      orgId: ORG,
      kind: 'import',
      source: 'fourth.ndjson',
    });
    await store.insertEvents(ORG, events, { runId: run.id });
    await endIngestRun(store, run.id, { status: 'finished', inserted: events.length });
    let batches = 0;
    const stopped = await undoIngestRun(store, run.id, {
      batchSize: 8,
      onBatch: () => batches++,
      stop: () => batches >= 2,
    });
    assert.deepEqual([stopped.deleted, stopped.remaining], [16, events.length - 16]);
    assert.equal(stopped.run.status, 'finished');
    assert.match(stopped.run.detail ?? '', /undo started at .* and not finished/);
    assert.equal(await store.countRunEvents(ORG, run.id), events.length - 16);
    const completed = await undoIngestRun(store, run.id);
    assert.deepEqual([completed.deleted, completed.remaining], [events.length - 16, undefined]);
    assert.equal((await store.getIngestRun(run.id))!.status, 'undone');
  });
});
