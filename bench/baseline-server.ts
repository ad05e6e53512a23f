/**
 * The benchmark's baseline: a plain node:http server running the very same
 * lib/ API handler as `npm start`, with no Next.js loaded at all. Our server's
 * throughput is reported as a ratio of this one's, measured in the same run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeApiHandler } from '@/lib/api/node-adapter';
import { getStore } from '@/lib/store';

async function main(): Promise<void> {
  await getStore();
  const handleApi = createNodeApiHandler();
  const server = http.createServer(handleApi);
  server.keepAliveTimeout = 65_000;
  const port = Number.parseInt(process.env.PORT ?? '0', 10);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: actual } = server.address() as AddressInfo;
  console.log(`> baseline ready on http://127.0.0.1:${actual}`);
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((error: unknown) => {
  console.error(`baseline failed: ${String(error)}`);
  process.exit(1);
});
