import { eventTypeLabel } from '@/lib/domain/catalog';
import {
  type EventsView,
  RANGE_PRESETS,
  RANGE_PRESET_LABELS,
  type RangePreset,
} from '@/lib/client/url-state';
import { type Chip, filterChips } from '@/lib/client/query-syntax';
import { formatSpan, formatZonedTimestamp } from '@/lib/domain/dates';

/** An event type chip in words: its type's label, or its category's size and name. */
function typesOfChip(chip: Chip): string {
  return chip.types ? `${chip.types.length} ${chip.value} types` : eventTypeLabel(chip.value);
}

/** Names a view's filters in words, for the results line and the empty state. */
export function describeFilters(view: EventsView, zone: string): string[] {
  const parts: string[] = [];
  const chips = filterChips(view);
  // Included types as the bar's chips group them: a category chosen whole
  // named 78 types one by one, thirteen lines above the table.
  const included = chips.filter((chip) => chip.key === 'eventType' && !chip.negate);
  if (included.length) {
    parts.push(`event type ${included.map(typesOfChip).join(', ')}`);
  }
  for (const chip of chips) {
    if (chip.key === 'eventType' && !chip.negate) continue;
    if (chip.key !== 'eventType') parts.push(chip.text);
    else parts.push(`not ${typesOfChip(chip)}`);
  }
  if (view.range) parts.push(RANGE_PRESET_LABELS[view.range].toLowerCase());
  const at = (millis: number) => formatZonedTimestamp(millis, zone);
  // The end as a range's end is read: the first instant past it. A "to"
  // is the last millisecond it covers (maxDate), so bars picked up to 11:30
  // (to=11:29, all of that minute) read "to 11:30:00", what the histogram
  // showed and the list asked for.
  const end = (to: number) => at(to + 1);
  if (!view.range && view.from !== null && view.to !== null) {
    // Both ends with their offsets, and, where the clocks go back between
    // them, how long the range is: "from 01:30:00 UTC-04:00 to 01:10:00
    // UTC-05:00" is 40 minutes, though it reads as going backwards.
    const span = formatSpan(view.from, view.to + 1, zone, true);
    parts.push(`from ${span.start} to ${span.end}${span.note ? ` (${span.note})` : ''}`);
  } else if (!view.range && view.from !== null) {
    parts.push(`from ${at(view.from)}`);
  } else if (!view.range && view.to !== null) {
    parts.push(`until ${end(view.to)}`);
  }
  return parts;
}

/**
 * A view's filters as a phrase after "N events" or "No events": "with"
 * before the field filters, the dates as they read ("in the last 24 hours",
 * "from … to …", "until …"): "with event type Joined org in the last 24
 * hours". Empty with no filters.
 */
export function describeFiltersPhrase(view: EventsView, zone: string): string {
  const parts = describeFilters(view, zone);
  const dates = view.range || view.from !== null || view.to !== null ? parts.pop()! : null;
  const when = view.range ? `in the ${dates!}` : dates;
  return [parts.length ? `with ${parts.join(', ')}` : null, when].filter(Boolean).join(' ');
}

/** The next wider preset, for "widen the date range" in the empty state. */
export function widerRange(range: RangePreset): RangePreset | null {
  return RANGE_PRESETS[RANGE_PRESETS.indexOf(range) + 1] ?? null;
}
