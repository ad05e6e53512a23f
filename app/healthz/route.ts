import { healthzRoute } from '@/lib/ops/next-routes';

// GET /healthz – the process is alive (lib/ops/probes.ts)
export const { GET, HEAD } = healthzRoute;

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
