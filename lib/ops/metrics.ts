import { timingSafeEqual, createHash } from 'node:crypto';
import client from 'prom-client';
import { getConfig } from '@/lib/config';
import { getStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';

/**
 * Prometheus metrics of this process (GET /metrics): requests by route and
 * status, latency, Digest failures and lockouts, the store's connection pool
 * where the engine has one, and prom-client's process metrics (CPU, memory,
 * event-loop lag, GC). The pool gauges read the store's poolStats() when
 * the engine offers one; without it they have no samples.
 *
 * `route` is always a name from a fixed set (an API operation from
 * lib/api/routes.ts, or one of the non-API names below), never a raw path,
 * so a scanner cannot blow up the number of series.
 */

/** Routes outside the API, as they appear in logs and metrics. */
export type OtherRoute =
  | 'healthz'
  | 'readyz'
  | 'metrics'
  | 'next-static'
  | 'dashboard'
  /** Refused by Node's HTTP parser before any handler (lib/http/client-error.ts). */
  | 'unparsed';

/** Connection pool figures, when the store has a pool (PostgreSQL). */
export type PoolStats = { total: number; idle: number; waiting: number };

/**
 * A request's method as a label: the methods the service answers, anything
 * else `other` (a client may send any token: bounded series).
 */
const METHOD_LABELS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
function methodLabel(method: string): string {
  const upper = method.toUpperCase();
  return METHOD_LABELS.has(upper) ? upper : 'other';
}

type Metrics = {
  registry: client.Registry;
  requests: client.Counter<'route' | 'method' | 'status'>;
  duration: client.Histogram<'route' | 'method'>;
  authFailures: client.Counter<'reason'>;
  lockouts: client.Counter;
  poolSources: Set<() => PoolStats | undefined>;
};

// One registry per process, shared by server.ts and Next's bundles (which
// may load their own copy of this module): one set of numbers to scrape.
const METRICS_KEY = Symbol.for('org-events.metrics');
type Holder = { [METRICS_KEY]?: Metrics };

function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'org_events_' });
  countCpuSinceStart(registry);
  const poolSources = new Set<() => PoolStats | undefined>();
  const poolGauge = (name: string, help: string, pick: (stats: PoolStats) => number) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        let total = 0;
        let seen = false;
        for (const source of poolSources) {
          const stats = source();
          if (stats) {
            seen = true;
            total += pick(stats);
          }
        }
        if (seen) this.set(total);
      },
    });
  poolGauge('org_events_store_pool_connections', 'Open store connections.', (s) => s.total);
  poolGauge('org_events_store_pool_idle', 'Idle store connections.', (s) => s.idle);
  poolGauge(
    'org_events_store_pool_waiting',
    'Queries waiting for a store connection.',
    (s) => s.waiting,
  );
  return {
    registry,
    poolSources,
    requests: new client.Counter({
      name: 'org_events_http_requests_total',
      help: 'HTTP requests answered, by route, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    }),
    duration: new client.Histogram({
      name: 'org_events_http_request_duration_seconds',
      help: 'Time from request to response, by route and method.',
      labelNames: ['route', 'method'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    authFailures: new client.Counter({
      name: 'org_events_auth_failures_total',
      help: 'API requests answered with a Digest challenge, by reason (first legs of the handshake included as "no credentials"), and dashboard sign-ins refused ("dashboard sign-in").',
      labelNames: ['reason'],
      registers: [registry],
    }),
    lockouts: new client.Counter({
      name: 'org_events_auth_lockouts_total',
      help: 'API requests and dashboard sign-ins refused (429) because their key or client address is locked out after failed attempts.',
      registers: [registry],
    }),
  };
}

/**
 * The process's CPU time since it started, as Prometheus defines
 * process_cpu_seconds_total (and its user and system parts).
 * prom-client's counters start from the CPU time when they are registered,
 * here at the first request or scrape, so what the process spent starting
 * (Next's preparation, opening and migrating the store) was left out.
 */
function countCpuSinceStart(registry: client.Registry): void {
  const cpuCounter = (name: string, help: string, pick: (usage: NodeJS.CpuUsage) => number) => {
    registry.removeSingleMetric(name);
    return new client.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(pick(process.cpuUsage()) / 1e6);
      },
    });
  };
  cpuCounter(
    'org_events_process_cpu_user_seconds_total',
    'Total user CPU time spent in seconds.',
    (usage) => usage.user,
  );
  cpuCounter(
    'org_events_process_cpu_system_seconds_total',
    'Total system CPU time spent in seconds.',
    (usage) => usage.system,
  );
  cpuCounter(
    'org_events_process_cpu_seconds_total',
    'Total user and system CPU time spent in seconds.',
    (usage) => usage.user + usage.system,
  );
}

function metrics(): Metrics {
  const holder = globalThis as Holder;
  return (holder[METRICS_KEY] ??= createMetrics());
}

/**
 * One answered request. By method too: a HEAD (the dashboard's count before
 * every export, a link checker's probe) was counted and timed as the GET of
 * its route, so the exports looked twice as many and half of them instant.
 */
export function observeRequest(
  route: string,
  method: string,
  status: number,
  durationMs: number,
): void {
  const m = metrics();
  const labels = { route, method: methodLabel(method) };
  m.requests.inc({ ...labels, status: String(status) });
  m.duration.observe(labels, durationMs / 1000);
}

/** A challenge reason as a label: its fixed part (`invalid digest: <detail>` -> `invalid digest`). */
export function observeAuthFailure(reason: string): void {
  metrics().authFailures.inc({ reason: reason.split(':')[0]!.slice(0, 64) });
}

export function observeLockout(): void {
  metrics().lockouts.inc();
}

/** A store with a connection pool reports it through poolStats() (read structurally). */
type PooledStore = { poolStats?: () => PoolStats | undefined };
const watchedStores = new WeakSet<object>();

/** Feeds the pool gauges from the process's store, once it is open. */
async function watchStorePool(): Promise<void> {
  const store = (await getStore().catch(() => undefined)) as (EventStore & PooledStore) | undefined;
  if (!store?.poolStats || watchedStores.has(store)) return;
  watchedStores.add(store);
  metrics().poolSources.add(() => store.poolStats?.());
}

export type MetricsAnswer = { status: number; headers: [string, string][]; body: string };

function sameSecret(given: string, expected: string): boolean {
  // Hash both sides: equal lengths for timingSafeEqual, no length oracle.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * GET /metrics: 404 while METRICS_TOKEN is unset (metrics are off), 401
 * without `Authorization: Bearer <METRICS_TOKEN>`, else the text exposition.
 */
export async function metricsAnswer(authorization: string | null): Promise<MetricsAnswer> {
  const token = getConfig().METRICS_TOKEN;
  const json = [['Content-Type', 'application/json']] as [string, string][];
  if (!token) {
    return { status: 404, headers: json, body: JSON.stringify({ error: 'metrics are off' }) };
  }
  const given = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!given || !sameSecret(given, token)) {
    return {
      status: 401,
      headers: [...json, ['WWW-Authenticate', 'Bearer realm="metrics"']],
      body: JSON.stringify({ error: 'a valid metrics token is required' }),
    };
  }
  await watchStorePool();
  const { registry } = metrics();
  return {
    status: 200,
    headers: [['Content-Type', registry.contentType]],
    body: await registry.metrics(),
  };
}
