import { createTestDatabase } from '@/tests/helpers/postgres';
import { PostgresStore } from './postgres';
import { storeContract } from './store.contract';

// Runs in CI: PostgreSQL is part of every machine this project runs on.
storeContract('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const store = await PostgresStore.open(database.url);
  return {
    store,
    // A second pool: its inserts commit between the first pool's statements.
    openConcurrentWriter: () => PostgresStore.open(database.url, 2),
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
});
