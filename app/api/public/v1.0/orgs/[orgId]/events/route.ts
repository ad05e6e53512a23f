import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId}/events – list an organization's events
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers('listOrgEvents');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
