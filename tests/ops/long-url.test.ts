import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { eventCategories } from '@/lib/domain/catalog';
import { send } from '@/tests/helpers/digest-client';
import { startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * URLs up to 16 KB: Node's default header limit (16 KB for the request line
 * and every header together) answered 431 long before that, and a Digest
 * Authorization header repeats the whole URL in its `uri`. Needs a build
 * and curl.
 */

const run = promisify(execFile);
let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server?.stop();
});

/** An event list URL of at least `bytes` bytes, filtered by real event type names. */
function longListPath(orgId: string, bytes: number): string {
  const names = eventCategories('hosted').flatMap((category) => category.types);
  let path = `/api/public/v1.0/orgs/${orgId}/events?itemsPerPage=5`;
  for (let i = 0; path.length < bytes; i++) path += `&eventType=${names[i % names.length]}`;
  return path;
}

/** A request (a PATCH with a body), read by a client that takes long response headers (fetch stops at 16 KB). */
function sendRaw(
  method: string,
  target: string,
): Promise<{ status: number; location?: string; text: string }> {
  const base = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, method, path: target, maxHeaderSize: 128 * 1024 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }),
        );
      },
    );
    req.on('error', reject);
    req.end(
      method === 'PATCH' ? 'a request body, as a form or a fuzzer might send one.' : undefined,
    );
  });
}

describe('long URLs', () => {
  test('the transport takes a 16 KB request-target (Node alone answered 431)', async () => {
    const res = await send(`${server.baseUrl}/healthz?pad=${'x'.repeat(16 * 1024)}`);
    assert.equal(res.status, 200);
  });

  test('a dashboard URL near the 64 KB limit reaches Next, and a redirect repeating it comes back', async () => {
    // The target crosses to Next's thread twice (the request line and the
    // guard's facts header), and a redirect's Location repeats it on the way
    // back: at the public limit (or Node's 16 KB for responses) that hop
    // overflowed, a 431 from Next's thread or a 503 where a 308 was due.
    const query = `?pad=${'y'.repeat(60 * 1024)}`;
    for (const method of ['GET', 'PATCH']) {
      const page = await sendRaw(method, `/orgs/x${query}`);
      assert.equal(page.status, 404, `${method}: ${page.status} ${page.text.slice(0, 300)}`);
      const redirect = await sendRaw(method, `/orgs/.${query}`);
      assert.equal(
        redirect.status,
        308,
        `${method}: ${redirect.status} ${redirect.text.slice(0, 300)}`,
      );
      assert.equal(redirect.location, `/orgs${query}`);
    }
  });

  test('curl --digest with a 10 KB URL gets 200, and its log line carries the request id', async () => {
    const path = longListPath(server.orgId, 10 * 1024);
    assert.ok(path.length >= 10 * 1024 && path.length < 11 * 1024, String(path.length));
    const { member } = server.keys;
    const { stdout } = await run('curl', [
      ...['-s', '--digest', '-u', `${member.publicKey}:${member.privateKey}`],
      ...['-H', 'X-Request-Id: long-url-10k', '-o', '/dev/null', '-w', '%{http_code}'],
      `${server.baseUrl}${path}`,
    ]);
    assert.equal(stdout, '200');
    const deadline = Date.now() + 3_000;
    let line: Record<string, unknown> | undefined;
    while (!line && Date.now() < deadline) {
      line = server
        .logLines()
        .find((entry) => entry.requestId === 'long-url-10k' && entry.status === 200);
      if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(line, `no 200 log line for long-url-10k:\n${server.output().slice(-3_000)}`);
    assert.equal(line.route, 'listOrgEvents');
    assert.equal(line.publicKey, member.publicKey);
  });
});
