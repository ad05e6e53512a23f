import { after, before, describe } from 'node:test';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { authSuites } from './suites/auth';
import { clientSuites } from './suites/clients';
import { extensionSuites } from './suites/extensions';
import { getSuites } from './suites/get';
import { listSuites } from './suites/list';
import { openApiSuites } from './suites/openapi';
import { variantSuites } from './suites/variant';
import { walkSuites } from './suites/walk';

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

describe('hosted API on SQLite through next start', () => {
  describe('real Digest clients', () => clientSuites(ref));
  describe('Digest authentication', () => authSuites(ref));
  describe('list events', () => listSuites(ref));
  describe('get one event', () => getSuites(ref));
  describe('page walk', () => walkSuites(ref));
  describe('extensions', () => extensionSuites(ref));
  describe('OpenAPI', () => openApiSuites(ref));
  describe('variant', () => variantSuites(ref));
});
