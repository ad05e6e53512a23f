// GET /api/public/v1.0/openapi.json – this API's OpenAPI document (no auth)
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } from '@/lib/api/next-routes';
