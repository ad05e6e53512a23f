import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { answerClientError } from './client-error';

/** The raw answer a server wired as server.ts wires it gives to `request`. */
async function rawAnswer(headers: readonly [string, string][], request: string): Promise<string> {
  const server = http.createServer();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: net.Socket) =>
    answerClientError(error, socket, () => ({ status: 400, headers, body: '{"error":400}' })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
      let answer = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
    });
  } finally {
    server.close();
  }
}

test('a refused request is answered with its body, a request id, and only headers res.setHeader would send', async () => {
  const answer = await rawAnswer(
    [
      ['Content-Type', 'application/json'],
      ['X-Split', 'one\r\nInjected: yes'],
      ['Bad Name', 'x'],
    ],
    'GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
  );
  const [head, body] = answer.split('\r\n\r\n');
  assert.match(head!, /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.match(head!, /\r\nContent-Type: application\/json\r\n/);
  assert.match(head!, /\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
  assert.doesNotMatch(head!, /Injected|X-Split|Bad Name/);
  assert.match(head!, /\r\nContent-Length: 13\r\n/);
  assert.equal(body, '{"error":400}');
});
