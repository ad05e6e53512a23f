/**
 * The entry of Next's worker thread (lib/http/next-thread.ts says why): Next
 * prepared, served on a loopback port only the main thread knows, with the
 * main thread's guard token and authentication state.
 */
import http from 'node:http';
import { format, stripVTControlCharacters } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { adoptAuthState } from '@/lib/auth/shared-state';
import { remoteAuthState } from '@/lib/auth/thread-auth-state';
import { getLogger } from '@/lib/ops/log';
import { setStoreLogger } from '@/lib/store/log';
import { trustUpstreamGuard } from './front-door';
import type { NextThreadInput, NextThreadReady } from './next-thread';

async function main(): Promise<void> {
  const input = workerData as NextThreadInput;
  const port = parentPort!;
  // Before Next loads: its instrumentation's register() then finds the
  // guard in place, and every getAuthState() of its bundles the main's.
  trustUpstreamGuard(input.token);
  adoptAuthState(remoteAuthState(input.authPort, input.authKind));
  // This thread's stores (its bundles share globalThis) report through the log, at its level.
  setStoreLogger(getLogger());
  // Next reports a page that failed to render with console.error: several
  // lines, not JSON, at any LOG_LEVEL (silent included). Through the log
  // instead, one JSON line with the error and its stack.
  const nextLog = getLogger().child({ component: 'next' });
  console.error = (...args: unknown[]) => {
    const err = args.find((arg) => arg instanceof Error);
    const rest = args.filter((arg) => arg !== err);
    nextLog.error({ err, detail: rest.length ? format(...rest) : undefined }, 'Next.js error');
  };
  console.warn = (...args: unknown[]) =>
    nextLog.warn({ detail: format(...args) }, 'Next.js warning');
  // Its notices too ("✓ Running next.config.js took 119ms" at every start):
  // a line on stdout that was not JSON.
  console.log = console.info = (...args: unknown[]) =>
    nextLog.info({ detail: stripVTControlCharacters(format(...args)).trim() }, 'Next.js');

  const { default: next } = await import('next');
  const app = next({ dev: false, hostname: input.hostname, port: input.port, dir: input.dir });
  await app.prepare();
  const handle = app.getRequestHandler();
  const log = getLogger();
  const server = http.createServer({ maxHeaderSize: input.maxHeaderSize }, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error({ err: error, method: req.method }, 'Next.js failed');
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // The main thread's agent keeps its sockets; it closes them first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  port.postMessage({ port: address.port } satisfies NextThreadReady);

  port.on('message', (message) => {
    if (message !== 'close') return;
    server.closeAllConnections();
    server.close(() => {
      void app
        .close()
        .catch(() => undefined)
        .finally(() => process.exit(0));
    });
  });
}

void main().catch((error: unknown) => {
  // The main thread sees the thread end before it was ready and says so.
  getLogger().error({ err: error }, "Next's thread could not start");
  process.exit(1);
});
