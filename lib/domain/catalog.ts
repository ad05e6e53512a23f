import catalogJson from './event-types.json';

/**
 * The event type catalogue: the org event types of the official schema grouped
 * by category, the project/host types the spec names, and the self-hosted
 * audit types that only the self-hosted variant accepts.
 */
/** The two deployments the spec describes: the hosted service and the self-hosted manager. */
export const VARIANTS = ['hosted', 'self-hosted'] as const;
export type Variant = (typeof VARIANTS)[number];

export type EventCategory = {
  name: string;
  subtype: string;
  types: readonly string[];
};

const HOSTED_CATEGORIES: readonly EventCategory[] = catalogJson.categories;
const SELF_HOSTED_AUDIT: EventCategory = catalogJson.selfHostedAudit;

const categoryByType = new Map<string, EventCategory>();
for (const category of [...HOSTED_CATEGORIES, SELF_HOSTED_AUDIT]) {
  for (const type of category.types) {
    if (!categoryByType.has(type)) categoryByType.set(type, category);
  }
}

const SELF_HOSTED_ONLY = new Set(
  SELF_HOSTED_AUDIT.types.filter((type) => HOSTED_CATEGORIES.every((c) => !c.types.includes(type))),
);

export { EVENT_TYPE_PATTERN } from './limits';

export function eventCategories(variant: Variant): readonly EventCategory[] {
  return variant === 'self-hosted' ? [...HOSTED_CATEGORIES, SELF_HOSTED_AUDIT] : HOSTED_CATEGORIES;
}

export function isCatalogedEventType(type: string, variant: Variant): boolean {
  if (!categoryByType.has(type)) return false;
  return variant === 'self-hosted' || !SELF_HOSTED_ONLY.has(type);
}

export function categoryOf(type: string): EventCategory | undefined {
  return categoryByType.get(type);
}

const ACRONYMS = new Set([
  'API',
  'AWS',
  'GCP',
  'IP',
  'MFA',
  'UI',
  'TLS',
  'SSH',
  'SSL',
  'CRUD',
  'ID',
  'IDP',
  'OIDC',
  'FTS',
  'CPS',
  'NDS',
  'KMIP',
  'OAUTH',
  'AI',
  'APIS',
  'BAAS',
  'EOL',
  'CRL',
  'FTDC',
  'OS',
  'SFOLID',
  'ARN',
]);

/** "API_KEY_CREATED" -> "API key created": readable, acronyms kept. */
export function eventTypeLabel(type: string): string {
  const words = type.split('_').filter(Boolean);
  return words
    .map((word, index) => {
      if (ACRONYMS.has(word)) return word === 'OAUTH' ? 'OAuth' : word === 'APIS' ? 'APIs' : word;
      const lower = word.toLowerCase();
      return index === 0 ? lower[0]!.toUpperCase() + lower.slice(1) : lower;
    })
    .join(' ');
}
