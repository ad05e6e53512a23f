import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from '../sqlite';
import type { NewEvent } from '../types';

/** The thread behind openSqliteWriterThread: one SqliteStore, inserting what it is sent. */
const port = parentPort!;
const { file } = workerData as { file: string };

void SqliteStore.open(file).then((store) => {
  port.on('message', (request: { id: number; orgId: string; events: NewEvent[] }) => {
    store.insertEvents(request.orgId, request.events).then(
      (result) => port.postMessage({ id: request.id, result }),
      (error: unknown) => port.postMessage({ id: request.id, error: String(error) }),
    );
  });
  port.postMessage('ready');
});
