import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
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

/** Sends raw bytes and reads until the server closes the connection. */
function rawExchange(request: string): Promise<string> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(request));
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text)).on('error', reject);
  });
}

describe('requests without Host', () => {
  test('HTTP/1.1 without Host: 400 MALFORMED_REQUEST in the error body, connection closed', async () => {
    for (const path of ['/api/public/v1.0/orgs', '/healthz', '/']) {
      const answer = await rawExchange(`GET ${path} HTTP/1.1\r\n\r\n`);
      const [head, body] = answer.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 400 Bad Request\r\n/, path);
      assert.match(head!, /\r\nConnection: close\r\n/i);
      assert.match(head!, /\r\nX-Error-Code: MALFORMED_REQUEST\r\n/i);
      assert.deepEqual(JSON.parse(body!), {
        detail: 'The request is not valid HTTP/1.1.',
        error: 400,
        errorCode: 'MALFORMED_REQUEST',
        parameters: [],
        reason: 'Bad Request',
      });
    }
  });

  test('HTTP/1.0 without Host is still served (links fall back to localhost)', async () => {
    const answer = await rawExchange('GET /api/public/v1.0/orgs HTTP/1.0\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 401 /);
    assert.match(answer, /\r\nWWW-Authenticate: Digest /i);
  });
});
