import { newObjectId } from '@/lib/domain/object-id';
import type { IngestRun } from '@/lib/store/types';

/**
 * A ledger row as a running import leaves it (what startIngestRun writes:
 * no counts, no end), for tests that stage a run another process left:
 * `run` says whose it is (host, pid, heartbeat) and what differs.
 */
export function runningRun(
  run: Pick<IngestRun, 'orgId' | 'host' | 'pid' | 'heartbeat'> & Partial<IngestRun>,
): IngestRun {
  return {
    id: newObjectId(),
    kind: 'import',
    source: 'file.ndjson',
    started: Date.now() - 3_600_000,
    finished: null,
    inserted: 0,
    skipped: 0,
    rejected: 0,
    status: 'running',
    detail: null,
    undoFrom: null,
    ...run,
  };
}
