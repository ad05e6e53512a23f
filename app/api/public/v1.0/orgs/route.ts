// GET /api/public/v1.0/orgs – organizations the caller can read (extension)
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } from '@/lib/api/next-routes';
