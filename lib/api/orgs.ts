import { EVENT_READER_ROLES } from '@/lib/auth/principal';
import type { Org } from '@/lib/store/types';
import { requireReadableOrg, type RouteContext, type RouteResult } from './context';
import { orgHref, pageLinks } from './links';
import { parsePaging } from './params';
import { listJson } from './serialize';
import { API_PREFIX } from './types';

function orgJson(base: string, org: Org): string {
  return JSON.stringify({
    id: org.id,
    links: [{ href: orgHref(base, org.id), rel: 'self' }],
    name: org.name,
  });
}

// GET /orgs – the organizations whose events the caller may read (the dashboard's org picker).
export async function listOrgs(ctx: RouteContext): Promise<RouteResult> {
  const paging = parsePaging(ctx.params);
  const memberships = await ctx.store.listMemberships(ctx.principal.apiKeyId);
  const orgIds = [
    ...new Set(memberships.filter((m) => EVENT_READER_ROLES.has(m.role)).map((m) => m.orgId)),
  ];
  const orgs = (await Promise.all(orgIds.map((id) => ctx.store.getOrg(id))))
    .filter((org): org is Org => org !== null)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));

  const offset = (paging.pageNum - 1) * paging.itemsPerPage;
  const page = orgs.slice(offset, offset + paging.itemsPerPage);
  const links = pageLinks(`${ctx.base}${API_PREFIX}/orgs`, ctx.params, {
    pageNum: paging.pageNum,
    itemsPerPage: paging.itemsPerPage,
    hasNext: offset + page.length < orgs.length,
  });
  const items = page.map((org) => orgJson(ctx.base, org));
  return { json: listJson(links, items, paging.includeCount ? orgs.length : 0), shape: 'list' };
}

// GET /orgs/{orgId} – one organization the caller may read.
export async function getOrg(ctx: RouteContext, orgId: string): Promise<RouteResult> {
  const org = await requireReadableOrg(ctx, orgId);
  return { json: orgJson(ctx.base, org), shape: 'object' };
}
