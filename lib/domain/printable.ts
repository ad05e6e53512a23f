/**
 * Characters a terminal obeys or draws as nothing rather than shows: control
 * characters (C0, DEL, C1), line and paragraph separators, bidirectional
 * controls, zero-width characters. An imported or mirrored event's username
 * holding ESC [2J cleared the operator's screen, a newline or carriage return
 * in it drew a fake row, a right-to-left override turned "gnp.exe" around.
 */
const UNPRINTABLE_CHARACTER =
  // eslint-disable-next-line no-control-regex -- control characters are the point
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;
const UNPRINTABLE = new RegExp(UNPRINTABLE_CHARACTER.source, 'g');
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Whether `text` holds a character printable() would escape. */
export function hasUnprintable(text: string): boolean {
  return UNPRINTABLE_CHARACTER.test(text);
}

/** The text with every unprintable character written as its JSON-style escape (\n, \u001b). */
export function printable(text: string): string {
  return text.replace(
    UNPRINTABLE,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
