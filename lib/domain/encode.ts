import { parseDateTime } from './dates';
import * as event from './event';
import { type EventInput, formatCreated, type NewEvent } from './event';
import * as filters from './filters';
import * as jsonText from './json-text';
import { MAX_EVENT_NESTING } from './limits';
import { hasLoneSurrogate } from './utf8';
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
  hasControlCharacter,
  isNullText,
} = jsonText;
const { FILTER_FIELDS, MAX_INDEXED_VALUE_LENGTH, isIndexable } = filters;
const { checkFieldText, EXCLUSIVE_FIELDS, FIELD_KIND_OF } = event;

/** One checker for every record read (they are read one at a time). */
const CHECKER = new jsonText.CompactJsonChecker();

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
  return cutCompact(orgId, source, undefined);
}

/**
 * An import's record encoded straight from its text, never parsed: what
 * JSON.parse, isValidEventInput, encodeEvent and fieldValues together make
 * of it (lib/ingest/import.ts, toNewEvent), when the record has the shape
 * cutCompactSorted takes and is a valid event. Undefined otherwise (not
 * valid JSON, an invalid event, another shape, another org's record without
 * `rehome`): the caller then takes that general path, which also says what
 * is wrong. One pass over the text checks its JSON syntax, each known
 * field's kind and cuts the document: parsing records the cut walked
 * anyway (JSON.parse, then each parsed record's garbage) was the largest
 * part of an import's reading thread. lib/ingest/import.test.ts holds it to
 * the general path on valid and broken records.
 */
export function encodeRecordText(
  orgId: string,
  source: string,
  rehome: boolean,
): NewEvent | undefined {
  const facts: RecordFacts = {
    rehome,
    id: undefined,
    created: undefined,
    eventTypeName: undefined,
    fieldValues: new Array<string | undefined>(FILTER_FIELDS.length).fill(undefined),
    exclusive: 0,
  };
  // The general path says why.
  if (jsonText.nestsDeeperThan(source, MAX_EVENT_NESTING)) return undefined;
  if (hasLoneSurrogate(source)) return undefined;
  let cut: { doc: string; raw: string | null } | undefined;
  try {
    cut = cutCompact(orgId, source, facts);
  } catch {
    // A member's JSON.parse cannot fail on text the checker passed; were it
    // to, the general path would answer for the record.
    return undefined;
  }
  if (cut === undefined) return undefined;
  const { id, eventTypeName } = facts;
  if (id === undefined || facts.created === undefined || eventTypeName === undefined) {
    return undefined;
  }
  // Both of an exclusive pair present and non-null.
  for (const mask of EXCLUSIVE_MASKS) if ((facts.exclusive & mask) === mask) return undefined;
  const created = parseDateTime(facts.created);
  if (created === null) return undefined;
  return { id, created, eventTypeName, doc: cut.doc, raw: cut.raw, fieldValues: facts.fieldValues };
}

/** What cutCompact gathers while checking a record it reads from text alone (encodeRecordText). */
type RecordFacts = {
  rehome: boolean;
  id: string | undefined;
  /** `created` as written, unquoted (the served form: SERVED_CREATED). */
  created: string | undefined;
  eventTypeName: string | undefined;
  fieldValues: (string | undefined)[];
  /** A bit per field of EXCLUSIVE_FIELDS present with a non-null value. */
  exclusive: number;
};

/** What a top-level key means to a record read from text, looked up once per member. */
type MemberInfo = {
  /** Its kind in the event table (checkFieldText), if it has one. */
  kind: event.FieldKind | undefined;
  /** Its index in FILTER_FIELDS, if filterable. */
  field: number | undefined;
  /** Its bit in RecordFacts.exclusive (0: in no exclusive pair). */
  exclusiveBit: number;
};

const MEMBERS = new Map<string, MemberInfo>();
for (const [key, kind] of FIELD_KIND_OF)
  MEMBERS.set(key, { kind, field: undefined, exclusiveBit: 0 });
for (const [index, key] of FILTER_FIELDS.entries()) {
  const info = MEMBERS.get(key) ?? { kind: undefined, field: undefined, exclusiveBit: 0 };
  MEMBERS.set(key, { ...info, field: index });
}
for (const [pair, keys] of EXCLUSIVE_FIELDS.entries()) {
  for (const [side, key] of keys.entries()) {
    const info = MEMBERS.get(key) ?? { kind: undefined, field: undefined, exclusiveBit: 0 };
    MEMBERS.set(key, { ...info, exclusiveBit: 1 << (pair * 2 + side) });
  }
}
const EXCLUSIVE_MASKS = EXCLUSIVE_FIELDS.map((_, pair) => 3 << (pair * 2));

/**
 * The keys a record's walk knows (MEMBERS', `raw`, `links`) by length and
 * first character: a key in a record's text is compared with these where it
 * stands, and only one none of them is cut out as a new string. Each of a
 * record's ~15 keys was cut out and hashed afresh for the MEMBERS lookup; a
 * known key is now the table's own string, its hash computed once. Reading
 * and packing 500,000 events of an export (perf, samples of the thread):
 * string hashing 6.7% -> 4.4-4.8%, map probes 3.8% -> 2.4%.
 */
const KNOWN_KEYS: (readonly string[] | undefined)[] = [];
for (const key of [...MEMBERS.keys(), 'raw', 'links']) {
  const shape = keyShape(key.length, key.charCodeAt(0));
  if (shape !== -1) KNOWN_KEYS[shape] = [...(KNOWN_KEYS[shape] ?? []), key];
}

/** A slot of KNOWN_KEYS: ASCII-led keys shorter than 64 characters, the only ones it holds. */
function keyShape(length: number, firstCode: number): number {
  return length < 64 && firstCode < 128 ? length * 128 + firstCode : -1;
}

/** The key whose text is `source` from `start` to `end` (unescaped as written): a known key's own string if it is one. */
function keyAt(source: string, start: number, end: number): string {
  const shape = keyShape(end - start, source.charCodeAt(start));
  const candidates = shape === -1 ? undefined : KNOWN_KEYS[shape];
  if (candidates !== undefined) {
    for (const key of candidates) if (source.startsWith(key, start)) return key;
  }
  return source.slice(start, end);
}

/**
 * cutCompactSorted's walk. With `facts` (a record not yet parsed) it also
 * checks the JSON syntax of every value, each known field's kind
 * (checkFieldText) and orgId against `rehome`, and gathers what
 * encodeRecordText needs; undefined when any of it fails.
 */
function cutCompact(
  orgId: string,
  source: string,
  facts: RecordFacts | undefined,
): { doc: string; raw: string | null } | undefined {
  const length = source.length;
  if (source.charCodeAt(0) !== OPEN_OBJECT || source.charCodeAt(length - 1) !== CLOSE_OBJECT) {
    return undefined;
  }
  // Compact JSON holds no control character, in strings or out.
  const checker = facts && !hasControlCharacter(source) ? CHECKER.reset(source) : undefined;
  if (facts && !checker) return undefined;
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
    const keyEnd = checker ? checker.stringEnd(i) : stringEnd(source, i);
    if (keyEnd === -1) return undefined;
    const key = keyAt(source, i + 1, keyEnd - 1);
    if (key.includes('\\') || source.charCodeAt(keyEnd) !== COLON) return undefined;
    const valueStart = keyEnd + 1;
    const valueEnd = checker ? checker.valueEnd(valueStart) : compactValueEnd(source, valueStart);
    if (valueEnd === -1) return undefined;
    const next = source.charCodeAt(valueEnd);
    if (next !== COMMA && next !== CLOSE_OBJECT) return undefined;
    if (facts && !readMember(facts, key, source, valueStart, valueEnd, orgValue)) {
      return undefined;
    }
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

/**
 * One member of a record read from text (cutCompact with facts): whether it
 * passes what toNewEvent asks of it, its value noted where encodeRecordText
 * needs it. The value is `source` from `start` to `end`, valid compact JSON.
 */
function readMember(
  facts: RecordFacts,
  key: string,
  source: string,
  start: number,
  end: number,
  orgValue: string,
): boolean {
  const info = MEMBERS.get(key);
  if (info === undefined) {
    // Any value passes, but a page saved from the API is no event: the
    // import reads it as its records (innerRecords).
    return key !== 'results' && key !== 'content';
  }
  if (info.kind !== undefined && !checkFieldText(info.kind, source, start, end)) return false;
  // The three required fields passed their check as strings of their
  // pattern, unescaped: the text less its quotes is the value.
  if (key === 'id') facts.id = source.slice(start + 1, end - 1);
  else if (key === 'eventTypeName') facts.eventTypeName = source.slice(start + 1, end - 1);
  else if (key === 'created') facts.created = source.slice(start + 1, end - 1);
  else if (key === 'orgId' && !facts.rehome && !isNullText(source, start, end)) {
    // Another org's record is refused unless rehomed (the general path says so).
    if (source.slice(start, end) !== orgValue) return false;
  }
  if (info.field !== undefined && source.charCodeAt(start) === QUOTE && end - start > 2) {
    const value = source.slice(start + 1, end - 1);
    // Without an escape the text is the value: only its length can make it
    // unindexable (JSON text holds no raw U+0000 nor half a surrogate pair).
    if (!value.includes('\\')) {
      if (value.length <= MAX_INDEXED_VALUE_LENGTH) facts.fieldValues[info.field] = value;
    } else {
      const unescaped = JSON.parse(source.slice(start, end)) as string;
      if (isIndexable(unescaped)) facts.fieldValues[info.field] = unescaped;
    }
  }
  if (info.exclusiveBit !== 0 && !isNullText(source, start, end)) {
    facts.exclusive |= info.exclusiveBit;
  }
  return true;
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
