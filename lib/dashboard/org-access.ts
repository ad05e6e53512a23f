import 'server-only';
import { forbidden, notFound } from 'next/navigation';
import { cache } from 'react';
import type { OrgSummary } from '@/lib/client/api-client';
import { apiOrgPath } from '@/lib/client/url-state';
import { callApi, failedCallError } from './server';

/** The API's answer about the organization: asked once per request, for the page and its title alike. */
const orgAnswer = cache((orgId: string) => callApi<OrgSummary>(apiOrgPath(orgId)));

/**
 * The title of an organization's page: `page · name`, so tabs of several
 * organizations tell apart, or "No access" where the page is refused (the
 * refusal's own title is not used: Next keeps the page's). An API that could
 * not answer leaves the page's own name; the page shows the outage.
 */
export async function orgPageTitle(orgId: string, page: string): Promise<string> {
  const org = await orgAnswer(orgId);
  if (org.ok) return `${page} · ${org.body.name}`;
  return org.status >= 500 ? page : 'No access';
}

/**
 * The organization if the signed-in key can read it. Asked of the API
 * itself, so the dashboard never shows what the API would refuse, and
 * refused with the status the API's answer means: an unknown or malformed
 * id (the API's 404 and 400) is notFound(), an organization the key holds
 * no role in (the API's 401) forbidden(). Both render the no-access page
 * (app/orgs/[orgId]/not-found.tsx and forbidden.tsx); the page was answered
 * 200, so a link checker, a proxy's cache or a script read it as a page of
 * events. The API already tells the two apart, so the dashboard hides
 * nothing by telling them apart too. An API that could not answer (a
 * database outage's 503) is thrown, not taken for "no access".
 */
export async function readableOrg(orgId: string): Promise<OrgSummary> {
  const org = await orgAnswer(orgId);
  if (org.ok) return org.body;
  if (org.status >= 500) throw failedCallError(org);
  if (org.status === 404 || org.status === 400) notFound();
  forbidden();
}
