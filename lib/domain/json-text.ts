/**
 * Operations on JSON *text* that never parse values: a number keeps its
 * digits (9007199254740993, 1.0), an object keeps its key order and escapes
 * stay as written. Imports keep the source's own bytes this way, and
 * responses are spliced from stored text. Every function expects text that
 * is already known to be valid JSON (JSON.parse accepted it, or this module
 * or JSON.stringify wrote it): they check structure only as far as they need.
 */

// Character codes of JSON's structure, shared with the streaming splitter
// (lib/ingest/json-stream.ts).
export const QUOTE = 34;
export const BACKSLASH = 92;
export const OPEN_OBJECT = 123;
export const CLOSE_OBJECT = 125;
export const OPEN_ARRAY = 91;
export const CLOSE_ARRAY = 93;
export const COMMA = 44;
export const COLON = 58;
/**
 * U+FEFF, the byte order mark a file saved with one opens with: no part of
 * its JSON (RFC 8259 8.1 lets a parser ignore it).
 */
export const BYTE_ORDER_MARK = 0xfeff;

/** `text` without the byte order mark it may open with. */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
}

/** How many backslashes directly precede `end`, not looking before `floor`. */
export function trailingBackslashes(text: string, end: number, floor: number): number {
  let count = 0;
  for (let j = end - 1; j >= floor && text.charCodeAt(j) === BACKSLASH; j--) count++;
  return count;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The index just past the string whose opening quote is at `start`. */
export function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const close = text.indexOf('"', i);
    if (close === -1) return text.length;
    if (trailingBackslashes(text, close, start + 1) % 2 === 0) return close + 1;
    i = close + 1;
  }
}

/** The index just past the value starting at `start` (no leading whitespace). */
export function valueEnd(text: string, start: number): number {
  return scanValue(text, start, false);
}

/**
 * valueEnd for text that must be compact: the index just past the value at
 * `start`, or -1 when whitespace appears outside its strings, so the caller
 * can take the general path instead.
 */
export function compactValueEnd(text: string, start: number): number {
  return scanValue(text, start, true);
}

/**
 * valueEnd and compactValueEnd in one scan: whitespace outside strings ends a
 * number, and when `compact` it ends the scan with -1.
 */
function scanValue(text: string, start: number, compact: boolean): number {
  const c = text.charCodeAt(start);
  if (c === QUOTE) return stringEnd(text, start);
  const length = text.length;
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    let depth = 0;
    let i = start;
    while (i < length) {
      const d = text.charCodeAt(i);
      if (d === QUOTE) {
        i = stringEnd(text, i);
        continue;
      }
      if (d === OPEN_OBJECT || d === OPEN_ARRAY) depth++;
      else if (d === CLOSE_OBJECT || d === CLOSE_ARRAY) {
        depth--;
        if (depth === 0) return i + 1;
      } else if (compact && isSpace(d)) return -1;
      i++;
    }
    return compact ? -1 : length;
  }
  let i = start;
  while (i < length) {
    const d = text.charCodeAt(i);
    if (d === COMMA || d === CLOSE_OBJECT || d === CLOSE_ARRAY) break;
    if (isSpace(d)) {
      if (compact) return -1;
      break;
    }
    i++;
  }
  return i;
}

/**
 * Whether the JSON text nests objects and arrays more than `limit` levels
 * deep (brackets inside strings do not count). One scan that stops at the
 * first level past the limit.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) i = stringEnd(text, i) - 1;
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/** Whether the JSON value in `text` from `start` to `end` is `null`. */
export function isNullText(text: string, start: number, end: number): boolean {
  return end - start === 4 && text.startsWith('null', start);
}

/** Whether `text` holds a control character (U+0000 to U+001F): compact JSON never does. */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}
// eslint-disable-next-line no-control-regex -- finding raw control characters is the point
const CONTROL_CHARACTER = /[\x00-\x1f]/;

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/**
 * Checks the JSON syntax of compact values in one text, building nothing:
 * what JSON.parse accepts, less whitespace. The text must hold no control
 * character (hasControlCharacter), which a caller checks once for a whole
 * record: strings are then found by their quotes (indexOf), and only their
 * escapes are looked at. An import reads most records this way instead of
 * parsing them (lib/domain/encode.ts, encodeRecordText); json-text.test.ts
 * holds it to JSON.parse.
 */
export class CompactJsonChecker {
  private text = '';
  /** The first backslash at or after the last one passed (text.length when none). */
  private backslash = 0;

  /** Starts on a new text (no control character in it). */
  reset(text: string): this {
    this.text = text;
    this.backslash = this.nextBackslash(0);
    return this;
  }

  private nextBackslash(from: number): number {
    const at = this.text.indexOf('\\', from);
    return at === -1 ? this.text.length : at;
  }

  /** The index just past the string whose opening quote is at `start`, or -1. */
  stringEnd(start: number): number {
    const text = this.text;
    let i = start + 1;
    for (;;) {
      const close = text.indexOf('"', i);
      if (close === -1) return -1;
      if (this.backslash < i) this.backslash = this.nextBackslash(i);
      if (this.backslash > close) return close + 1;
      // An escape before the quote found: valid, and passed.
      const at = this.backslash;
      const escaped = text.charCodeAt(at + 1);
      if (escaped === 117) {
        // \uXXXX
        for (let k = at + 2; k < at + 6; k++) if (!isHexDigit(text.charCodeAt(k))) return -1;
        i = at + 6;
      } else if (
        escaped === QUOTE ||
        escaped === BACKSLASH ||
        escaped === 47 || // /
        escaped === 98 || // b
        escaped === 102 || // f
        escaped === 110 || // n
        escaped === 114 || // r
        escaped === 116 // t
      ) {
        i = at + 2;
      } else {
        return -1;
      }
    }
  }

  /**
   * The index just past the compact value at `start`, or -1 when it is not
   * valid JSON (or nests deeper than the stack: JSON.parse decides then).
   */
  valueEnd(start: number): number {
    try {
      return this.value(start);
    } catch {
      return -1;
    }
  }

  private value(start: number): number {
    const text = this.text;
    const c = text.charCodeAt(start);
    if (c === QUOTE) return this.stringEnd(start);
    if (c === OPEN_OBJECT) {
      let i = start + 1;
      if (text.charCodeAt(i) === CLOSE_OBJECT) return i + 1;
      for (;;) {
        if (text.charCodeAt(i) !== QUOTE) return -1;
        i = this.stringEnd(i);
        if (i === -1 || text.charCodeAt(i) !== COLON) return -1;
        i = this.value(i + 1);
        if (i === -1) return -1;
        const d = text.charCodeAt(i);
        if (d === CLOSE_OBJECT) return i + 1;
        if (d !== COMMA) return -1;
        i++;
      }
    }
    if (c === OPEN_ARRAY) {
      let i = start + 1;
      if (text.charCodeAt(i) === CLOSE_ARRAY) return i + 1;
      for (;;) {
        i = this.value(i);
        if (i === -1) return -1;
        const d = text.charCodeAt(i);
        if (d === CLOSE_ARRAY) return i + 1;
        if (d !== COMMA) return -1;
        i++;
      }
    }
    if (c === 116) return text.startsWith('true', start) ? start + 4 : -1;
    if (c === 102) return text.startsWith('false', start) ? start + 5 : -1;
    if (c === 110) return text.startsWith('null', start) ? start + 4 : -1;
    return numberEnd(text, start);
  }
}

/** The index just past the JSON number at `start`, or -1. */
function numberEnd(text: string, start: number): number {
  let i = start;
  if (text.charCodeAt(i) === 45) i++; // -
  let c = text.charCodeAt(i);
  if (c === 48) i++;
  else if (c >= 49 && c <= 57) while (isDigit(text.charCodeAt(++i)));
  else return -1;
  c = text.charCodeAt(i);
  if (c === 46) {
    // .
    if (!isDigit(text.charCodeAt(++i))) return -1;
    while (isDigit(text.charCodeAt(++i)));
    c = text.charCodeAt(i);
  }
  if (c === 101 || c === 69) {
    // e, E
    c = text.charCodeAt(++i);
    if (c === 43 || c === 45) c = text.charCodeAt(++i);
    if (!isDigit(c)) return -1;
    while (isDigit(text.charCodeAt(++i)));
  }
  return i;
}

/** The index of the first character from `i` on that is not JSON whitespace. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** `text` without the JSON whitespace at its end (skipSpace's mirror). */
export function withoutSpaceAtEnd(text: string): string {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** One member of an object, as text. */
export type JsonMember = {
  /** The key, decoded (what JSON.parse would make of it). */
  key: string;
  /** The key as written, quotes included. */
  keyText: string;
  /** The value as written, whitespace outside strings removed. */
  value: string;
};

/**
 * The top-level members of an object's text, in the order written. Values
 * are compacted (whitespace outside strings removed) but otherwise verbatim.
 */
export function objectMembers(text: string): JsonMember[] {
  const members: JsonMember[] = [];
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJECT) throw new Error('Expected a JSON object');
  i = skipSpace(text, i + 1);
  if (text.charCodeAt(i) === CLOSE_OBJECT) return members;
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const keyText = text.slice(i, keyEnd);
    const key = keyText.includes('\\') ? (JSON.parse(keyText) as string) : keyText.slice(1, -1);
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) throw new Error('Expected ":" in a JSON object');
    i = skipSpace(text, i + 1);
    const end = valueEnd(text, i);
    members.push({ key, keyText, value: compactJson(text.slice(i, end)) });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_OBJECT) return members;
    if (c !== COMMA) throw new Error('Expected "," or "}" in a JSON object');
    i = skipSpace(text, i + 1);
  }
}

const SPACE = /[ \n\r\t]/;

/** The same JSON without whitespace outside strings; every other byte kept. */
export function compactJson(text: string): string {
  if (!SPACE.test(text)) return text;
  let out = '';
  let from = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if (isSpace(c)) {
      out += text.slice(from, i);
      while (i < length && isSpace(text.charCodeAt(i))) i++;
      from = i;
      continue;
    }
    i++;
  }
  return out + text.slice(from);
}

/**
 * An object's text with some top-level members removed and others inserted.
 * `doc` must be compact with its keys in sorted order (a stored document);
 * each insertion lands before the first key that sorts after it, so the
 * result stays sorted. `insert` must be sorted by key.
 *
 * Every API response and export line goes through here. Keys are compared
 * where they stand in `doc` (keyOrder), not cut out first, and the result is
 * concatenated rather than collected and joined: an export's splice
 * (`links` and `raw` into 200,000 stored documents) took 2.5-2.8 µs an event
 * with two strings cut per key, 1.0 with neither.
 */
export function spliceMembers(
  doc: string,
  insert: readonly (readonly [key: string, value: string])[],
  drop?: ReadonlySet<string>,
): string {
  const dropping = drop !== undefined && drop.size > 0;
  if (insert.length === 0 && !dropping) return doc;
  let out = '{';
  let separator = '';
  let next = 0;
  // Keys before the first backslash hold no escape: compared in place.
  const backslash = doc.indexOf('\\');
  // The document's own members, walked without compacting (it is compact).
  let i = 1;
  if (doc.charCodeAt(i) !== CLOSE_OBJECT) {
    for (;;) {
      const keyEnd = stringEnd(doc, i);
      const plain = !dropping && (backslash === -1 || backslash > keyEnd);
      const key = plain ? undefined : decodedKey(doc, i, keyEnd);
      while (
        next < insert.length &&
        (key === undefined
          ? keyOrder(doc, i + 1, keyEnd - 1, insert[next]![0]) > 0
          : insert[next]![0] < key)
      ) {
        out += `${separator}${memberText(insert[next]![0], insert[next]![1])}`;
        separator = ',';
        next++;
      }
      // Nothing left to insert or drop: the rest is copied as one slice
      // rather than walked (an export splices every event this way).
      if (next === insert.length && !dropping) {
        out += `${separator}${doc.slice(i, -1)}`;
        separator = ',';
        break;
      }
      const end = valueEnd(doc, keyEnd + 1);
      if (key === undefined || !drop?.has(key)) {
        out += `${separator}${doc.slice(i, end)}`;
        separator = ',';
      }
      if (doc.charCodeAt(end) !== COMMA) break;
      i = end + 1;
    }
  }
  for (; next < insert.length; next++) {
    out += `${separator}${memberText(insert[next]![0], insert[next]![1])}`;
    separator = ',';
  }
  return `${out}}`;
}

/** The key whose quoted text is `doc` from `start` to `end`, unescaped. */
function decodedKey(doc: string, start: number, end: number): string {
  const keyText = doc.slice(start, end);
  return keyText.includes('\\') ? (JSON.parse(keyText) as string) : keyText.slice(1, -1);
}

/**
 * How the key written (without escapes) in `doc` from `start` to `end`
 * compares with `key`, as `<` orders strings (UTF-16 code units): negative,
 * zero or positive.
 */
function keyOrder(doc: string, start: number, end: number, key: string): number {
  const length = end - start;
  const common = length < key.length ? length : key.length;
  for (let k = 0; k < common; k++) {
    const difference = doc.charCodeAt(start + k) - key.charCodeAt(k);
    if (difference !== 0) return difference;
  }
  return length - key.length;
}

// Module-level rather than a closure per call: tsx (npm start) names every
// function it creates, which costs a call per closure on this hot path.
function memberText(key: string, value: string): string {
  let keyText = KEY_TEXTS.get(key);
  if (keyText === undefined) {
    keyText = `${JSON.stringify(key)}:`;
    if (KEY_TEXTS.size < KEY_TEXTS_KEPT) KEY_TEXTS.set(key, keyText);
  }
  return keyText + value;
}

/**
 * Inserted keys' quoted texts (`"links":`), made once: the keys come from
 * code (links, raw), and JSON.stringify of each for every event was a
 * thirtieth of an export's time. Bounded all the same.
 */
const KEY_TEXTS = new Map<string, string>();
const KEY_TEXTS_KEPT = 64;

/**
 * Calls `visit` with each top-level member of a compact object's text (a
 * stored document): the key decoded, and where its value's text starts and
 * ends. Reads only the structure, so a caller picking a few values out of
 * every document (the CSV export) pays no JSON.parse of the rest. `state` is
 * handed to `visit`, which can then be a module-level function rather than a
 * closure made per document.
 */
export function visitCompactMembers<State>(
  doc: string,
  visit: (state: State, key: string, valueStart: number, valueEnd: number) => void,
  state: State,
): void {
  let i = 1;
  if (doc.charCodeAt(i) === CLOSE_OBJECT) return;
  for (;;) {
    const keyEnd = stringEnd(doc, i);
    const end = valueEnd(doc, keyEnd + 1);
    visit(state, decodedKey(doc, i, keyEnd), keyEnd + 1, end);
    if (doc.charCodeAt(end) !== COMMA) return;
    i = end + 1;
  }
}

/**
 * Compact JSON re-indented as JSON.stringify(value, null, 2) would write it,
 * without parsing: numbers, escapes and key order stay as they are.
 */
export function prettyJson(text: string): string {
  let out = '';
  let indent = '\n';
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      const after = skipSpace(text, i + 1);
      if (text.charCodeAt(after) === close) {
        out += c === OPEN_OBJECT ? '{}' : '[]';
        i = after + 1;
        continue;
      }
      indent += '  ';
      out += text[i] + indent;
      i++;
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      indent = indent.slice(0, -2);
      out += indent + text[i];
      i++;
      continue;
    }
    if (c === COMMA) {
      out += `,${indent}`;
      i++;
      continue;
    }
    if (c === COLON) {
      out += ': ';
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    const end = valueEnd(text, i);
    out += text.slice(i, end);
    i = end;
  }
  return out;
}

/**
 * A JSON value as written: every node keeps its exact text, objects their
 * members in the order written (duplicates included) and scalars their
 * literal (9007199254740993, 1.0, -0.0, "\u00e9"), none of which survives
 * JSON.parse. What the dashboard shows and compares raw documents by.
 */
export type JsonSource =
  | { kind: 'object'; text: string; members: { key: string; value: JsonSource }[] }
  | { kind: 'array'; text: string; items: JsonSource[] }
  | { kind: 'string' | 'number' | 'literal'; text: string };

/** The source tree of valid JSON text (throws on text that is not). */
export function parseJsonSource(text: string): JsonSource {
  const start = skipSpace(text, 0);
  const [node, end] = sourceAt(text, start);
  if (skipSpace(text, end) !== text.length) throw new Error('Unexpected text after a JSON value');
  return node;
}

function sourceAt(text: string, start: number): [JsonSource, number] {
  const c = text.charCodeAt(start);
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
    const object = c === OPEN_OBJECT;
    const close = object ? CLOSE_OBJECT : CLOSE_ARRAY;
    const members: { key: string; value: JsonSource }[] = [];
    const items: JsonSource[] = [];
    let i = skipSpace(text, start + 1);
    if (text.charCodeAt(i) !== close) {
      for (;;) {
        let key = '';
        if (object) {
          if (text.charCodeAt(i) !== QUOTE) throw new Error('Expected a key in a JSON object');
          const keyEnd = stringEnd(text, i);
          key = JSON.parse(text.slice(i, keyEnd)) as string;
          i = skipSpace(text, keyEnd);
          if (text.charCodeAt(i) !== COLON) throw new Error('Expected ":" in a JSON object');
          i = skipSpace(text, i + 1);
        }
        const [value, end] = sourceAt(text, i);
        if (object) members.push({ key, value });
        else items.push(value);
        i = skipSpace(text, end);
        const d = text.charCodeAt(i);
        if (d === close) break;
        if (d !== COMMA) throw new Error('Expected "," or a closing bracket in JSON');
        i = skipSpace(text, i + 1);
      }
    }
    const slice = text.slice(start, i + 1);
    return [
      object ? { kind: 'object', text: slice, members } : { kind: 'array', text: slice, items },
      i + 1,
    ];
  }
  if (c === QUOTE) {
    const end = stringEnd(text, start);
    if (text.charCodeAt(end - 1) !== QUOTE || end - start < 2)
      throw new Error('Unterminated JSON string');
    return [{ kind: 'string', text: text.slice(start, end) }, end];
  }
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, start)) {
      return [{ kind: 'literal', text: literal }, start + literal.length];
    }
  }
  const end = numberEnd(text, start);
  if (end === -1) throw new Error(`Unexpected character in JSON at ${start}`);
  return [{ kind: 'number', text: text.slice(start, end) }, end];
}

/** A source node's member of that key (the last of repeated ones, as JSON.parse keeps), if an object. */
export function sourceMember(node: JsonSource, key: string): JsonSource | undefined {
  if (node.kind !== 'object') return undefined;
  for (let m = node.members.length - 1; m >= 0; m--) {
    if (node.members[m]!.key === key) return node.members[m]!.value;
  }
  return undefined;
}
