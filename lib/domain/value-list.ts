/**
 * The one rule for a list of values in one filter parameter (`collection=a,b`),
 * shared by the API's parser (query.ts), the dashboard's URL
 * (lib/client/url-state.ts) and its query bar (lib/client/query-syntax.ts):
 *
 *   - an unescaped `,` separates values (any of them matches);
 *   - `\,` is a literal comma and `\\` a literal backslash;
 *   - any other backslash is literal (`DOMAIN\user` needs no escaping);
 *   - each value's surrounding whitespace is dropped (`a, b` is `a` and `b`),
 *     so a value that starts or ends with whitespace cannot be named.
 *
 * So `CN=Alice\,OU=Eng,bob` is two values, `CN=Alice,OU=Eng` and `bob`.
 * Pure and dependency-free: the browser bundle takes it without the schemas.
 */

/** The values of one parameter value: split, trimmed, unescaped; empty items kept (callers refuse or drop them). */
export function splitValueList(text: string): string[] {
  const items: string[] = [];
  let raw = '';
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    const next = text[i + 1];
    if (char === '\\' && (next === ',' || next === '\\')) {
      raw += char + next;
      i += 1;
    } else if (char === ',') {
      items.push(unescapeItem(raw));
      raw = '';
    } else {
      raw += char;
    }
  }
  items.push(unescapeItem(raw));
  return items;
}

/** One item: trimmed while still escaped (an escaped comma is not whitespace), then unescaped. */
function unescapeItem(raw: string): string {
  return raw.trim().replace(/\\([\\,])/g, '$1');
}

/**
 * A value as one item of a list: commas escaped, and a backslash escaped only
 * where it would otherwise be read as an escape (before `\` or `,`, or last,
 * where a separating comma may follow). `DOMAIN\user` stays as it is.
 */
export function escapeValue(value: string): string {
  return value.replace(/\\(?=[\\,]|$)/g, '\\\\').replace(/,/g, '\\,');
}

/** Values as one parameter value; splitValueList reads them back (values without surrounding whitespace). */
export function joinValueList(values: readonly string[]): string {
  return values.map(escapeValue).join(',');
}
