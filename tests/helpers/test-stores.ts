import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { createTestDatabase } from './postgres';

export type TestStore = { store: EventStore; drop: () => Promise<void> };

/** A fresh SQLite store in its own temporary directory, removed by `drop`. */
export async function openSqliteTestStore(): Promise<TestStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-test-'));
  return {
    store: await openStore(path.join(dir, 'store.db')),
    drop: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
  };
}

/** A fresh PostgreSQL store in a new database, dropped by `drop`. */
export async function openPostgresTestStore(): Promise<TestStore> {
  const database = await createTestDatabase();
  return { store: await openStore(database.url), drop: database.drop };
}

/** Each engine's name and how to open a fresh store on it: for tests run on both. */
export const TEST_ENGINES: readonly [string, () => Promise<TestStore>][] = [
  ['SQLite', openSqliteTestStore],
  ['PostgreSQL', openPostgresTestStore],
];
