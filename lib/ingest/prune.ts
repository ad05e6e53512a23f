import { prunedMirrorCheckpoint } from '@/lib/domain/mirror-checkpoint';
import type { DeleteOptions, EventStore } from '@/lib/store/types';
import { refreshStatisticsAfterDeletion } from './refresh-statistics';

/**
 * Retention (`events prune`): deletes the org's events created before
 * `before` (ms), counters kept exact, and returns how many went; then
 * refreshes the statistics, saying why not if that fails (a committed
 * deletion is done all the same: refresh-statistics.ts).
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
): Promise<{ deleted: number; statisticsNotRefreshed?: string }> {
  await store.rewriteMirrorCheckpoints(orgId, (state) => prunedMirrorCheckpoint(state, before));
  const deleted = await store.deleteEvents(orgId, { before }, options);
  return { deleted, ...(await refreshStatisticsAfterDeletion(store, deleted)) };
}
