import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { DigestClient, type TestResponse } from '@/tests/helpers/digest-client';
import type { TestKey, TestServer } from '@/tests/helpers/server';

/** Suites receive the server lazily: it starts in the test file's `before`. */
export type ServerRef = () => TestServer;

const clients = new WeakMap<TestServer, Map<string, DigestClient>>();

/** One Digest client per server and key, reusing its nonce like a browser does. */
export function client(server: TestServer, key: TestKey = server.keys.member): DigestClient {
  let byKey = clients.get(server);
  if (!byKey) clients.set(server, (byKey = new Map<string, DigestClient>()));
  let found = byKey.get(key.publicKey);
  if (!found) byKey.set(key.publicKey, (found = new DigestClient(server.baseUrl, key)));
  return found;
}

export const eventsPath = (server: TestServer, query = '', orgId = server.orgId) =>
  `/api/public/v1.0/orgs/${orgId}/events${query ? `?${query}` : ''}`;

export const eventPath = (server: TestServer, id: string, query = '', orgId = server.orgId) =>
  `/api/public/v1.0/orgs/${orgId}/events/${id}${query ? `?${query}` : ''}`;

export type ListBody = {
  links: { href: string; rel: string }[];
  results: Record<string, unknown>[];
  totalCount: number;
  status?: number;
};

export async function list(server: TestServer, query = '', key?: TestKey): Promise<ListBody> {
  return client(server, key).getJson<ListBody>(eventsPath(server, query));
}

/** Asserts the real error shape, status, code and X-Error-Code header. */
export function assertError(res: TestResponse, status: number, errorCode: string) {
  assert.equal(res.status, status, res.text);
  const body = res.json<Record<string, unknown>>();
  assert.deepEqual(Object.keys(body), ['detail', 'error', 'errorCode', 'parameters', 'reason']);
  assert.equal(body.error, status);
  assert.equal(body.errorCode, errorCode);
  assert.equal(res.headers.get('x-error-code'), errorCode);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.equal(res.headers.get('www-authenticate'), null);
  return body;
}

/**
 * Content-Length as each front door sends it: server.ts's fast path always
 * does; Next drops it from route handlers' responses and streams them
 * chunked, so under `next start` only the body's size is guaranteed.
 */
export function assertContentLength(server: TestServer, res: TestResponse, bytes: number) {
  if (server.door === 'npm start') {
    assert.equal(res.headers.get('content-length'), String(bytes));
  } else {
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
  }
}

/**
 * Vary as each front door sends it: exactly `Accept-Encoding` from the fast
 * path; Next puts the values of its own router (rsc, next-router-…) first,
 * then ours.
 */
export function assertVary(server: TestServer, res: TestResponse) {
  const vary = res.headers.get('vary');
  if (server.door === 'npm start') {
    assert.equal(vary, 'Accept-Encoding');
    return;
  }
  const values = (vary ?? '').split(',').map((value) => value.trim());
  assert.equal(values.at(-1), 'Accept-Encoding', `Vary: ${vary}`);
  const nexts = values.slice(0, -1);
  assert.ok(nexts.length > 0 && nexts.every((v) => v === 'rsc' || v.startsWith('next-')), vary!);
}

export function linkOf(body: { links: { href: string; rel: string }[] }, rel: string) {
  return body.links.find((link) => link.rel === rel)?.href;
}

/** Runs a command, collecting stdout; rejects on a non-zero exit. */
export function run(command: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    // 'close', not 'exit': after the pipes are read to their end.
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`${command} exited ${code}: ${stderr}`)),
    );
    child.stdin.end(input ?? '');
  });
}

/** The events the API should return for a filter, in its order. */
export function expectedIds(
  server: TestServer,
  filter: { types?: string[]; min?: number; max?: number } = {},
): string[] {
  return server.events.org
    .filter((e) => !filter.types || filter.types.includes(e.eventTypeName))
    .filter((e) => filter.min === undefined || e.created >= filter.min)
    .filter((e) => filter.max === undefined || e.created <= filter.max)
    .map((e) => e.id);
}
