import { after, before, describe } from 'node:test';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { hostedApiSuites } from './suites/hosted';

/**
 * The built server (`npm start`), hosted variant, on SQLite, driven over
 * HTTP: one server for the whole file.
 */
let server: TestServer;
const ref = () => server;

before(async () => {
  server = await startTestServer({ variant: 'hosted' });
});
after(async () => {
  await server?.stop();
});

describe('hosted API on SQLite', () => hostedApiSuites(ref));
