import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId}/events/facets – value counts per field under the filters
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } =
  nextRouteHandlers('getOrgEventFacets');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
