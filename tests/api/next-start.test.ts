import { after, before, describe } from 'node:test';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { hostedApiSuites } from './suites/hosted';

/**
 * The suites of hosted.test.ts against `next start`: the API through the
 * Next route handlers under app/api/public instead of server.ts's fast path.
 * One server for the whole file.
 */
let server: TestServer;
const ref = () => server;

before(async () => {
  server = await startTestServer({ door: 'next start', variant: 'hosted' });
});
after(async () => {
  await server?.stop();
});

describe('hosted API on SQLite through next start', () => hostedApiSuites(ref));
