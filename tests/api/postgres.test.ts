import { after, before, describe } from 'node:test';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { authSuites } from './suites/auth';
import { exportSuites } from './suites/export';
import { getSuites } from './suites/get';
import { listSuites } from './suites/list';
import { walkSuites } from './suites/walk';

/** The same API over PostgreSQL: list, get, filters, the walk and isolation. */
let server: TestServer;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const ref = () => server;

before(async () => {
  database = await createTestDatabase();
  server = await startTestServer({ variant: 'hosted', databaseUrl: database.url });
});
after(async () => {
  await server?.stop();
  await database?.drop();
});

describe('hosted API on PostgreSQL', () => {
  describe('list events', () => listSuites(ref));
  describe('get one event', () => getSuites(ref));
  describe('page walk', () => walkSuites(ref));
  describe('Digest authentication and isolation', () => authSuites(ref));
  describe('export', () => exportSuites(ref));
});
