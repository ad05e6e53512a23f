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
 * The length of the well-formed UTF-8 sequence at `at` (Unicode's table
 * 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or 0.
 */
function sequenceLength(bytes: Buffer, at: number): number {
  const lead = bytes[at]!;
  if (lead < 0x80) return 1;
  const next = (i: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[at + i];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (lead >= 0xc2 && lead <= 0xdf) return next(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return next(1, low, high) && next(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return next(1, low, high) && next(2) && next(3) ? 4 : 0;
  }
  return 0;
}
