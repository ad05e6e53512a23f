import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
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

describe('long URLs', () => {
  test('the transport takes a 16 KB request-target (Node alone answered 431)', async () => {
    const res = await send(`${server.baseUrl}/healthz?pad=${'x'.repeat(16 * 1024)}`);
    assert.equal(res.status, 200);
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
