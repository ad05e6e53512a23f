import { errorMessage } from '@/lib/domain/errors';
import type { EventStore } from '@/lib/store/types';

/**
 * Refreshes the planner's statistics after a load whose rows have all
 * committed (store.refreshStatistics), as upkeep that may fail without
 * failing the load: an import whose 60,000 events were stored exited 1 and
 * recorded its run failed when ANALYZE then found the disk full. Until the
 * next refresh, queries may be planned as for the table before the load.
 * Returns why the refresh failed, or undefined once done.
 */
export async function refreshStatisticsAfterLoad(store: EventStore): Promise<string | undefined> {
  try {
    await store.refreshStatistics();
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

/**
 * The same after a deletion that has committed (prune, imports undo), if it
 * deleted anything: on PostgreSQL its batches rewrote counter rows, whose
 * sums read the dead versions too until a vacuum. As the fields of its
 * result, the reason only when the refresh failed.
 */
export async function refreshStatisticsAfterDeletion(
  store: EventStore,
  deleted: number,
): Promise<{ statisticsNotRefreshed?: string }> {
  const reason = deleted > 0 ? await refreshStatisticsAfterLoad(store) : undefined;
  return reason === undefined ? {} : { statisticsNotRefreshed: reason };
}
