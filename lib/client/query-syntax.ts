import {
  FILTER_FIELDS,
  type FacetField,
  type FilterField,
  MAX_FILTER_VALUES,
  MAX_Q_LENGTH,
  isExclusion,
  isCidrValue,
  parseCidr,
  parseIp,
  words,
} from '@/lib/domain/filters';
import { categoryOf, type EventCategory } from '@/lib/domain/catalog';
import { EVENT_TYPE_PATTERN } from '@/lib/domain/limits';
import { splitValueList } from '@/lib/domain/value-list';

/**
 * The dashboard's query box: `field:value` chips, typed or clicked, and the
 * filters they stand for. Pure, so the bar, the facet sidebar and the
 * click-to-filter menus share one grammar:
 *
 *   actor:alice@example.com       the actor (username, userId, publicKey or apiKeyId)
 *   type:CLUSTER_*                event types; `*` matches any run of characters
 *   -type:DATA_EXPLORER           leave these types out (the API's excludeEventType)
 *   cluster:Cluster0 ip:10.0.0.0/8 a field by alias or by its own name (clusterName:…)
 *   host:a,b                      a comma list: any of the values (`\,` a comma in
 *                                 one, `\\` a backslash, as in the URL and the API)
 *   collection:"orders,2024"      a quoted value is one value, exactly as typed
 *   "free text"  or  free text    words matched as prefixes (the API's `q`)
 *
 * Field names come from the one filter schema (FILTER_FIELDS); the aliases
 * only add short names for the most used ones.
 */

/** What a chip filters on: event types, the actor, or a field by its API name. */
export type ChipKey = 'eventType' | 'actor' | FilterField;

/** The investigation filters a view carries (the URL holds them; see url-state.ts). */
export type InvestigationFilters = {
  /** Included event types (sorted, unique). Empty: every type. */
  types: readonly string[];
  /** Event types left out (sorted, unique). */
  excludeTypes: readonly string[];
  /** Per field, the values any of which must match. */
  fields: Readonly<Partial<Record<FilterField, readonly string[]>>>;
  /** Actor values, any of which must match. */
  actor: readonly string[];
  /** Free text; every word must match. Empty: none. */
  q: string;
};

export const NO_FILTERS: InvestigationFilters = {
  types: [],
  excludeTypes: [],
  fields: {},
  actor: [],
  q: '',
};

/** Short names for common keys; each key's own name (any letter case) works too. */
export const KEY_ALIASES: Readonly<Record<string, ChipKey>> = {
  type: 'eventType',
  // The field's name in an event's JSON and in the facets.
  eventTypeName: 'eventType',
  cluster: 'clusterName',
  ip: 'remoteAddress',
  user: 'username',
  project: 'groupId',
  host: 'hostname',
  key: 'publicKey',
  target: 'targetUsername',
  db: 'database',
  op: 'opType',
  metric: 'metricName',
};

/** Every key a chip can name, in the order completion offers them. */
export const CHIP_KEYS: readonly ChipKey[] = ['eventType', 'actor', ...FILTER_FIELDS];

const KEY_BY_NAME: ReadonlyMap<string, ChipKey> = new Map([
  ...CHIP_KEYS.map((key) => [key.toLowerCase(), key] as const),
  ...Object.entries(KEY_ALIASES).map(([alias, key]) => [alias.toLowerCase(), key] as const),
]);

/** The name a chip shows: the shortest alias, or the key's own name. */
export function chipKeyName(key: ChipKey): string {
  const aliases = Object.entries(KEY_ALIASES)
    .filter(([, target]) => target === key)
    .map(([alias]) => alias);
  return aliases.sort((a, b) => a.length - b.length)[0] ?? key;
}

export function resolveChipKey(name: string): ChipKey | null {
  return KEY_BY_NAME.get(name.toLowerCase()) ?? null;
}

/** The facet that lists values for a key, when there is one. */
export function facetFieldOf(key: ChipKey): FacetField | null {
  switch (key) {
    case 'eventType':
      return 'eventTypeName';
    case 'actor':
    case 'username':
    case 'publicKey':
      return 'actor';
    case 'targetUsername':
    case 'groupId':
    case 'clusterName':
    case 'hostname':
    case 'remoteAddress':
    case 'opType':
      return key;
    default:
      return null;
  }
}

/** The key a facet's values filter on. */
export function chipKeyOfFacet(field: FacetField): ChipKey {
  if (field === 'eventTypeName') return 'eventType';
  return field;
}

// ---- tokens -----------------------------------------------------------------

export type Token =
  | {
      kind: 'field';
      name: string;
      value: string;
      /** A "quoted" value is one value as typed; a bare one is a comma list. */
      quoted: boolean;
      negate: boolean;
      source: string;
    }
  /** Free text; `quoted` when typed "in quotes", a phrase taken as it is. */
  | { kind: 'text'; text: string; quoted?: boolean }
  /** `name:value` whose name is no key: a typo more likely than text to search for. */
  | { kind: 'unknownField'; name: string; source: string };

/**
 * Splits the box's text into tokens: `-?name:value` (the value possibly
 * "quoted"), "quoted text" and bare words. A word with a colon that cannot
 * be a field (a URL, an IPv6 address: digits in the name, or `/` or `:`
 * after the colon) is free text; `"quoted"` text always is.
 */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /(-?)([A-Za-z][\w]*):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|(\S+)/g;
  for (const match of input.matchAll(pattern)) {
    const [whole, dash, name, quotedValue, bareValue, quotedText, word] = match;
    if (name !== undefined && resolveChipKey(name)) {
      tokens.push({
        kind: 'field',
        name,
        value: (quotedValue ?? bareValue ?? '').trim(),
        quoted: quotedValue !== undefined,
        negate: dash === '-',
        source: whole.trim(),
      });
    } else if (name !== undefined && looksLikeField(name, quotedValue ?? bareValue ?? '')) {
      tokens.push({ kind: 'unknownField', name, source: whole.trim() });
    } else if (quotedText !== undefined) {
      if (quotedText.trim()) tokens.push({ kind: 'text', text: quotedText.trim(), quoted: true });
    } else {
      tokens.push({ kind: 'text', text: word ?? whole });
    }
  }
  return tokens;
}

function looksLikeField(name: string, value: string): boolean {
  return (
    /^[A-Za-z_]+$/.test(name) &&
    value.trim() !== '' &&
    !/^[/:]/.test(value) &&
    // An IPv6 address whose first group is letters (`face:b00c::1`).
    !parseIp(`${name}:${value}`.replace(/\/\d+$/, ''))
  );
}

/**
 * The key a mistyped name most likely meant: one it starts (three letters
 * or more), or one a typo away (two from six letters on). Shorter names get
 * no guess: every two letters are a typo or two from `ip`, `op` or `db`
 * (`id:`, `to:`, `q:` are no such typos).
 */
export function nearestKeyName(name: string): string | null {
  const lower = name.toLowerCase();
  if (lower.length < 3) return null;
  const allowed = lower.length >= 6 ? 2 : 1;
  let best: { name: string; distance: number } | null = null;
  for (const candidate of KEY_BY_NAME.keys()) {
    const distance = candidate.startsWith(lower) ? 0 : editDistance(lower, candidate);
    if (distance <= allowed && (!best || distance < best.distance)) {
      best = { name: candidate, distance };
    }
  }
  if (!best) return null;
  return chipKeyName(KEY_BY_NAME.get(best.name)!);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function unknownFieldProblem(name: string, source: string): string {
  const nearest = nearestKeyName(name);
  const hint = nearest ? ` (did you mean ${nearest}:?)` : '';
  return `${name}: is not a field${hint}; "${source.replace(/"/g, '')}" in quotes searches it as text`;
}

// ---- applying ---------------------------------------------------------------

const unique = (values: Iterable<string>) => [...new Set(values)].sort();

function globToPattern(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

/** Event types a value names: itself (upper-cased, when catalogued), or the catalogue's matches for a `*` pattern. */
export function expandTypes(value: string, knownTypes: readonly string[]): string[] {
  if (value.includes('*')) {
    const pattern = globToPattern(value);
    return knownTypes.filter((type) => pattern.test(type));
  }
  const type = value.toUpperCase();
  // The API refuses a type it has never heard of, so a known catalogue decides.
  if (knownTypes.length > 0) return knownTypes.includes(type) ? [type] : [];
  return EVENT_TYPE_PATTERN.test(type) ? [type] : [];
}

/** Why a remoteAddress value cannot be sent, or null when it can. */
function addressProblem(value: string): string | null {
  if (isCidrValue(value)) {
    return parseCidr(value) ? null : `${value} is not a CIDR block such as 10.0.0.0/8`;
  }
  return parseIp(value) ? null : `${value} is not an IP address or a CIDR block`;
}

export type ApplyResult = { filters: InvestigationFilters; problems: string[] };

/** Adds one chip's values to the filters (or says why it cannot). */
export function applyChip(
  filters: InvestigationFilters,
  key: ChipKey,
  values: readonly string[],
  negate: boolean,
  knownTypes: readonly string[],
): ApplyResult {
  const problems: string[] = [];
  const items = values.map((value) => value.trim()).filter(Boolean);
  if (items.length === 0) return { filters, problems: [`${chipKeyName(key)}: needs a value`] };
  if (key === 'eventType') {
    const types: string[] = [];
    for (const item of items) {
      const expanded = expandTypes(item, knownTypes);
      if (expanded.length === 0) problems.push(`no event type matches ${item}`);
      types.push(...expanded);
    }
    if (types.length === 0) return { filters, problems };
    if (negate) {
      const excluded = new Set(types);
      return {
        filters: {
          ...filters,
          types: filters.types.filter((type) => !excluded.has(type)),
          excludeTypes: unique([...filters.excludeTypes, ...types]),
        },
        problems,
      };
    }
    const included = new Set(types);
    return {
      filters: {
        ...filters,
        types: unique([...filters.types, ...types]),
        excludeTypes: filters.excludeTypes.filter((type) => !included.has(type)),
      },
      problems,
    };
  }
  if (negate) {
    return {
      filters,
      problems: [
        `only event types can be left out (-type:…); -${chipKeyName(key)} is not supported`,
      ],
    };
  }
  let accepted = items;
  if (key === 'remoteAddress') {
    accepted = items.filter((item) => {
      const problem = addressProblem(item);
      if (problem) problems.push(problem);
      return problem === null;
    });
    if (accepted.length === 0) return { filters, problems };
  }
  // The current values, then the new ones in the order typed, up to the
  // API's limit; the rest is said, not dropped without a word (a pasted
  // list of 121 addresses lost the one with events).
  const current = key === 'actor' ? filters.actor : (filters.fields[key] ?? []);
  const combined = [...new Set([...current, ...accepted])];
  if (combined.length > MAX_FILTER_VALUES) {
    const left = combined.length - MAX_FILTER_VALUES;
    problems.push(
      `${chipKeyName(key)}: at most ${MAX_FILTER_VALUES} values at once; ${left} not applied (${combined
        .slice(MAX_FILTER_VALUES, MAX_FILTER_VALUES + 3)
        .join(', ')}${left > 3 ? ', …' : ''})`,
    );
  }
  const next = unique(combined.slice(0, MAX_FILTER_VALUES));
  if (key === 'actor') return { filters: { ...filters, actor: next }, problems };
  return { filters: { ...filters, fields: { ...filters.fields, [key]: next } }, problems };
}

/** Adds free text to `q` (its words; duplicates dropped). */
export function applyText(filters: InvestigationFilters, text: string): InvestigationFilters {
  const known = new Set(words(filters.q));
  const added = words(text).filter((word) => !known.has(word) && (known.add(word), true));
  if (added.length === 0) return filters;
  return { ...filters, q: [filters.q, ...added].filter(Boolean).join(' ') };
}

const FREE_TEXT_TOO_LONG = `free text: at most ${MAX_Q_LENGTH} characters in all; the rest not applied`;

/**
 * Applies everything typed in the box: chips and free text. `refused` is the
 * text of the chips with a problem, as typed, for the box to keep so a typo
 * can be fixed (their acceptable values, if any, are applied already).
 */
export function applyQuery(
  filters: InvestigationFilters,
  input: string,
  knownTypes: readonly string[],
): ApplyResult & { refused: string } {
  let next = filters;
  const problems: string[] = [];
  const refused: string[] = [];
  for (const token of tokenize(input)) {
    if (token.kind === 'text') {
      // Free text matches words of letters and digits: `-` or `/` alone has
      // none, and was dropped without a word, every event shown as if
      // nothing had been typed. Said, and left in the box.
      if (words(token.text).length === 0) {
        problems.push(
          `"${token.text}" has no words to search for (free text matches letters and digits)`,
        );
        refused.push(token.text);
        continue;
      }
      // A leading dash reads as "without" in every search box; free text
      // has no exclusion (the API's q only narrows), and `-alice` was
      // searched as `alice`, the very events meant to be left out.
      if (!token.quoted && isExclusion(token.text)) {
        problems.push(
          `free text cannot be left out (${token.text}): only event types can (-type:…)`,
        );
        refused.push(token.text);
        continue;
      }
      const withText = applyText(next, token.text);
      // Kept in the box, not cut: the URL holds at most MAX_Q_LENGTH, and a
      // longer q came back cut and was then reported as "from the link".
      if (withText.q.length > MAX_Q_LENGTH) {
        if (!problems.includes(FREE_TEXT_TOO_LONG)) problems.push(FREE_TEXT_TOO_LONG);
        refused.push(token.text);
        continue;
      }
      next = withText;
      continue;
    }
    if (token.kind === 'unknownField') {
      problems.push(unknownFieldProblem(token.name, token.source));
      refused.push(token.source);
      continue;
    }
    const key = resolveChipKey(token.name)!;
    const values = token.quoted ? [token.value] : splitValueList(token.value);
    const result = applyChip(next, key, values, token.negate, knownTypes);
    next = result.filters;
    problems.push(...result.problems);
    if (result.problems.length) refused.push(token.source);
  }
  return { filters: next, problems, refused: refused.join(' ') };
}

// ---- chips ------------------------------------------------------------------

export type Chip = {
  /** Stable and unique among the chips. */
  id: string;
  key: ChipKey | 'q';
  value: string;
  negate: boolean;
  /** As it would be typed: `cluster:Cluster0`, `-type:X`, `"free text"`. */
  text: string;
  /**
   * Several event types of one category (its name is `value`), shown as one
   * chip: a category chosen or left out in the type picker would otherwise
   * fill the bar with a chip per type (80 for Billing). Removing it removes them all.
   */
  types?: readonly string[];
};

/** From this many types of one category on, they share one chip. */
export const TYPES_PER_CATEGORY_CHIP = 5;

/** A value as typed: quoted (one value, as is) when a bare one would be split or unescaped. */
const quoteIfNeeded = (value: string) => (/[\s",\\]/.test(value) ? `"${value}"` : value);

/** The chips that show the filters, in a stable order. */
export function filterChips(filters: InvestigationFilters): Chip[] {
  const chips: Chip[] = [];
  const push = (key: ChipKey, value: string, negate = false) =>
    chips.push({
      id: `${negate ? '-' : ''}${key}:${value}`,
      key,
      value,
      negate,
      text: `${negate ? '-' : ''}${chipKeyName(key)}:${quoteIfNeeded(value)}`,
    });
  const pushTypes = (types: readonly string[], negate: boolean) => {
    const byCategory = new Map<EventCategory, string[]>();
    for (const type of types) {
      const category = categoryOf(type);
      if (category) byCategory.set(category, [...(byCategory.get(category) ?? []), type]);
    }
    for (const type of types) {
      const category = categoryOf(type);
      const group = category ? byCategory.get(category)! : [];
      if (!category || group.length < TYPES_PER_CATEGORY_CHIP) push('eventType', type, negate);
      else if (group[0] === type) {
        const size = category.types.length;
        chips.push({
          id: `${negate ? '-' : ''}category:${category.name}`,
          key: 'eventType',
          value: category.name,
          negate,
          text: `${negate ? '-' : ''}type:${category.name} (${
            group.length < size ? `${group.length} of ${size}` : group.length
          } types)`,
          types: group,
        });
      }
    }
  };
  pushTypes(filters.types, false);
  pushTypes(filters.excludeTypes, true);
  for (const value of filters.actor) push('actor', value);
  for (const field of FILTER_FIELDS)
    for (const value of filters.fields[field] ?? []) push(field, value);
  if (filters.q)
    chips.push({ id: 'q', key: 'q', value: filters.q, negate: false, text: `"${filters.q}"` });
  return chips;
}

/** The filters without one chip. */
export function removeChip(filters: InvestigationFilters, chip: Chip): InvestigationFilters {
  if (chip.key === 'q') return { ...filters, q: '' };
  if (chip.key === 'eventType') {
    const removed = new Set(chip.types ?? [chip.value]);
    return chip.negate
      ? { ...filters, excludeTypes: filters.excludeTypes.filter((t) => !removed.has(t)) }
      : { ...filters, types: filters.types.filter((t) => !removed.has(t)) };
  }
  if (chip.key === 'actor')
    return { ...filters, actor: filters.actor.filter((v) => v !== chip.value) };
  const field = chip.key;
  const rest = (filters.fields[field] ?? []).filter((v) => v !== chip.value);
  const fields = { ...filters.fields };
  if (rest.length) fields[field] = rest;
  else delete fields[field];
  return { ...filters, fields };
}

/** A key's included values (or, with `negate`, its left-out ones: event types only). */
export function chipValues(
  filters: InvestigationFilters,
  key: ChipKey,
  negate = false,
): readonly string[] {
  if (key === 'eventType') return negate ? filters.excludeTypes : filters.types;
  if (negate) return [];
  if (key === 'actor') return filters.actor;
  return filters.fields[key] ?? [];
}

/** Whether a value is among a key's included values. */
export function hasChip(filters: InvestigationFilters, key: ChipKey, value: string): boolean {
  return chipValues(filters, key).includes(value);
}

/**
 * Adds the value when absent, removes it when present: a facet's checkbox,
 * or with `negate` its "leave out" control.
 */
export function toggleChip(
  filters: InvestigationFilters,
  key: ChipKey,
  value: string,
  negate = false,
): InvestigationFilters {
  if (chipValues(filters, key, negate).includes(value))
    return removeChip(filters, { id: '', key, value, negate, text: '' });
  return applyChip(filters, key, [value], negate, []).filters;
}

// ---- completion -------------------------------------------------------------

export type Completion = {
  /** What the list shows. */
  label: string;
  /** A count beside it (facet values), when known. */
  count?: number;
  /** The token that replaces the one being typed. */
  insert: string;
  /** Whether choosing it completes the chip (a value) or only its name. */
  isValue: boolean;
};

/** Values offered for a key: from the facets (with counts) or the type catalogue. */
export type CompletionSource = (key: ChipKey) => readonly { value: string; count?: number }[];

/** The last token being typed: the text after the last space outside quotes. */
export function currentToken(input: string): { start: number; text: string } {
  let inQuotes = false;
  let start = 0;
  for (let i = 0; i < input.length; i += 1) {
    const char = input[i]!;
    if (char === '"') inQuotes = !inQuotes;
    else if (/\s/.test(char) && !inQuotes) start = i + 1;
  }
  return { start, text: input.slice(start) };
}

/**
 * The key name a completed value is written under: the one typed, except
 * where the values offered are another key's. `user:` and `key:` are offered
 * the actor facet, usernames and API public keys in one list counted as
 * `actor`: taken as typed, `user:` + a key (or `key:` + a username) found no
 * event where its count said hundreds, so they complete to `actor:`, the
 * filter those counts are of (for a username or a key, the same events).
 */
function completedKeyName(typed: string, key: ChipKey): string {
  return key !== 'actor' && facetFieldOf(key) === 'actor' ? chipKeyName('actor') : typed;
}

/** A source's values that hold the typed text, any case, in the source's order (most frequent first). */
function valuesContaining<T extends { value: string }>(values: readonly T[], typed: string): T[] {
  const lower = typed.toLowerCase();
  return values.filter(({ value }) => value.toLowerCase().includes(lower));
}

/**
 * The field filters (actor first) whose values a facet counts, with that
 * facet: where a value that matched nothing can be looked for among those
 * that exist.
 */
export function facetedFilters(
  filters: InvestigationFilters,
): { key: 'actor' | FilterField; facet: FacetField; values: readonly string[] }[] {
  return (['actor', ...FILTER_FIELDS] as const).flatMap((key) => {
    const facet = facetFieldOf(key);
    const values = chipValues(filters, key);
    return facet && values.length ? [{ key, facet, values }] : [];
  });
}

/** The filters without any value of one key (not an event type's). */
export function withoutKey(
  filters: InvestigationFilters,
  key: 'actor' | FilterField,
): InvestigationFilters {
  if (key === 'actor') return { ...filters, actor: [] };
  const fields = { ...filters.fields };
  delete fields[key];
  return { ...filters, fields };
}

/** A field filter's value that matched nothing, and existing values that hold it. */
export type CloseValues = {
  key: ChipKey;
  typed: string;
  values: readonly { value: string; count?: number }[];
};

/**
 * For a key whose values matched no event: each value, and those of the
 * existing values (its facet's, counted without this key's filter) that
 * contain it, any case, itself left out: `user:ada` finds ada@example.com.
 */
export function closeValues(
  key: ChipKey,
  typedValues: readonly string[],
  existing: readonly { value: string; count?: number }[],
  limit = 5,
): CloseValues[] {
  return typedValues.flatMap((typed) => {
    const values = valuesContaining(existing, typed)
      .filter(({ value }) => value !== typed)
      .slice(0, limit);
    return values.length ? [{ key, typed, values }] : [];
  });
}

/**
 * The filters with a value that matched nothing replaced by an existing one,
 * under the key its facet filters on: the actor facet lists usernames and
 * keys together, so a value offered for `user:` is written `actor:`.
 */
export function replaceWithClose(
  filters: InvestigationFilters,
  { key, typed }: Pick<CloseValues, 'key' | 'typed'>,
  value: string,
): InvestigationFilters {
  const facet = facetFieldOf(key);
  const without = removeChip(filters, { id: '', key, value: typed, negate: false, text: '' });
  return applyChip(without, facet ? chipKeyOfFacet(facet) : key, [value], false, []).filters;
}

/** What can complete the token being typed: key names, then a key's values. */
export function completions(token: string, source: CompletionSource, limit = 8): Completion[] {
  const negate = token.startsWith('-');
  const body = negate ? token.slice(1) : token;
  const colon = body.indexOf(':');
  if (colon === -1) {
    if (!body || body.startsWith('"')) return [];
    const lower = body.toLowerCase();
    const names = [...Object.keys(KEY_ALIASES), ...CHIP_KEYS.filter((key) => key !== 'eventType')];
    return [...new Set(names)]
      .filter(
        (name) =>
          name.toLowerCase().startsWith(lower) && (!negate || resolveChipKey(name) === 'eventType'),
      )
      .slice(0, limit)
      .map((name) => ({
        label: `${name}:`,
        insert: `${negate ? '-' : ''}${name}:`,
        isValue: false,
      }));
  }
  const name = body.slice(0, colon);
  const key = resolveChipKey(name);
  if (!key) return [];
  const insertName = completedKeyName(name, key);
  const typed = body
    .slice(colon + 1)
    .replace(/^"/, '')
    .toLowerCase();
  return valuesContaining(source(key), typed)
    .slice(0, limit)
    .map(({ value, count }) => ({
      label: value,
      count,
      insert: `${negate ? '-' : ''}${insertName}:${quoteIfNeeded(value)}`,
      isValue: true,
    }));
}
