import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs – organizations the caller can read (extension)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers('listOrgs');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
