/**
 * Two events side by side: every field of either, flattened to dotted paths
 * (`currentValue.number`, `raw.seq`), aligned by path, with whether the two
 * differ. Fields that every event has by nature (id, created, links) are
 * compared too: differing there is expected and shown as such.
 */

export type CompareRow = {
  path: string;
  left: string | null;
  right: string | null;
  differs: boolean;
};

function flatten(value: unknown, prefix: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) {
      out.set(prefix, Array.isArray(value) ? '[]' : '{}');
      return;
    }
    for (const [key, item] of entries) flatten(item, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  out.set(prefix, value === undefined ? 'undefined' : JSON.stringify(value));
}

export function flattenDocument(value: unknown): Map<string, string> {
  const out = new Map<string, string>();
  flatten(value, '', out);
  return out;
}

/** The aligned rows of two documents, in a stable order: left's paths first, then right's. */
export function compareDocuments(left: unknown, right: unknown): CompareRow[] {
  const a = flattenDocument(left);
  const b = flattenDocument(right);
  const paths = [...a.keys(), ...[...b.keys()].filter((path) => !a.has(path))];
  return paths.map((path) => {
    const l = a.get(path) ?? null;
    const r = b.get(path) ?? null;
    return { path, left: l, right: r, differs: l !== r };
  });
}
