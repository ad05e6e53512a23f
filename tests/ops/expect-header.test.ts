import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * An `Expect` other than 100-continue (RFC 9110 §10.1.1: a server MAY
 * answer 417) is ignored and the request served: Node's default 417 had
 * an empty body, no request id and no log line. Needs `npm run build`.
 */

let server: TestServer;

before(async () => {
  server = await startTestServer({ env: { REDIS_URL: '', LOG_LEVEL: 'info' } });
});
after(async () => {
  await server?.stop();
});

/** One request written as is on a socket of its own; the whole answer as text. */
function rawRequest(lines: string[]): Promise<string> {
  const base = new URL(server.baseUrl);
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname, () =>
      socket.write([...lines, `Host: ${base.host}`, 'Connection: close', '', ''].join('\r\n')),
    );
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

describe('an Expect header the server does not know', () => {
  test('an API request is served as without it (the Digest challenge)', async () => {
    const target = `/api/public/v1.0/orgs/${server.orgId}/events`;
    const answer = await rawRequest([
      `GET ${target} HTTP/1.1`,
      'Expect: something-else',
      'X-Request-Id: expect-api',
    ]);
    assert.match(answer, /^HTTP\/1\.1 401 /, JSON.stringify(answer.slice(0, 200)));
    assert.match(answer, /\r\nWWW-Authenticate: Digest /i);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    const without = await fetch(`${server.baseUrl}${target}`);
    assert.equal(body, await without.text());
  });

  test("a dashboard page is served by Next's thread as without it", async () => {
    const answer = await rawRequest([
      'GET /sign-in HTTP/1.1',
      'Expect: something-else',
      'X-Request-Id: expect-page',
    ]);
    assert.match(answer, /^HTTP\/1\.1 200 /, JSON.stringify(answer.slice(0, 200)));
    assert.match(answer, /<html/i);
  });

  test('both are logged with their status', async () => {
    const statusOf = (requestId: string) =>
      server.logLines().find((line) => line.requestId === requestId)?.status;
    for (let i = 0; i < 50 && statusOf('expect-page') === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(statusOf('expect-api'), 401);
    assert.equal(statusOf('expect-page'), 200);
  });
});
