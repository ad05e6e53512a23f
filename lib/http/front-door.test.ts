import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  installFrontDoorGuard,
  WIRE_FACTS_HEADER,
  wireFactsFromHeaders,
  wireFactsOf,
} from './front-door';

type Seen = {
  fromMessage: unknown;
  fromHeaders: unknown;
  forwardedFor: unknown;
  cookie: unknown;
  contentSecurityPolicy: unknown;
};

let server: http.Server;
let port: number;

before(async () => {
  installFrontDoorGuard({
    trustProxy: false,
    answeredBeforeNext: (routed) => routed.startsWith('/fast'),
  });
  server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const seen: Seen = {
      fromMessage: wireFactsOf(req) ?? null,
      fromHeaders: wireFactsFromHeaders(headers) ?? null,
      forwardedFor: req.headers['x-forwarded-for'],
      cookie: req.headers.cookie ?? null,
      contentSecurityPolicy: req.headers['content-security-policy'] ?? null,
    };
    res.end(JSON.stringify(seen));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

function get(target: string, headers: Record<string, string>): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path: target, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body) as Seen));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the guard hands Next the peer, the target as sent and the request id, whatever the client claims', async () => {
  const forged = 'forged 10.9.9.9 1 evil /elsewhere';
  const seen = await get('/page?a=%20b', {
    [WIRE_FACTS_HEADER]: forged,
    'X-Request-Id': 'req-123',
    'X-Forwarded-For': '10.1.1.1',
  });
  const expected = {
    remoteAddress: '127.0.0.1',
    target: '/page?a=%20b',
    requestId: 'req-123',
    encrypted: false,
  };
  assert.deepEqual(seen.fromMessage, expected);
  assert.deepEqual(seen.fromHeaders, expected);
  assert.equal(seen.forwardedFor, '127.0.0.1');
});

test('targets answered before Next carry their facts on the message only, and a forged header is dropped', async () => {
  const seen = await get('/fast/x', { [WIRE_FACTS_HEADER]: 'forged 10.9.9.9 1 evil /x' });
  assert.equal((seen.fromMessage as { target: string }).target, '/fast/x');
  assert.equal(seen.fromHeaders, null);
});

test("a request bound for Next keeps only this service's cookies (Next's handlers were quadratic in their number)", async () => {
  const foreign = Array.from({ length: 1000 }, (_, i) => `c${i}=v`).join('; ');
  // The session over HTTPS is __Host-org_events_session.
  const own =
    '__Host-org_events_session=sealed; org_events_session=older; org_events_tz=Europe%2FParis';
  assert.equal((await get('/page', { Cookie: `${foreign}; ${own}; other=1` })).cookie, own);
  assert.equal((await get('/page', { Cookie: foreign })).cookie, null);
  assert.equal((await get('/page', { Cookie: 'only=one' })).cookie, 'only=one');
  // The API, answered before Next, reads what it was sent.
  assert.equal((await get('/fast/x', { Cookie: `a=1; ${own}` })).cookie, `a=1; ${own}`);
});

test("not told which targets are the dashboard's, the guard gives every one but the API's the dashboard's Content-Security-Policy, with a nonce of its own", async () => {
  const forged = "script-src 'nonce-forged'";
  const page = await get('/page', { 'Content-Security-Policy': forged });
  assert.match(String(page.contentSecurityPolicy), /script-src 'self' 'nonce-[^']+'/);
  assert.notEqual(page.contentSecurityPolicy, forged);
  for (const target of ['/api/public/v1.0', '/api/public/v1.0/orgs?x=1']) {
    const api = await get(target, { 'Content-Security-Policy': forged });
    assert.equal(api.contentSecurityPolicy, null, target);
  }
});

test('a facts header without this process token is not the guard’s', () => {
  const headers = new Headers({ [WIRE_FACTS_HEADER]: 'not-the-token 10.0.0.1 0 id /a' });
  assert.equal(wireFactsFromHeaders(headers), undefined);
  assert.equal(wireFactsFromHeaders(new Headers()), undefined);
});
