import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Runs every other thread of this process `steps` nice values lower (at most
 * 19) until the returned function is called: on a bulk load, the producer,
 * the store's helper, V8's garbage-collector and compiler threads and
 * libuv's pool yield to the inserting thread, the pipeline's bottleneck. On
 * two cores it spent ~15% of a 1,000,000-event import runnable but waiting
 * for a core the others held, while the producer has time to spare and can
 * wait instead. Linux only (a nice value is per thread there, and threads
 * are listed in /proc/self/task); elsewhere, or where refused, nothing
 * changes. Threads started after the call keep their priority. Raising a
 * priority back is refused to an unprivileged process: those threads then
 * stay lower for the process's life (the CLI's ends with the load).
 */
export function favourThisThread(steps: number): () => void {
  if (process.platform !== 'linux' || !(steps > 0)) return () => undefined;
  const lowered: [tid: number, nice: number][] = [];
  try {
    const self = currentThreadId();
    for (const name of fs.readdirSync('/proc/self/task')) {
      const tid = Number(name);
      if (tid === self) continue;
      try {
        const nice = os.getPriority(tid);
        os.setPriority(tid, Math.min(19, nice + steps));
        lowered.push([tid, nice]);
      } catch {
        // Ended meanwhile, or not allowed.
      }
    }
  } catch {
    return () => undefined;
  }
  return () => {
    for (const [tid, nice] of lowered) {
      try {
        os.setPriority(tid, nice);
      } catch {
        // Ended, or raising it back is not allowed.
      }
    }
  };
}

/** The calling thread's kernel id (Linux). */
export function currentThreadId(): number {
  return Number(path.basename(fs.readlinkSync('/proc/thread-self')));
}
