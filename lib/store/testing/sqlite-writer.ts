import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { InsertResult, NewEvent } from '../types';

/**
 * A second SQLite connection that writes from its own thread, for tests of
 * what readers see while another connection writes. better-sqlite3 is
 * synchronous, so a second store on the main thread could never commit in
 * the middle of the first one's request; a worker thread truly runs beside it.
 */
export type ConcurrentWriter = {
  insertEvents(orgId: string, events: readonly NewEvent[]): Promise<InsertResult>;
  close(): Promise<void>;
};

type Request = { id: number; orgId: string; events: readonly NewEvent[] };
type Reply = { id: number; result?: InsertResult; error?: string };

const THREAD_FILE = path.join(__dirname, 'sqlite-writer-thread.ts');

export async function openSqliteWriterThread(file: string): Promise<ConcurrentWriter> {
  const worker = new Worker(
    `require('tsx/cjs/api').register(); require(${JSON.stringify(THREAD_FILE)});`,
    { eval: true, workerData: { file } },
  );
  const pending = new Map<
    number,
    { resolve: (r: InsertResult) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  worker.on('message', (reply: Reply | 'ready') => {
    if (reply === 'ready') return;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) waiter?.reject(new Error(reply.error));
    else waiter?.resolve(reply.result!);
  });
  worker.on('error', (error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    insertEvents: (orgId, events) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, orgId, events } satisfies Request);
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}
