import { errorMessage } from '@/lib/domain/errors';
import type { RedisAuthState } from '@/lib/auth/redis-state';
import { getAuthState } from '@/lib/auth/shared-state';
import { getStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { getLogger } from './log';

/**
 * GET /healthz and GET /readyz, outside the API's authentication, for load
 * balancers and orchestrators; served by both front doors (server.ts's fast
 * path and the route files under app/).
 *
 * - /healthz: the process runs and answers. Always 200: restarting a
 *   process because its database is away would not bring the database back.
 * - /readyz: the store is open, migrated (opening it migrates) and answers a
 *   query within READY_TIMEOUT_MS, and so does Redis when REDIS_URL is set;
 *   503 otherwise, so a balancer sends traffic elsewhere until it is back.
 */

export type ProbeAnswer = { status: number; headers: [string, string][]; body: string };

const READY_TIMEOUT_MS = 2_000;
const JSON_HEADERS: [string, string][] = [
  ['Content-Type', 'application/json'],
  ['Cache-Control', 'no-store'],
];

/**
 * What a store may offer beyond EventStore for the probes, read
 * structurally so the probes work with engines that have them and without.
 * health(): `{ ready, reason?, pendingMigrations }` (answers, and is migrated).
 */
type StoreProbes = {
  health?: () => Promise<{ ready: boolean; reason?: string; pendingMigrations?: string[] }>;
};

const answer = (status: number, body: object): ProbeAnswer => ({
  status,
  headers: JSON_HEADERS,
  body: JSON.stringify(body),
});

export function healthzAnswer(): ProbeAnswer {
  return answer(200, { status: 'ok', uptimeSeconds: Math.round(process.uptime()) });
}

/** The store's own health check when it has one, else a one-row indexed lookup. */
async function checkStore(store: EventStore): Promise<void> {
  const probes = store as EventStore & StoreProbes;
  if (probes.health) {
    const health = await probes.health();
    if (!health.ready) {
      const pending = health.pendingMigrations?.length
        ? ` (pending migrations: ${health.pendingMigrations.join(', ')})`
        : '';
      throw new Error(`${health.reason ?? 'store not ready'}${pending}`);
    }
    return;
  }
  // Reads the organizations table by primary key: proves a connection, a
  // query and the schema, whatever the size of the data (opening the store
  // migrated it).
  await store.getOrg('000000000000000000000000');
}

/**
 * With REDIS_URL, Redis answers a command: without it every authenticated
 * request is a 503, so the instance is not ready either (it said ready while
 * answering nothing but 503s). Where the state is another thread's (Next's
 * thread under `npm start` calls the main thread's), that thread's probe
 * answers for it.
 */
async function checkSharedState(): Promise<void> {
  const state = getAuthState();
  if (state.kind !== 'redis' || !('probe' in state)) return;
  await (state as RedisAuthState).probe();
}

// Shared by server.ts and Next's bundles, like the store.
const DRAINING_KEY = Symbol.for('org-events.draining');
type DrainingHolder = { [DRAINING_KEY]?: boolean };

/**
 * From a shutdown signal on, /readyz answers 503 so that a balancer still
 * holding a keep-alive connection stops sending new work while in-flight
 * requests finish.
 */
export function markDraining(): void {
  (globalThis as DrainingHolder)[DRAINING_KEY] = true;
}

export async function readyzAnswer(): Promise<ProbeAnswer> {
  if ((globalThis as DrainingHolder)[DRAINING_KEY]) return answer(503, { status: 'stopping' });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([(async () => checkStore(await getStore()))(), checkSharedState()]),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`store or Redis did not answer within ${READY_TIMEOUT_MS} ms`)),
          READY_TIMEOUT_MS,
        );
      }),
    ]);
    return answer(200, { status: 'ready' });
  } catch (error) {
    // The reason goes to the log only: /readyz is public, error texts are not.
    const reason = errorMessage(error);
    getLogger().warn({ route: 'readyz', reason: reason.slice(0, 500) }, 'not ready');
    return answer(503, { status: 'unavailable' });
  } finally {
    clearTimeout(timer);
  }
}
