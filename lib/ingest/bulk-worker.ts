import { parentPort, workerData } from 'node:worker_threads';
import { BatchPacker, type PackedBatch, recycleText, transferables } from './bulk-batch';
import type { FromWorker, ToWorker, WorkerInput } from './bulk-load';
import { ImportFatalError, readEventBatches } from './import';
import { generateNewEvents } from './seed';

/**
 * The producing half of a bulk load, on its own thread: generates (seed) or
 * reads, validates and encodes (import) batches, and hands them to the main
 * thread, which inserts them. At most one batch more than the main thread
 * inserts at once waits unacknowledged, so memory stays flat however large
 * the job.
 */
const port = parentPort!;
const { job, lanes } = workerData as WorkerInput;
const MAX_IN_FLIGHT = lanes + 1;
let inFlight = 0;
let wake: (() => void) | undefined;

port.on('message', (message: ToWorker) => {
  if (message.type === 'ack') {
    recycleText(message.text);
    inFlight--;
    wake?.();
  }
});

function send(message: FromWorker): void {
  port.postMessage(message);
}

async function capacity(): Promise<void> {
  while (inFlight >= MAX_IN_FLIGHT) {
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

/**
 * Hands a packed batch on. Its write order (compareEventsForWrite) was
 * found here, on the producing thread: the inserting thread gets the events
 * in it.
 */
async function sendBatch(
  packed: PackedBatch,
  progress: number,
  decompressedBytes?: number,
): Promise<void> {
  await capacity();
  inFlight++;
  port.postMessage(
    {
      type: 'batch',
      batch: packed,
      progress,
      ...(decompressedBytes === undefined ? {} : { decompressedBytes }),
    } satisfies FromWorker,
    transferables(packed),
  );
}

async function run(): Promise<void> {
  if (job.kind === 'seed') {
    // Each event packed as it is made, as an import packs each record as it
    // is read: no batch of 20,000 events' objects lives on to be copied by
    // the collector.
    let produced = 0;
    let packer = new BatchPacker(job.batchSize);
    for (const event of generateNewEvents(job.options)) {
      packer.add(event);
      if (packer.full) {
        produced += packer.count;
        await sendBatch(packer.finish(), produced);
        packer = new BatchPacker(job.batchSize);
      }
    }
    if (packer.count > 0) {
      produced += packer.count;
      await sendBatch(packer.finish(), produced);
    }
    await capacity();
    send({ type: 'done', summary: { format: 'seed', read: produced, invalid: 0, bytes: 0 } });
    return;
  }
  let bytes = 0;
  let decompressedBytes: number | undefined;
  const reader = readEventBatches(job.path, {
    ...job.options,
    onIssue: (issue) => send({ type: 'issue', issue }),
    onProgress: (read, decompressed) => {
      bytes = read;
      decompressedBytes = decompressed;
    },
  });
  try {
    for (;;) {
      const next = await reader.next();
      if (next.done) {
        await capacity();
        send({ type: 'done', summary: next.value });
        return;
      }
      await sendBatch(next.value, bytes, decompressedBytes);
    }
  } catch (error) {
    if (error instanceof ImportFatalError) {
      await capacity();
      send({
        type: 'fatal',
        message: error.message,
        summary: error.summary,
        voidsRun: error.voidsRun,
      });
      return;
    }
    throw error;
  }
}

run().catch((error: unknown) => {
  send({
    type: 'crash',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
});
