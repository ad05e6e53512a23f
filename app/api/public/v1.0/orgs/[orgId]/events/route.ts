// GET /api/public/v1.0/orgs/{orgId}/events – list an organization's events
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } from '@/lib/api/next-routes';
