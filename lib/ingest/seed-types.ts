import type { Variant } from '@/lib/config';
import { eventCategories, eventTypeLabel } from '@/lib/domain/catalog';

/**
 * Which event types the demo generator emits, how often, who triggers them
 * and which extra fields they carry. Weights are relative within the whole
 * mix; every catalogued type of the variant gets at least a trace weight.
 */

/** Who triggered an event: a person, an API key, either, the service itself, or its staff. */
export type Actor = 'user' | 'apiKey' | 'mixed' | 'system' | 'operator';

/** The extra fields an event type carries beyond the common ones. */
export type Profile =
  | 'none'
  | 'project'
  | 'alert'
  | 'alertConfig'
  | 'apiKeyTarget'
  | 'apiKeyGroup'
  | 'apiKeyAccessList'
  | 'invoice'
  | 'payment'
  | 'team'
  | 'teamGroup'
  | 'userTarget'
  | 'joined'
  | 'teamUserTarget'
  | 'groupUserTarget'
  | 'resource'
  | 'resourcePolicy'
  | 'resourcePolicyViolation'
  | 'dataExplorer'
  | 'metric'
  | 'host'
  | 'cluster'
  | 'maintenance'
  | 'mlabCluster';

export type Severity = 'INFO' | 'WARNING' | 'ERROR' | 'CRITICAL';

export type TypeSpec = {
  type: string;
  weight: number;
  actor: Actor;
  profile: Profile;
  /** The raw document's `_t`. */
  rawKind: string;
  severity: Severity;
  description: string;
};

/** Share of all events per catalogue category (before per-type multipliers). */
const CATEGORY_WEIGHTS: Record<string, number> = {
  'Project and Host': 25,
  User: 9,
  'API User': 7,
  Org: 8,
  Billing: 7,
  'Alert Audit': 6,
  'Alert Config Audit': 3,
  Team: 4,
  'Group Audit': 2,
  'Service Account': 3,
  'Federation Settings': 1.5,
  'OAuth Audit': 2,
  Resource: 2,
  'Atlas Resource Policy Audit': 1,
  Partner: 0.6,
  'Mlab Migration Audit': 0.3,
  Support: 0.4,
  'AI Models APIs': 0.3,
  'Atlas Audit': 0.4,
  'Self-hosted Audit': 10,
};

/** Per-type multipliers inside a category: the everyday events dominate. */
const TYPE_MULTIPLIERS: Record<string, number> = {
  OUTSIDE_METRIC_THRESHOLD: 40,
  DATA_EXPLORER: 24,
  DATA_EXPLORER_CRUD: 20,
  MAINTENANCE_COMPLETED: 0.6,
  CREDIT_MOVED: 0.3,
  JOINED_ORG: 4,
  INVITED_TO_ORG: 4,
  USER_ROLES_CHANGED_AUDIT: 3,
  REMOVED_FROM_ORG: 1.5,
  JOINED_TEAM: 2,
  ORG_FLEX_CONSULTING_PURCHASED: 0.1,
  ORG_FLEX_CONSULTING_PURCHASE_FAILED: 0.05,
  API_KEY_CREATED: 3,
  API_KEY_ACCESS_LIST_ENTRY_ADDED: 3,
  API_KEY_ACCESS_LIST_ENTRY_DELETED: 2,
  API_KEY_ROLES_CHANGED: 2,
  API_KEY_ADDED_TO_GROUP: 2,
  CHARGE_SUCCEEDED: 12,
  INVOICE_CLOSED: 8,
  CHARGE_FAILED: 2,
  CREDIT_ISSUED: 2,
  PAYMENT_FORGIVEN: 0.5,
  ALERT_ACKNOWLEDGED_AUDIT: 3,
  ALERT_CONFIG_CHANGED_AUDIT: 3,
  ALERT_CONFIG_ADDED_AUDIT: 2,
  TEAM_ADDED_TO_GROUP: 2,
  TEAM_ROLES_MODIFIED: 2,
  GROUP_CREATED: 2,
  GROUP_TAGS_MODIFIED: 2,
  ORG_DAILY_BILL_OVER_THRESHOLD: 3,
  ORG_DAILY_BILL_UNDER_THRESHOLD: 3,
  ORG_CREDIT_CARD_ABOUT_TO_EXPIRE: 2,
  ORG_USERS_WITHOUT_MFA: 2,
  OAUTH_TOKEN_ISSUED: 6,
  SERVICE_ACCOUNT_SECRET_ADDED: 2,
  SUCCESSFUL_LOGIN_AUDIT: 12,
  UNSUCCESSFUL_LOGIN_AUDIT: 2,
  JOINED_GROUP: 2,
};

const CATEGORY_RAW_KIND: Record<string, string> = {
  'Federation Settings': 'FEDERATION_SETTINGS_AUDIT',
  'Group Audit': 'GROUP_AUDIT',
  'Mlab Migration Audit': 'MLAB_MIGRATION_AUDIT',
  Partner: 'PARTNER_AUDIT',
  Support: 'SUPPORT_AUDIT',
  'AI Models APIs': 'AI_MODELS_APIS_AUDIT',
  'OAuth Audit': 'OAUTH_AUDIT',
  'Alert Audit': 'ALERT_AUDIT',
  'Alert Config Audit': 'ALERT_CONFIG_AUDIT',
  'API User': 'API_USER_AUDIT',
  'Service Account': 'SERVICE_ACCOUNT_AUDIT',
  Billing: 'BILLING',
  'Atlas Audit': 'NDS_AUDIT',
  Org: 'ORG',
  Team: 'TEAM_AUDIT',
  User: 'USER_AUDIT',
  Resource: 'RESOURCE_AUDIT',
  'Atlas Resource Policy Audit': 'RESOURCE_POLICY_AUDIT',
  'Self-hosted Audit': 'USER_AUDIT',
};

/** Categories the self-hosted variant has no use for: there is no billing. */
const HOSTED_ONLY_CATEGORIES = new Set(['Billing', 'Partner', 'Mlab Migration Audit']);

export function typeMix(variant: Variant): TypeSpec[] {
  const specs: TypeSpec[] = [];
  const seen = new Set<string>();
  for (const category of eventCategories(variant)) {
    if (variant === 'self-hosted' && HOSTED_ONLY_CATEGORIES.has(category.name)) continue;
    const categoryWeight = CATEGORY_WEIGHTS[category.name] ?? 0.5;
    const types = category.types.filter((t) => !seen.has(t));
    const multipliers = types.map((t) => TYPE_MULTIPLIERS[t] ?? 1);
    const sum = multipliers.reduce((a, b) => a + b, 0);
    types.forEach((type, i) => {
      seen.add(type);
      const { actor, profile, rawKind } = describe(category.name, type);
      specs.push({
        type,
        weight: (categoryWeight * multipliers[i]!) / sum,
        actor,
        profile,
        rawKind: rawKind ?? CATEGORY_RAW_KIND[category.name] ?? 'EVENT',
        severity: severityOf(type),
        description: eventTypeLabel(type),
      });
    });
  }
  return specs;
}

function describe(
  category: string,
  type: string,
): { actor: Actor; profile: Profile; rawKind?: string } {
  switch (category) {
    case 'Project and Host':
      if (type.startsWith('DATA_EXPLORER'))
        return { actor: 'user', profile: 'dataExplorer', rawKind: 'DATA_EXPLORER' };
      if (type === 'OUTSIDE_METRIC_THRESHOLD')
        return { actor: 'system', profile: 'metric', rawKind: 'HOST_METRIC' };
      if (type === 'MAINTENANCE_COMPLETED')
        return { actor: 'system', profile: 'maintenance', rawKind: 'NDS_MAINTENANCE' };
      if (type === 'CREDIT_MOVED')
        return { actor: 'operator', profile: 'invoice', rawKind: 'BILLING' };
      if (type.includes('CLUSTER'))
        return { actor: 'system', profile: 'cluster', rawKind: 'CLUSTER' };
      return { actor: 'system', profile: 'host', rawKind: 'HOST' };
    case 'Alert Audit':
      return { actor: 'mixed', profile: 'alert' };
    case 'Alert Config Audit':
      return { actor: 'mixed', profile: 'alertConfig' };
    case 'API User':
      if (type.includes('ACCESS_LIST_ENTRY'))
        return { actor: 'mixed', profile: 'apiKeyAccessList' };
      if (type.endsWith('_GROUP')) return { actor: 'mixed', profile: 'apiKeyGroup' };
      return { actor: 'mixed', profile: 'apiKeyTarget' };
    case 'Service Account':
      return { actor: 'mixed', profile: type.endsWith('_GROUP') ? 'project' : 'none' };
    case 'Billing':
      if (/CHARGE|PAYMENT|REFUND/.test(type)) {
        const byPerson = type === 'PAYMENT_UPDATED_THROUGH_API';
        return { actor: byPerson ? 'apiKey' : 'system', profile: 'payment' };
      }
      if (/CREDIT_|REBILL|EVERGREEN|DEAL|CROSS_ORG/.test(type))
        return { actor: 'operator', profile: 'invoice' };
      if (/ADDRESS|ACCOUNT_|SUPPORT_PLAN|PROMO_CODE|ORG_UNLINK/.test(type))
        return { actor: 'user', profile: 'invoice' };
      return { actor: 'system', profile: 'invoice' };
    case 'Atlas Audit':
      return { actor: 'operator', profile: 'none' };
    case 'Org':
      if (type === 'GROUP_MOVED_FROM_ORG' || type === 'PROJECT_CREATED_VIA_ANIS')
        return { actor: 'mixed', profile: 'project' };
      if (/INVOICE|BILL|CHARGES/.test(type)) return { actor: 'system', profile: 'invoice' };
      if (/ADMIN_|LIMIT/.test(type)) return { actor: 'operator', profile: 'none' };
      if (
        /THRESHOLD|NORMAL|ABOUT_TO_EXPIRE|_CURRENT|MFA|SECRETS_|LOCKED|SUSPENDED|ACTIVATED|CLUSTERS_|FINANCIAL/.test(
          type,
        )
      )
        return { actor: 'system', profile: 'none' };
      return { actor: 'mixed', profile: 'none' };
    case 'Team':
      return { actor: 'mixed', profile: /GROUP|ROLES/.test(type) ? 'teamGroup' : 'team' };
    case 'User':
      if (type === 'JOINED_ORG') return { actor: 'user', profile: 'joined' };
      if (type.endsWith('_TEAM')) return { actor: 'mixed', profile: 'teamUserTarget' };
      if (type.startsWith('ORG_FLEX')) return { actor: 'user', profile: 'none' };
      return { actor: 'mixed', profile: 'userTarget' };
    case 'Resource':
      return { actor: 'mixed', profile: 'resource' };
    case 'Atlas Resource Policy Audit':
      return type === 'RESOURCE_POLICY_VIOLATED'
        ? { actor: 'system', profile: 'resourcePolicyViolation' }
        : { actor: 'mixed', profile: 'resourcePolicy' };
    case 'Group Audit':
      return { actor: 'mixed', profile: 'project' };
    case 'Mlab Migration Audit':
      return { actor: type.endsWith('_ERROR') ? 'system' : 'user', profile: 'mlabCluster' };
    case 'Partner':
      return { actor: 'system', profile: type.startsWith('VERCEL_INVOICE') ? 'invoice' : 'none' };
    case 'Support':
      return { actor: 'system', profile: 'none' };
    case 'Self-hosted Audit':
      if (type.endsWith('_GROUP')) return { actor: 'mixed', profile: 'groupUserTarget' };
      if (type.includes('HOST')) return { actor: 'user', profile: 'host', rawKind: 'HOST_AUDIT' };
      if (type.startsWith('ACCOUNT_')) return { actor: 'system', profile: 'userTarget' };
      return { actor: 'user', profile: 'none' };
    default:
      return { actor: 'mixed', profile: 'none' };
  }
}

function severityOf(type: string): Severity {
  if (/FAILED|FAILURE|_ERROR|DENIED|VIOLATED/.test(type)) return 'ERROR';
  if (
    /LOCKED|SUSPENDED|OVER_THRESHOLD|ABOUT_TO_EXPIRE|EXPIRED|EXPIRING|WITHOUT_MFA|_DOWN|OUTSIDE_METRIC|LEGACY_TLS/.test(
      type,
    )
  )
    return 'WARNING';
  return 'INFO';
}
