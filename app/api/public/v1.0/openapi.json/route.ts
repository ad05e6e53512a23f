import { nextRouteHandlers } from '@/lib/api/next-routes';

// GET /api/public/v1.0/openapi.json – this API's OpenAPI document (no auth)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } =
  nextRouteHandlers('getOpenApiDocument');

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
