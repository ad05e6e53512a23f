// /api/public/v1.0 itself and anything else under it – the API's JSON 404
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } from '@/lib/api/next-routes';
