import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from './sqlite';
import { storeContract } from './store.contract';

storeContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-store-'));
  const store = await SqliteStore.open(path.join(dir, 'test.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
