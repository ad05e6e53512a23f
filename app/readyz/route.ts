import { readyzRoute } from '@/lib/ops/next-routes';

// GET /readyz – the store answers and is migrated, else 503 (lib/ops/probes.ts)
export const { GET, HEAD } = readyzRoute;

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
