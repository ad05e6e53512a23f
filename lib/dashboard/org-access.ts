import 'server-only';
import type { OrgSummary } from '@/lib/client/api-client';
import { apiOrgPath } from '@/lib/client/url-state';
import { callApi, failedCallError } from './server';

/**
 * The organization if the signed-in key can read it, else null (unknown,
 * malformed or not the key's). Asked of the API itself, so the dashboard
 * never shows what the API would refuse. An API that could not answer (a
 * database outage's 503) is thrown, not taken for "no access".
 */
export async function readableOrg(orgId: string): Promise<OrgSummary | null> {
  const org = await callApi<OrgSummary>(apiOrgPath(orgId));
  if (org.ok) return org.body;
  if (org.status >= 500) throw failedCallError(org);
  return null;
}
