import type { EventStore, OrgRole } from '@/lib/store/types';

/** Who is calling: the same shape whether Digest or the dashboard session proved it. */
export type Principal = {
  apiKeyId: string;
  publicKey: string;
  via: 'digest' | 'session';
};

/**
 * Roles at or above Organization Member, the role both operations require.
 * Read-only and billing-viewer roles are below it, as in the real service.
 */
export const EVENT_READER_ROLES: ReadonlySet<OrgRole> = new Set<OrgRole>([
  'ORG_OWNER',
  'ORG_MEMBER',
  'ORG_GROUP_CREATOR',
  'ORG_BILLING_ADMIN',
]);

export async function canReadOrgEvents(
  store: EventStore,
  principal: Principal,
  orgId: string,
): Promise<boolean> {
  const roles = await store.getRoles(orgId, principal.apiKeyId);
  return roles.some((role) => EVENT_READER_ROLES.has(role));
}
