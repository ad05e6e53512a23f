/**
 * A lone surrogate: decoding UTF-8 never yields one, so in decoded text it
 * can only mark where the bytes were no UTF-8 (decodeMarkingInvalid).
 */
export const NOT_UTF8 = '\udfff';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `bytes` as text, each byte that begins no well-formed UTF-8 sequence
 * replaced by NOT_UTF8. Decoding with U+FFFD (Buffer's toString) made text
 * the source never sent look like text it did: a copy kept "as served"
 * would differ from its source and nothing would say so. Well-formed input
 * (all of it, in practice) is decoded at once; the byte-by-byte walk runs
 * only once a strict decoding has failed.
 */
export function decodeMarkingInvalid(bytes: Buffer): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Marked below.
  }
  let text = '';
  let from = 0;
  let at = 0;
  while (at < bytes.length) {
    // A character cut short by the end is no UTF-8 either: the body is whole.
    const length = sequenceLength(bytes, at);
    if (length > 0) {
      at += length;
      continue;
    }
    text += bytes.toString('utf8', from, at) + NOT_UTF8;
    at++;
    from = at;
  }
  return text + bytes.toString('utf8', from, at);
}

/**
 * Where in `bytes`, from `from`, the first byte lies that begins no
 * well-formed UTF-8 sequence; `bytes.length` if none. A character the end
 * cuts short is not counted: more bytes follow (a stream read in parts).
 * Linear: each byte is looked at once.
 */
export function firstNotUtf8(bytes: Buffer, from = 0): number {
  let at = from;
  while (at < bytes.length) {
    const length = sequenceLength(bytes, at);
    if (length === 0) return at;
    if (length < 0) return bytes.length;
    at += length;
  }
  return at;
}

/**
 * The length of the well-formed UTF-8 sequence at `at` (Unicode's table
 * 3-7: no overlong forms, no surrogates, nothing past U+10FFFF); -1 when
 * the bytes end within one that is well-formed so far; 0 when none begins.
 */
function sequenceLength(bytes: Buffer, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    if (lead === 0xf4) high = 0x8f;
  } else return 0;
  for (let i = 1; i < length; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) return -1;
    if (byte < (i === 1 ? low : 0x80) || byte > (i === 1 ? high : 0xbf)) return 0;
  }
  return length;
}

const BACKSLASH = 0x5c;
const LETTER_U = 0x75;

/** The UTF-16 unit of the four hex digits at `at` (NaN when they are not hex). */
function hexUnit(text: string, at: number): number {
  return Number.parseInt(text.slice(at, at + 4), 16);
}

/**
 * Whether JSON text holds half a UTF-16 surrogate pair: raw, or as an
 * escape (`"\ud800"` without a `\udc00`–`\udfff` escape right after). Such
 * a string is valid JSON but no Unicode text: the real service (its strings
 * are UTF-8) never serves one, and stored, it broke the dashboard's
 * hydration (React #418) and search. Cheap enough for every record of an
 * import: one native well-formedness pass, then only the text's escapes
 * are looked at (most records have none). Only strings hold backslashes in
 * valid JSON, so each is the start of an escape.
 */
export function hasLoneSurrogate(json: string): boolean {
  if (!json.isWellFormed()) return true;
  for (let i = json.indexOf('\\'); i !== -1; i = json.indexOf('\\', i)) {
    if (json.charCodeAt(i + 1) !== LETTER_U) {
      i += 2; // `\\`, `\"`, `\n`…: the escaped character is no escape's start
      continue;
    }
    const unit = hexUnit(json, i + 2);
    i += 6;
    if (!(unit >= 0xd800 && unit <= 0xdfff)) continue;
    if (unit >= 0xdc00) return true; // a low half with no high one before it
    if (json.charCodeAt(i) !== BACKSLASH || json.charCodeAt(i + 1) !== LETTER_U) return true;
    const low = hexUnit(json, i + 2);
    if (!(low >= 0xdc00 && low <= 0xdfff)) return true;
    i += 6;
  }
  return false;
}

/** Why a record holding half a surrogate pair (hasLoneSurrogate) is refused. */
export const LONE_SURROGATE =
  'Not Unicode text: a string holds half a UTF-16 surrogate pair (an escape \\ud800–\\udfff without its other half), which no UTF-8 source serves';
