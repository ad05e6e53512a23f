import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import { openBulkLoadHelper } from './bulk-load-helper';
import { SqliteStore } from './sqlite';
import { storeContract } from './store.contract';
import { openSqliteWriterThread } from './testing/sqlite-writer';

storeContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-store-'));
  const file = path.join(dir, 'test.db');
  const store = await SqliteStore.open(file);
  return {
    store,
    openConcurrentWriter: () => openSqliteWriterThread(file),
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite bulk-load helper', () => {
  const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'cccccccccccccccc');
  const events = Array.from({ length: 250 }, (_, i) => {
    const created = Date.UTC(2026, 0, 1) + i * 60_000;
    return encodeEvent(orgId, {
      id: objectIdAt(created, i.toString(16).padStart(16, '0')),
      created: new Date(created).toISOString(),
      eventTypeName: 'JOINED_ORG',
    });
  });

  /**
   * How many events the database file holds on its own, without its WAL
   * (null when not even the schema has reached it): a copy of the file alone
   * sees only what a checkpoint has written there.
   */
  function eventsInMainFile(dir: string, file: string): number | null {
    const copy = path.join(dir, `copy-${Date.now()}-${Math.random()}.db`);
    fs.copyFileSync(file, copy);
    const db = new BetterSqlite3(copy);
    try {
      return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    } catch {
      return null;
    } finally {
      db.close();
    }
  }

  test('checkpoints the WAL into the file from its own connection, opened from a cloned target', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-helper-'));
    const file = path.join(dir, 'bulk.db');
    const store = await SqliteStore.open(file);
    try {
      await store.createOrg({ id: orgId, name: 'Helper Org', created: 0 });
      assert.deepEqual(await store.insertEvents(orgId, events), { inserted: 250, skipped: 0 });
      assert.equal(
        eventsInMainFile(dir, file),
        null,
        'nothing checkpointed before the helper runs',
      );

      const target = store.bulkLoadHelperTarget();
      assert.ok(target, 'a file-backed store offers a helper');
      // What a worker thread receives: a structured clone of the target.
      const helper = openBulkLoadHelper(structuredClone(target));
      assert.ok(helper, 'the helper opens');
      helper.afterBatch();
      assert.equal(eventsInMainFile(dir, file), 250);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an in-memory store offers none (no file another connection could open)', async () => {
    const store = await SqliteStore.open(':memory:');
    try {
      assert.equal(store.bulkLoadHelperTarget(), undefined);
    } finally {
      await store.close();
    }
  });
});
