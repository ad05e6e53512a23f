import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId} – one organization (extension)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers('getOrg');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
