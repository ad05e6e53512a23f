import { parseDateTime } from './dates';
import { type EventInput, formatCreated, type NewEvent } from './event';
import * as jsonText from './json-text';
import type { JsonMember } from './json-text';

// Module-level copies, read once: under tsx (how the CLI's bulk loads run)
// every use of an imported binding is a getter call on the exporting module,
// and the per-member checks of cutCompactSorted make many (in the splitter of
// lib/ingest/json-stream.ts such calls were a quarter of a parsing thread).
const {
  CLOSE_OBJECT,
  COLON,
  COMMA,
  compactValueEnd,
  OPEN_OBJECT,
  objectMembers,
  QUOTE,
  stringEnd,
} = jsonText;

/**
 * The encoding of an event, defined once: every writer (import, seed, the
 * API's tests, the store contract) goes through here, so a stored document
 * has one form wherever it was made: compact JSON whose top-level keys are
 * sorted in JavaScript's default order (UTF-16 code units), the order the
 * real service writes its fields in.
 *
 * Values below the top level are the sender's when there is one (an import
 * keeps each record's own text: see encodeEvent). Objects made in code
 * (seed, tests) are written by canonicalJson: keys sorted at every depth,
 * integer-like keys ("2", "10") first as JavaScript objects always hold them.
 * The API never re-serializes a stored document (lib/domain/json-text.ts
 * splices text), so what was stored is what is served.
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
 * public fields (all but `raw` and `links`) become one JSON document with its
 * top-level keys sorted.
 *
 * With `source`, the record's own JSON text (an import), the document and
 * `raw` are cut from that text, never re-serialized: every value keeps the
 * sender's bytes (9007199254740993 stays so, 1.0 stays 1.0, nested keys keep
 * their order), only whitespace outside strings is dropped and the top-level
 * keys are sorted. Without it (objects made in code: seed, tests) nested
 * objects are sorted too, which is the same text for the sorted objects
 * those writers make.
 */
export function encodeEvent(orgId: string, input: EventInput, source?: string): NewEvent {
  const created = parseDateTime(input.created)!;
  if (source !== undefined) return encodeFromText(orgId, input, created, source);
  const fields = input as Record<string, unknown>;
  // The top level is built here, already sorted, rather than copied with
  // orgId and created replaced and then sorted again.
  const keys = Object.keys(fields);
  if (!Object.prototype.hasOwnProperty.call(fields, 'orgId')) keys.push('orgId');
  keys.sort();
  const doc: Record<string, unknown> = {};
  for (const key of keys) {
    if (key === 'raw' || key === 'links') continue;
    const value = fields[key];
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

/**
 * A record whose text names one top-level key twice: JSON.parse keeps the
 * last silently, so what was validated is not what the text says.
 */
export class RepeatedKeyError extends Error {
  constructor(readonly key: string) {
    super(`${JSON.stringify(key)} appears more than once`);
    this.name = 'RepeatedKeyError';
  }
}

const ORG_KEY = '"orgId":';

/** `created` as formatCreated writes it (UTC, seconds, milliseconds only when not zero), quoted. */
const SERVED_CREATED = /^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(?!000)\d{3})?Z"$/;

function byKey(a: JsonMember, b: JsonMember): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

function encodeFromText(
  orgId: string,
  input: EventInput,
  created: number,
  source: string,
): NewEvent {
  const fast = cutCompactSorted(orgId, source);
  return fast
    ? { id: input.id, created, eventTypeName: input.eventTypeName, doc: fast.doc, raw: fast.raw }
    : encodeFromMembers(orgId, input, created, source);
}

/**
 * The document and raw cut straight from a record that already has the
 * stored form's shape, the common case (the real service and every export
 * write compact JSON with the public keys in order): compact, the public
 * keys strictly ascending wherever `raw` and `links` sit, an `orgId`,
 * `created` in the served form. The document is then the record's own text
 * less `raw` and `links`, copied in a few slices, with this org's id in place
 * of another's (a rehomed import: most imports and mirrors into an org of
 * another id, which the general path took until 2026-11 at twice the cost).
 * Undefined when any of that does not hold; encodeFromMembers then does the
 * general work (and reports what is wrong). Exported for its test, which
 * holds it to encodeFromMembers' answer.
 */
export function cutCompactSorted(
  orgId: string,
  source: string,
): { doc: string; raw: string | null } | undefined {
  const length = source.length;
  if (source.charCodeAt(0) !== OPEN_OBJECT || source.charCodeAt(length - 1) !== CLOSE_OBJECT) {
    return undefined;
  }
  const runs: string[] = [];
  const orgValue = JSON.stringify(orgId);
  let runStart = -1;
  let runEnd = -1;
  let previousKey = '';
  let raw: string | null | undefined;
  let hasLinks = false;
  let hasOrg = false;
  let i = 1;
  if (source.charCodeAt(i) === CLOSE_OBJECT) return undefined;
  for (;;) {
    const memberStart = i;
    if (source.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = stringEnd(source, i);
    const key = source.slice(i + 1, keyEnd - 1);
    if (key.includes('\\') || source.charCodeAt(keyEnd) !== COLON) return undefined;
    const valueStart = keyEnd + 1;
    const valueEnd = compactValueEnd(source, valueStart);
    if (valueEnd === -1) return undefined;
    const next = source.charCodeAt(valueEnd);
    if (next !== COMMA && next !== CLOSE_OBJECT) return undefined;
    if (key === 'raw' || key === 'links') {
      if (key === 'raw') {
        if (raw !== undefined) return undefined; // repeated: the general path says so
        const value = source.slice(valueStart, valueEnd);
        raw = value === 'null' ? null : value;
      } else {
        if (hasLinks) return undefined;
        hasLinks = true;
      }
      if (runStart !== -1) runs.push(source.slice(runStart, runEnd));
      runStart = -1;
    } else {
      if (key <= previousKey) return undefined; // out of order, or repeated
      previousKey = key;
      let kept = true;
      if (key === 'orgId') {
        hasOrg = true;
        // Another org's (a rehomed import): this org's member in its place.
        kept = source.slice(valueStart, valueEnd) === orgValue;
      } else if (key === 'created' && !SERVED_CREATED.test(source.slice(valueStart, valueEnd))) {
        return undefined;
      }
      if (kept) {
        if (runStart === -1) runStart = memberStart;
        runEnd = valueEnd;
      } else {
        if (runStart !== -1) runs.push(source.slice(runStart, runEnd));
        runs.push(`${ORG_KEY}${orgValue}`);
        runStart = -1;
      }
    }
    if (next === CLOSE_OBJECT) {
      if (valueEnd !== length - 1) return undefined;
      break;
    }
    i = valueEnd + 1;
  }
  if (!hasOrg) return undefined;
  if (runStart !== -1) runs.push(source.slice(runStart, runEnd));
  return { doc: `{${runs.join(',')}}`, raw: raw ?? null };
}

/** The general path: every member cut out, compacted, sorted, and orgId and created put right. */
export function encodeFromMembers(
  orgId: string,
  input: EventInput,
  created: number,
  source: string,
): NewEvent {
  const members = objectMembers(source).sort(byKey);
  const parts: string[] = [];
  let raw: string | null = null;
  let hasOrg = false;
  const orgMember = `${ORG_KEY}${JSON.stringify(orgId)}`;
  for (let m = 0; m < members.length; m++) {
    const member = members[m]!;
    const key = member.key;
    if (m > 0 && members[m - 1]!.key === key) throw new RepeatedKeyError(key);
    if (key === 'raw') {
      raw = member.value === 'null' ? null : member.value;
      continue;
    }
    if (key === 'links') continue;
    if (key === 'orgId') {
      hasOrg = true;
      parts.push(orgMember);
    } else if (key === 'created') {
      // Already in the served form (the real service's): kept, not rewritten.
      const value = SERVED_CREATED.test(member.value)
        ? member.value
        : JSON.stringify(formatCreated(created));
      parts.push(`"created":${value}`);
    } else {
      if (!hasOrg && key > 'orgId') {
        hasOrg = true;
        parts.push(orgMember);
      }
      parts.push(`${member.keyText}:${member.value}`);
    }
  }
  if (!hasOrg) parts.push(orgMember);
  return {
    id: input.id,
    created,
    eventTypeName: input.eventTypeName,
    doc: `{${parts.join(',')}}`,
    raw,
  };
}
