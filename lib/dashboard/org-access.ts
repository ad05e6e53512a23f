import 'server-only';
import type { OrgSummary } from '@/lib/client/api-client';
import { apiOrgPath } from '@/lib/client/url-state';
import { callApi } from './server';

/**
 * The organization if the signed-in key can read it, else null (unknown,
 * malformed or not the key's). Asked of the API itself, so the dashboard
 * never shows what the API would refuse.
 */
export async function readableOrg(orgId: string): Promise<OrgSummary | null> {
  const org = await callApi<OrgSummary>(apiOrgPath(orgId));
  return org.ok ? org.body : null;
}
