import { AsyncLocalStorage } from 'node:async_hooks';
import type { Socket } from 'node:net';
import type pg from 'pg';

/**
 * A deadline for each query on a pooled connection, for a server that stops
 * answering without closing anything: frozen, or gone behind a network that
 * drops packets (a failover that moved its address). TCP itself then waits
 * about 15 minutes before it gives up on the connection, and every request
 * on it hung as long.
 *
 * At the deadline the query is cancelled on the server (pg_cancel_backend,
 * on a connection of its own): a server that is only slow ends it as a
 * statement it gave up on (57014: a 503 "database query timed out", nothing
 * of it committed), and the connection stays in the pool. A query still
 * unsettled `graceMs` later has a server that did not act on the cancel
 * (silent, or another server now behind the address): the connection's
 * socket is destroyed, the query fails as unavailable (ETIMEDOUT, a 503
 * "database unreachable"), and the pool opens a new connection when next
 * asked. Work that may rightly run longer (migrations, the vacuum after a
 * bulk load) runs withoutQueryDeadline; COPY streams have none.
 */

export type QueryDeadline = {
  deadlineMs: number;
  graceMs: number;
  /** Asks the server to cancel what the backend with this pid runs. */
  cancel: (backendPid: number) => Promise<void>;
};

const exempt = new AsyncLocalStorage<true>();

/** Runs `body` with no deadline on the queries it makes. */
export function withoutQueryDeadline<T>(body: () => Promise<T>): Promise<T> {
  return exempt.run(true, body);
}

/** Gives every query (a promise-returning one) of each connection the pool opens the deadline. */
export function applyQueryDeadlines(pool: pg.Pool, deadline: QueryDeadline): void {
  pool.on('connect', (client) => withDeadline(client, deadline));
}

function withDeadline(client: pg.PoolClient, deadline: QueryDeadline): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (!(result instanceof Promise) || exempt.getStore()) return result;
    let grace: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      const pid = (client as { processID?: number | null }).processID;
      if (pid) deadline.cancel(pid).catch(() => undefined);
      grace = setTimeout(() => {
        const silent = new Error(
          `The database did not answer within ${(deadline.deadlineMs + deadline.graceMs) / 1000} s`,
        );
        (silent as NodeJS.ErrnoException).code = 'ETIMEDOUT';
        socketOf(client)?.destroy(silent);
      }, deadline.graceMs);
    }, deadline.deadlineMs);
    return result.finally(() => {
      clearTimeout(timer);
      clearTimeout(grace);
    });
  };
}

/** node-postgres keeps a client's socket at client.connection.stream (not in its types). */
export function socketOf(client: pg.Client | pg.PoolClient): Socket | undefined {
  return (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
}
