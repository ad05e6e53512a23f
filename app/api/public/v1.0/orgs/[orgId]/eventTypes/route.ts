import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId}/eventTypes – event types with counts (extension)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } =
  nextRouteHandlers('listOrgEventTypes');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
