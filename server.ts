/**
 * The production server (`npm start`): a custom Next.js server whose API
 * routes skip Next entirely. Requests under /api/public/v1.0/ go straight to
 * the framework-free handler in lib/api (the fast path: Next's per-request
 * machinery costs several times the API's own work); everything else (the
 * dashboard) is Next's. The Next route handlers under app/api/public call the
 * same handler through the same route table, so `next start` serves the same
 * API, only slower (tests/api/parity.test.ts compares the two).
 *
 * Environment: PORT (default 3000; 0 picks a free port), HOSTNAME (default
 * 0.0.0.0), DATABASE_URL and the rest of lib/config.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createNodeApiHandler } from '@/lib/api/node-adapter';
import { isApiTarget, nextRoutingTarget } from '@/lib/api/routes';
import { getConfig } from '@/lib/config';
import { installFrontDoorGuard } from '@/lib/http/front-door';
import { getStore } from '@/lib/store';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  // Next and React pick their production builds from NODE_ENV when loaded.
  (process.env as Record<string, string | undefined>).NODE_ENV = 'production';
  const port = Number.parseInt(process.env.PORT ?? '3000', 10);
  const hostname = process.env.HOSTNAME || '0.0.0.0';
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`PORT must be an integer from 0 to 65535, got ${process.env.PORT}`);
  }

  const config = getConfig(); // fail fast on bad configuration
  // Before Next loads (its instrumentation installs the same guard, a no-op
  // then) and before we listen: no request is ever seen unguarded. Without a
  // trusted proxy, what a client sends in X-Forwarded-For never reaches Next
  // (it would dodge the sign-in throttle); the fast path reads the socket.
  installFrontDoorGuard({ trustProxy: config.TRUST_PROXY, routeForNext: nextRoutingTarget });
  const store = await getStore(); // opens and migrates before we accept traffic

  const { default: next } = await import('next');
  const app = next({ dev: false, hostname, port, dir: path.resolve(__dirname) });
  await app.prepare();
  const handleNext = app.getRequestHandler();
  const handleApi = createNodeApiHandler();

  const server = http.createServer((req, res) => {
    if (isApiTarget(req.url)) {
      handleApi(req, res);
      return;
    }
    handleNext(req, res).catch((error: unknown) => {
      console.error(`[org-events] Next.js failed on ${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000; // outlive common proxies' idle timeouts
  server.headersTimeout = 66_000; // must exceed keepAliveTimeout

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, resolve);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  console.log(
    `> org-events ready on http://${shownHost}:${address.port} (${config.EVENTS_VARIANT}, ${store.dialect})`,
  );

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`> ${signal}: finishing in-flight requests`);
    const force = setTimeout(() => {
      console.error('> shutdown timed out; closing remaining connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      void (async () => {
        await app.close().catch(() => undefined);
        await store.close().catch(() => undefined);
        clearTimeout(force);
        process.exit(0);
      })();
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(
    `> org-events failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
