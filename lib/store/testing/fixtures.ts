import { encodeEvent } from '@/lib/domain/encode';
import type { EventInput, NewEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';

/**
 * `count` JOINED_ORG events of `orgId`, one a minute from `from` (default
 * 2026-01-01), each id minted at its own time; `extra(i)` adds fields.
 * The plain fixture of store tests that need rows, not variety.
 */
export function eventsOneMinuteApart(
  orgId: string,
  count: number,
  {
    from = Date.UTC(2026, 0, 1),
    extra,
  }: { from?: number; extra?: (i: number) => Partial<EventInput> } = {},
): NewEvent[] {
  return Array.from({ length: count }, (_, i) => {
    const created = from + i * 60_000;
    return encodeEvent(orgId, {
      id: objectIdAt(created, i.toString(16).padStart(16, '0')),
      created: new Date(created).toISOString(),
      eventTypeName: 'JOINED_ORG',
      ...extra?.(i),
    });
  });
}
