import { nextRouteHandlers } from '@/lib/api/next-routes';

// ANY /api/public/v1.0 itself and any other path under it – the table's answer, the API's JSON 404 (or 405)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = nextRouteHandlers('unmatched');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
