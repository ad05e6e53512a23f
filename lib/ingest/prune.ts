import { prunedMirrorCheckpoint } from '@/lib/domain/mirror-checkpoint';
import type { DeleteOptions, EventStore } from '@/lib/store/types';

/**
 * Retention (`events prune`): deletes the org's events created before
 * `before` (ms), counters kept exact, and returns how many went.
 *
 * Every mirror checkpoint of the org is told first that its copy now
 * starts there: otherwise a later undo (which winds a checkpoint back to
 * the oldest event it removed) or a walk under way would copy the pruned
 * events back. Told before deleting, so a prune stopped midway has said so
 * too; a mirror running meanwhile finds its checkpoint changed and walks on
 * from the stored one.
 */
export async function pruneEvents(
  store: EventStore,
  orgId: string,
  before: number,
  options: DeleteOptions = {},
): Promise<number> {
  await store.rewriteMirrorCheckpoints(orgId, (state) => prunedMirrorCheckpoint(state, before));
  return store.deleteEvents(orgId, { before }, options);
}
