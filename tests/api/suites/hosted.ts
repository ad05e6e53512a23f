import { describe } from 'node:test';
import type { TestServer } from '@/tests/helpers/server';
import { authSuites } from './auth';
import { clientSuites } from './clients';
import { exportSuites } from './export';
import { extensionSuites } from './extensions';
import { getSuites } from './get';
import { listSuites } from './list';
import { openApiSuites } from './openapi';
import { variantSuites } from './variant';
import { walkSuites } from './walk';

/**
 * Everything the hosted API must do, whichever front door serves it:
 * hosted.test.ts runs it against `npm start`, next-start.test.ts against
 * `next start`.
 */
export function hostedApiSuites(server: () => TestServer): void {
  describe('real Digest clients', () => clientSuites(server));
  describe('Digest authentication', () => authSuites(server));
  describe('list events', () => listSuites(server));
  describe('get one event', () => getSuites(server));
  describe('page walk', () => walkSuites(server));
  describe('extensions', () => extensionSuites(server));
  describe('export', () => exportSuites(server));
  describe('OpenAPI', () => openApiSuites(server));
  describe('variant', () => variantSuites(server));
}
