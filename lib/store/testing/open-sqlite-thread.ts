import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from '../sqlite';

/**
 * Opens (and so migrates) one SQLite file the moment every sibling thread is
 * ready too: they wait on a shared counter, so the opens truly race.
 */
const { file, barrier, parties } = workerData as {
  file: string;
  barrier: SharedArrayBuffer;
  parties: number;
};
const arrived = new Int32Array(barrier);
Atomics.add(arrived, 0, 1);
Atomics.notify(arrived, 0);
while (Atomics.load(arrived, 0) < parties) Atomics.wait(arrived, 0, Atomics.load(arrived, 0), 1000);

SqliteStore.open(file).then(
  async (store) => {
    await store.close();
    parentPort!.postMessage({ ok: true });
  },
  (error: unknown) => parentPort!.postMessage({ ok: false, error: String(error) }),
);
