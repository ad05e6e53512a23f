import { FACET_FIELDS, type FacetField } from '@/lib/domain/filters';

/**
 * The table's column choice and density, and the facet sidebar's state, kept per user in the browser
 * (localStorage, keyed by the signed-in public key and the organization).
 * The time column stays first and always shown: it is the one kept in view
 * when the table scrolls sideways. The other columns can be hidden and moved.
 */

export const MOVABLE_COLUMNS = [
  'type',
  'actor',
  'target',
  'resource',
  'remote',
  'summary',
] as const;
export type MovableColumn = (typeof MOVABLE_COLUMNS)[number];

export const COLUMN_LABELS: Record<MovableColumn, string> = {
  type: 'Event type',
  actor: 'Actor',
  target: 'Target',
  resource: 'Project / cluster / host',
  remote: 'Remote address',
  summary: 'Summary',
};

export type Density = 'comfortable' | 'compact';

export type TablePrefs = {
  /** Every movable column once, in display order. */
  order: MovableColumn[];
  hidden: MovableColumn[];
  density: Density;
  /** Whether the facet sidebar is shown (wide screens; narrow ones open it as a sheet). */
  facetsOpen: boolean;
  /** Facet sections folded shut. */
  collapsedFacets: FacetField[];
};

export const DEFAULT_TABLE_PREFS: TablePrefs = {
  order: [...MOVABLE_COLUMNS],
  hidden: [],
  density: 'comfortable',
  facetsOpen: true,
  collapsedFacets: [],
};

const isFacetField = (value: unknown): value is FacetField =>
  typeof value === 'string' && (FACET_FIELDS as readonly string[]).includes(value);

const isMovable = (value: unknown): value is MovableColumn =>
  typeof value === 'string' && (MOVABLE_COLUMNS as readonly string[]).includes(value);

/** Reads prefs from anything (stored JSON, a saved view): unknown bits become defaults. */
export function normalizeTablePrefs(input: unknown): TablePrefs {
  if (!input || typeof input !== 'object') return DEFAULT_TABLE_PREFS;
  const raw = input as {
    order?: unknown;
    hidden?: unknown;
    density?: unknown;
    facetsOpen?: unknown;
    collapsedFacets?: unknown;
  };
  const order = Array.isArray(raw.order) ? [...new Set(raw.order.filter(isMovable))] : [];
  for (const column of MOVABLE_COLUMNS) if (!order.includes(column)) order.push(column);
  const hidden = Array.isArray(raw.hidden) ? [...new Set(raw.hidden.filter(isMovable))] : [];
  const collapsedFacets = Array.isArray(raw.collapsedFacets)
    ? [...new Set(raw.collapsedFacets.filter(isFacetField))]
    : [];
  return {
    order,
    hidden,
    density: raw.density === 'compact' ? 'compact' : 'comfortable',
    facetsOpen: raw.facetsOpen !== false,
    collapsedFacets,
  };
}

export function tablePrefsKey(publicKey: string, orgId: string): string {
  return `org-events:table:${publicKey}:${orgId}`;
}

// The stored prefs as an external store for useSyncExternalStore: the same
// object while the stored text is unchanged, so React sees no change.
const memory = new Map<string, string>();
let cached: { key: string; text: string | null; prefs: TablePrefs } | undefined;
const listeners = new Set<() => void>();

function readText(key: string): string | null {
  try {
    return window.localStorage.getItem(key) ?? memory.get(key) ?? null;
  } catch {
    return memory.get(key) ?? null;
  }
}

export function loadTablePrefs(key: string): TablePrefs {
  const text = readText(key);
  if (cached?.key === key && cached.text === text) return cached.prefs;
  let prefs = DEFAULT_TABLE_PREFS;
  try {
    prefs = text ? normalizeTablePrefs(JSON.parse(text)) : DEFAULT_TABLE_PREFS;
  } catch {
    prefs = DEFAULT_TABLE_PREFS;
  }
  cached = { key, text, prefs };
  return prefs;
}

export function saveTablePrefs(key: string, prefs: TablePrefs): void {
  const text = JSON.stringify(prefs);
  memory.set(key, text);
  try {
    window.localStorage.setItem(key, text);
  } catch {
    // Private mode or a full quota: the choice lasts for this page only.
  }
  listeners.forEach((notify) => notify());
}

/** Subscribes to changes made here and in other tabs (storage events). */
export function subscribeTablePrefs(listener: () => void): () => void {
  listeners.add(listener);
  window.addEventListener('storage', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

/** Moves a column one place left (-1) or right (+1) in the order. */
export function moveColumn(order: readonly MovableColumn[], column: MovableColumn, by: -1 | 1) {
  const next = [...order];
  const index = next.indexOf(column);
  const target = index + by;
  if (index < 0 || target < 0 || target >= next.length) return next;
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}
