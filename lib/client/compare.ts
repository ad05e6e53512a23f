import type { JsonSource } from '@/lib/domain/json-text';

/**
 * Two events side by side: every field of either, flattened to dotted paths
 * (`currentValue.number`, `raw.seq`), aligned by path, with whether the two
 * differ. Fields that every event has by nature (id, created, links) are
 * compared too: differing there is expected and shown as such. Documents are
 * compared as written (their source trees): 9007199254740993 and
 * 9007199254740992, which JSON.parse makes one number, differ.
 */

export type CompareRow = {
  path: string;
  left: string | null;
  right: string | null;
  differs: boolean;
};

function flatten(node: JsonSource, prefix: string, out: Map<string, string>): void {
  if (node.kind === 'object' || node.kind === 'array') {
    // A repeated key counts once, its last value, as for JSON.parse: an
    // earlier value's paths would be fields the document does not have.
    const entries =
      node.kind === 'array'
        ? node.items.map((item, index) => [String(index), item] as const)
        : [...new Map(node.members.map((member) => [member.key, member.value]))];
    if (entries.length === 0) {
      out.set(prefix, node.kind === 'array' ? '[]' : '{}');
      return;
    }
    for (const [key, item] of entries) flatten(item, prefix ? `${prefix}.${key}` : key, out);
    return;
  }
  // A string by its value ("\u00e9" and "é" are one string), anything else as written.
  out.set(
    prefix,
    node.kind === 'string' ? JSON.stringify(JSON.parse(node.text) as string) : node.text,
  );
}

export function flattenDocument(node: JsonSource): Map<string, string> {
  const out = new Map<string, string>();
  flatten(node, '', out);
  return out;
}

/** The aligned rows of two documents, in a stable order: left's paths first, then right's. */
export function compareDocuments(left: JsonSource, right: JsonSource): CompareRow[] {
  const a = flattenDocument(left);
  const b = flattenDocument(right);
  const paths = [...a.keys(), ...[...b.keys()].filter((path) => !a.has(path))];
  return paths.map((path) => {
    const l = a.get(path) ?? null;
    const r = b.get(path) ?? null;
    return { path, left: l, right: r, differs: l !== r };
  });
}
