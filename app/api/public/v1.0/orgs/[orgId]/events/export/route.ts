import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId}/events/export – the whole filtered set as NDJSON or CSV, streamed
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } =
  nextRouteHandlers('exportOrgEvents');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
