import { metricsRoute } from '@/lib/ops/next-routes';

// GET /metrics – Prometheus text, Bearer METRICS_TOKEN; 404 while unset (lib/ops/metrics.ts)
export const { GET, HEAD } = metricsRoute;

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
