import { AsyncLocalStorage } from 'node:async_hooks';
import type { Socket } from 'node:net';
import type pg from 'pg';

/**
 * A deadline for each query on a pooled connection, for a server that stops
 * answering without closing anything: frozen, or gone behind a network that
 * drops packets (a failover that moved its address). TCP itself then waits
 * about 15 minutes before it gives up on the connection, and every request
 * on it hangs as long. At the deadline the connection's socket is destroyed:
 * the query fails as unavailable (ETIMEDOUT, a 503 with Retry-After), and
 * the pool drops the connection and opens a new one when next asked. A slow
 * query cannot be told from a silent server from here, so the deadline is
 * far beyond any request's (the server's own statement_timeout is the one
 * for slow queries). Work that may rightly run longer (migrations, the
 * vacuum after a bulk load) runs withoutQueryDeadline; COPY streams have
 * none.
 */

const exempt = new AsyncLocalStorage<true>();
const watched = new WeakSet<pg.PoolClient>();

/** Runs `body` with no deadline on the queries it makes. */
export function withoutQueryDeadline<T>(body: () => Promise<T>): Promise<T> {
  return exempt.run(true, body);
}

/** Gives every later query of `client` (a promise-returning one) the deadline. */
export function applyQueryDeadline(client: pg.PoolClient, deadlineMs: number): void {
  if (watched.has(client)) return;
  watched.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise) || exempt.getStore()) return result;
    const timer = setTimeout(() => {
      const silent = new Error(`The database did not answer within ${deadlineMs / 1000} s`);
      (silent as NodeJS.ErrnoException).code = 'ETIMEDOUT';
      socketOf(client)?.destroy(silent);
    }, deadlineMs);
    return result.finally(() => clearTimeout(timer));
  };
}

/** node-postgres keeps the socket at client.connection.stream (not in its types). */
function socketOf(client: pg.PoolClient): Socket | undefined {
  return (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
}
