import {
  categoryOf,
  eventCategories,
  eventTypeLabel,
  isCatalogedEventType,
} from '@/lib/domain/catalog';
import { requireReadableOrg, type RouteContext, type RouteResult } from './context';
import { storeFilter } from './events';
import { selfLink } from './links';
import { parseFilterParams } from './params';
import { API_PREFIX } from './types';

/** The category of types present in the data but in no catalogue category of the variant. */
export const OTHER_CATEGORY = 'Other';

export type EventTypeEntry = {
  eventTypeName: string;
  label: string;
  category: string;
  count: number;
};

/**
 * The event type picker's data: every type the variant catalogues plus every
 * type present in the org's events, with its count (0 when absent), sorted by
 * name; and the categories (catalogue order, "Other" last) naming each type
 * exactly once.
 */
export function buildEventTypes(
  variant: Parameters<typeof eventCategories>[0],
  counts: readonly { eventTypeName: string; count: number }[],
): { results: EventTypeEntry[]; categories: { name: string; types: string[] }[] } {
  const countByType = new Map(counts.map((c) => [c.eventTypeName, c.count]));
  const categoryNames = eventCategories(variant).map((c) => c.name);
  const names = new Set<string>(countByType.keys());
  for (const category of eventCategories(variant))
    for (const type of category.types) names.add(type);

  const results = [...names].sort().map((eventTypeName) => ({
    eventTypeName,
    label: eventTypeLabel(eventTypeName),
    category: isCatalogedEventType(eventTypeName, variant)
      ? (categoryOf(eventTypeName)?.name ?? OTHER_CATEGORY)
      : OTHER_CATEGORY,
    count: countByType.get(eventTypeName) ?? 0,
  }));

  const byCategory = new Map<string, string[]>();
  for (const name of [...categoryNames, OTHER_CATEGORY]) byCategory.set(name, []);
  for (const entry of results) byCategory.get(entry.category)?.push(entry.eventTypeName);
  const categories = [...byCategory]
    .filter(([, types]) => types.length > 0)
    .map(([name, types]) => ({ name, types }));
  return { results, categories };
}

// GET /orgs/{orgId}/eventTypes – catalogue and per-type counts for the org (extension).
export async function listEventTypes(ctx: RouteContext, orgId: string): Promise<RouteResult> {
  await requireReadableOrg(ctx, orgId);
  const filter = storeFilter(orgId, parseFilterParams(ctx.params));
  // Counted under the date range and field filters, not eventType/excludeEventType (the picker's own).
  const counts = await ctx.store.eventTypeCounts(orgId, filter);
  const { results, categories } = buildEventTypes(ctx.config.EVENTS_VARIANT, counts);
  const links = selfLink(`${ctx.base}${API_PREFIX}/orgs/${orgId}/eventTypes`, ctx.params);
  return {
    json: JSON.stringify({ links, results, categories, totalCount: results.length }),
    shape: 'list',
  };
}
