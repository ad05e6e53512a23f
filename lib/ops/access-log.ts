import { getLogger } from './log';
import { observeAuthFailure, observeLockout, observeRequest, type OtherRoute } from './metrics';

/**
 * One answered request: what its log line says and what the request metrics
 * count. Written by the API handler (both front doors) and by the front-door
 * guard for everything else (the dashboard, probes, Next's assets).
 */
export type RequestRecord = {
  requestId: string;
  method: string;
  /** An operation name from lib/api/routes.ts, 'unmatched', or a non-API route name. */
  route: string;
  status: number;
  durationMs: number;
  orgId?: string;
  /** The caller's public key: the authenticated one, or the one a refused Digest named. */
  publicKey?: string;
  clientAddress?: string;
  /** Non-API requests only: the path, without query, shortened. */
  path?: string;
  /** A failure that is not an API answer (a bug, the store away): logged with its stack. */
  err?: unknown;
  /** How authentication refused the request, when it did. */
  auth?:
    | { outcome: 'challenge'; reason: string; stale: boolean }
    | { outcome: 'lockout'; retryAfterSeconds: number };
};

/**
 * The first leg of every Digest handshake, a stale nonce and a dashboard
 * session ended by the idle timeout are routine, not failures.
 */
function isRoutineChallenge(auth: RequestRecord['auth']): boolean {
  return (
    auth?.outcome === 'challenge' &&
    (auth.reason === 'no credentials' || auth.reason === 'session idle' || auth.stale)
  );
}

export function recordRequest(record: RequestRecord): void {
  observeRequest(record.route, record.method, record.status, record.durationMs);
  if (record.auth?.outcome === 'lockout') observeLockout();
  else if (record.auth?.outcome === 'challenge') observeAuthFailure(record.auth.reason);

  const log = getLogger();
  const line = { ...record, durationMs: Math.round(record.durationMs * 100) / 100 };
  // 503: the store or Redis is away, answered as designed; anything else 5xx is a bug.
  // /readyz's 503 is the answer asked for, not a request that failed: while
  // the server drains every balancer poll gets one (a warning each), and a
  // fault behind one is logged by the probe itself ('not ready', with why).
  if (record.status >= 500 && record.status !== 503) log.error(line, 'request failed');
  else if (record.status === 503 && record.route !== 'readyz') {
    log.warn(line, 'service unavailable');
  } else if (record.auth?.outcome === 'lockout') log.warn(line, 'lockout');
  else if (record.auth && !isRoutineChallenge(record.auth)) log.warn(line, 'auth failure');
  else log.info(line, 'request');
}

/** The route name of a request outside the API (a fixed set: bounded metric labels). */
export function nonApiRouteName(path: string): OtherRoute {
  if (path === '/healthz' || path === '/healthz/') return 'healthz';
  if (path === '/readyz' || path === '/readyz/') return 'readyz';
  if (path === '/metrics' || path === '/metrics/') return 'metrics';
  if (path.startsWith('/_next/')) return 'next-static';
  return 'dashboard';
}
