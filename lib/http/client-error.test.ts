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

/**
 * What a client pipelining a good request and then a malformed one reads:
 * `answer` answers the good one, `talk` writes both on the connection.
 */
async function pipelinedAnswer(
  answer: http.RequestListener,
  talk: (socket: net.Socket) => void,
): Promise<string> {
  const server = http.createServer(answer);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: net.Socket) =>
    answerClientError(error, socket, () => ({ status: 400, headers: [], body: '{"error":400}' })),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => talk(socket));
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      setTimeout(() => socket.destroy(), 3000).unref();
    });
  } finally {
    server.close();
  }
}

const statusesOf = (answer: string) =>
  [...answer.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);

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

test('a malformed request pipelined after one whose answer has begun is refused after that answer, which is not cut', async () => {
  const answer = await pipelinedAnswer(
    (_req, res) => {
      // The first request's answer is under way (a streamed page or export):
      // its head and first part are out when the malformed request is parsed.
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '21' });
      res.write('first part, ');
      setTimeout(() => res.end('last part'), 200);
    },
    (socket) => {
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
      // Sent once the first answer has begun.
      socket.once('data', () => socket.write('BAD\r\n\r\n'));
    },
  );
  // Before, the connection was destroyed: the first answer was cut after its first part.
  assert.deepEqual(statusesOf(answer), ['200', '400'], answer);
  assert.match(answer, /first part, last part/);
  assert.match(answer, /\{"error":400\}$/);
});

test('a malformed request pipelined after one still being answered is refused after that answer, not in its place', async () => {
  const answer = await pipelinedAnswer(
    // The first request's answer takes a moment (authentication, the store).
    (_req, res) => setTimeout(() => res.end('first'), 100),
    (socket) => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\nBAD\r\n\r\n'),
  );
  // Before, the 400 went out at once and was read as the first request's answer.
  assert.deepEqual(statusesOf(answer), ['200', '400'], answer);
  assert.match(answer, /\r\n\r\nfirst/);
});
