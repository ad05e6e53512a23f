import { newObjectId } from '@/lib/domain/object-id';
import type {
  DeleteOptions,
  EventStore,
  IngestRun,
  IngestRunKind,
  IngestRunPatch,
} from '@/lib/store/types';

/**
 * The import ledger's life cycle, shared by `import` and `mirror`: a run is
 * recorded as `running` before its first batch (so a killed run still shows,
 * and its events can still be undone), its counts move as batches commit, and
 * it ends `finished`, `failed` or `interrupted`. Undoing deletes exactly the
 * events it inserted (they carry its id; events it skipped as already present
 * keep the run that added them) and marks it `undone`.
 */

export async function startIngestRun(
  store: EventStore,
  run: { orgId: string; kind: IngestRunKind; source: string },
): Promise<IngestRun> {
  return store.createIngestRun({
    id: newObjectId(),
    ...run,
    started: Date.now(),
    finished: null,
    inserted: 0,
    skipped: 0,
    rejected: 0,
    status: 'running',
    detail: null,
  });
}

export async function endIngestRun(
  store: EventStore,
  id: string,
  patch: IngestRunPatch & Pick<IngestRun, 'status'>,
): Promise<void> {
  await store.updateIngestRun(id, { ...patch, finished: Date.now() });
}

export class UndoRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UndoRefusedError';
  }
}

/**
 * Removes the events a run inserted, counters kept exact. A run still marked
 * `running` is refused unless `force` (it may be alive and still inserting; a
 * killed one stays `running` forever), an undone one is refused.
 */
export async function undoIngestRun(
  store: EventStore,
  id: string,
  options: DeleteOptions & { force?: boolean } = {},
): Promise<{ run: IngestRun; deleted: number }> {
  const run = await store.getIngestRun(id);
  if (!run) throw new UndoRefusedError(`No import or mirror run with id ${id}`);
  if (run.status === 'undone') throw new UndoRefusedError(`Run ${id} was already undone`);
  if (run.status === 'running' && !options.force) {
    throw new UndoRefusedError(
      `Run ${id} is still marked running (started ${new Date(run.started).toISOString()}): if it was killed, undo it with --force`,
    );
  }
  const deleted = await store.deleteEvents(run.orgId, { runId: id }, options);
  // The mirror's checkpoint says the copy is complete through some instant;
  // with this run's events gone it no longer is: the next run starts over
  // (skipping what is still there).
  if (run.kind === 'mirror') await store.setMirrorCheckpoint(run.orgId, run.source, null);
  const detail = `undone at ${new Date().toISOString()}: ${deleted} events removed`;
  await store.updateIngestRun(id, { status: 'undone', detail });
  return { run: { ...run, status: 'undone', detail }, deleted };
}
