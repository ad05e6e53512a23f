import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId}/events/histogram – event counts per UTC-aligned bucket
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } =
  nextRouteHandlers('getOrgEventHistogram');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
