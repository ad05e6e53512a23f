import { parseDateTime } from './dates';
import { type EventInput, formatCreated, type NewEvent } from './event';

/**
 * The canonical encoding of an event, defined once: every writer (the API's
 * tests, import, seed's guard, the store contract) and every reader that
 * re-serializes a document (the API dropping hosted-only fields) goes through
 * here, so a document has exactly one byte form wherever it was made.
 *
 * Canonical means: compact JSON (JSON.stringify without indentation) whose
 * object keys are sorted, at every depth, in JavaScript's default sort order
 * (UTF-16 code units); arrays keep their order. One exception comes from
 * JavaScript objects themselves: integer-like keys ("2", "10") always come
 * first, in numeric order. Event fields never have such names, and the
 * stored documents were written this way from the start, so it stays.
 */

/** Compact JSON with keys sorted, recursively: one canonical text per document. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(withSortedKeys(value));
}

/**
 * A copy of a JSON value whose objects hold their keys in sorted order, so a
 * single JSON.stringify writes canonical text. Sorting first and stringifying
 * once is about twice as fast as a JSON.stringify replacer (a callback per
 * value), which matters on imports of millions of events. Only arrays and
 * plain objects are rebuilt; anything else (a Date, say) is left for
 * JSON.stringify to convert as it would anyway.
 */
function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (isPlainObject(value)) {
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) sorted[key] = withSortedKeys(value[key]);
    return sorted;
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Turns a validated event into its stored form for one organization: the
 * org id is forced to the owning org, `created` is normalized to UTC, and the
 * public fields (all but `raw` and `links`) become one canonical JSON
 * document. `raw` is kept as the sender wrote it (its own key order), as JSON.
 */
export function encodeEvent(orgId: string, input: EventInput): NewEvent {
  const source = input as Record<string, unknown>;
  const created = parseDateTime(input.created)!;
  // The top level is built here, already sorted, rather than copied with
  // orgId and created replaced and then sorted again.
  const keys = Object.keys(source);
  if (!Object.prototype.hasOwnProperty.call(source, 'orgId')) keys.push('orgId');
  keys.sort();
  const doc: Record<string, unknown> = {};
  for (const key of keys) {
    if (key === 'raw' || key === 'links') continue;
    const value = source[key];
    doc[key] =
      key === 'orgId'
        ? orgId
        : key === 'created'
          ? formatCreated(created)
          : typeof value === 'object'
            ? withSortedKeys(value)
            : value;
  }
  const raw = input.raw;
  return {
    id: input.id,
    created,
    eventTypeName: input.eventTypeName,
    doc: JSON.stringify(doc),
    raw: raw === undefined || raw === null ? null : JSON.stringify(raw),
  };
}
