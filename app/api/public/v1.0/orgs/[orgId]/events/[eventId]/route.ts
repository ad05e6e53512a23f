import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/orgs/{orgId}/events/{eventId} – one event
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers('getOrgEvent');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
