import { after, before, describe } from 'node:test';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { timingSuites } from './suites/timing';
import { variantSuites } from './suites/variant';
import { walkSuites } from './suites/walk';

/**
 * The self-hosted variant, with short-lived nonces (NONCE_TTL_SECONDS=5) and
 * TRUST_PROXY=true so throttling tests can use their own client addresses.
 */
let server: TestServer;
const ref = () => server;

before(async () => {
  server = await startTestServer({
    variant: 'self-hosted',
    env: { NONCE_TTL_SECONDS: '5', TRUST_PROXY: 'true' },
  });
});
after(async () => {
  await server?.stop();
});

describe('self-hosted API', () => {
  describe('variant', () => variantSuites(ref));
  describe('stale nonces, throttling, proxy', () => timingSuites(ref));
  describe('page walk', () => walkSuites(ref));
});
