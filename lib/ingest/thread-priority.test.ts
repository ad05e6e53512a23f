import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { currentThreadId, favourThisThread } from './thread-priority';

/** A thread that reports its kernel id and then idles until terminated. */
async function idleThread(): Promise<{ tid: number; worker: Worker }> {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const tid = Number(require('node:path').basename(require('node:fs').readlinkSync('/proc/thread-self')));
     parentPort.postMessage(tid);
     setInterval(() => undefined, 1000);`,
    { eval: true },
  );
  const tid = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { tid, worker };
}

test('favourThisThread lowers every other thread by the steps asked, not the calling one, and restores them', async (t) => {
  if (process.platform !== 'linux') {
    // Nothing to lower elsewhere: a no-op.
    favourThisThread(5)();
    return;
  }
  const { tid, worker } = await idleThread();
  t.after(() => worker.terminate());
  const self = currentThreadId();
  assert.notEqual(tid, self);
  const [ownBefore, otherBefore] = [os.getPriority(self), os.getPriority(tid)];
  const restore = favourThisThread(5);
  assert.equal(os.getPriority(self), ownBefore);
  assert.equal(os.getPriority(tid), Math.min(19, otherBefore + 5));
  restore();
  // Raising a priority back needs root (CI and this machine run as root).
  if (process.getuid?.() === 0) assert.equal(os.getPriority(tid), otherBefore);
});
