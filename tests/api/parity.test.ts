import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { authorizationHeader, parseChallenge } from '@/tests/helpers/digest-client';
import { startTestServer, type TestKey, type TestServer } from '@/tests/helpers/server';

/**
 * The two front doors over one database: `npm start` (server.ts, the API's
 * fast path) and `next start` (Next's route handlers). The same requests,
 * sent byte for byte with node:http (fetch would normalise the targets), get
 * the same status, body and headers from both.
 *
 * What Next does not let route handlers control, and is therefore asserted
 * per door rather than compared:
 * - Content-Length: Next drops it from route handler responses and streams
 *   the body chunked. The fast path sends the body's exact size.
 * - Vary: Next puts its router's values (rsc, next-router-…) before ours;
 *   ours follow unchanged. Next's compression (on for the whole app, the
 *   dashboard needs it) adds Accept-Encoding where we send no Vary and
 *   gzips a body when the client accepts it; the fast path never compresses.
 * Everything else the handler sets is compared as is (the nonce of a Digest
 * challenge, random by design, is masked; so is the port in links).
 */
let fast: TestServer;
let next: TestServer;
const P = '/api/public/v1.0';

before(async () => {
  fast = await startTestServer({ door: 'npm start', variant: 'hosted', eventCount: 300 });
  next = await startTestServer({ door: 'next start', shareDataWith: fast });
});
after(async () => {
  await next?.stop();
  await fast?.stop();
});

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: string };
type Send = {
  method?: string;
  headers?: Record<string, string>;
  /** Source address of the connection (any 127.0.0.0/8 address reaches the server). */
  localAddress?: string;
};

/** One request with exactly this request-target, on a fresh connection. */
function raw(server: TestServer, target: string, options: Send = {}): Promise<Raw> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: hostname,
        port,
        path: target,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.localAddress,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A fresh nonce from this door. */
async function nonceOf(server: TestServer, localAddress?: string): Promise<string> {
  const res = await raw(server, `${P}/orgs`, { localAddress });
  return parseChallenge(String(res.headers['www-authenticate'])).nonce;
}

/** `target` sent as is, with a Digest response over `uri` (default: the target itself). */
async function signed(
  server: TestServer,
  target: string,
  options: Send & { uri?: string; key?: TestKey; password?: string } = {},
): Promise<Raw> {
  const key = options.key ?? server.keys.member;
  const uri = options.uri ?? target;
  const authorization = authorizationHeader({
    username: key.publicKey,
    password: options.password ?? key.privateKey,
    realm: server.realm,
    nonce: await nonceOf(server, options.localAddress),
    method: options.method ?? 'GET',
    // A quoted-string: `"` and `\` are escaped in the header, the response is over the uri itself.
    uri: uri.replace(/["\\]/g, (ch) => `\\${ch}`),
    responseUri: uri,
    nc: 1,
  });
  return raw(server, target, { ...options, headers: { ...options.headers, authorization } });
}

const isNextVary = (value: string) => value === 'rsc' || value.startsWith('next-');
const varyValues = (res: Raw) =>
  String(res.headers.vary ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);

/** What both doors must answer identically. */
function comparable(server: TestServer, res: Raw) {
  const header = (name: string) => res.headers[name];
  return {
    status: res.status,
    body: res.body.replaceAll(server.baseUrl, 'BASE'),
    contentType: header('content-type'),
    errorCode: header('x-error-code'),
    retryAfter: header('retry-after'),
    hsts: header('strict-transport-security'),
    version: header('x-mongodb-service-version'),
    wwwAuthenticate: header('www-authenticate')
      ?.toString()
      .replace(/nonce="[^"]*"/, 'nonce="…"'),
    location: header('location'),
  };
}

/** Vary without Next's router values. */
const ourVary = (res: Raw) => varyValues(res).filter((value) => !isNextVary(value));

/** Sends the same request to both doors; asserts equal answers and the per-door headers. */
async function both(send: (server: TestServer) => Promise<Raw>, label: string) {
  const [a, b] = [await send(fast), await send(next)];
  assert.deepEqual(comparable(next, b), comparable(fast, a), label);
  // Where we send no Vary, Next's compression adds its own Accept-Encoding.
  const fastVary = ourVary(a);
  assert.deepEqual(
    ourVary(b),
    fastVary.length === 0 ? ['Accept-Encoding'] : fastVary,
    `${label}: Vary ${a.headers.vary} / ${b.headers.vary}`,
  );
  assert.equal(a.headers['content-length'], String(Buffer.byteLength(a.body)), label);
  assert.equal(b.headers['content-length'], undefined, label);
  assert.equal(b.headers['transfer-encoding'], 'chunked', label);
  assert.ok(!varyValues(a).some(isNextVary), label);
  if (b.status !== 308) assert.ok(varyValues(b).some(isNextVary), `${label}: ${b.headers.vary}`);
  return a;
}

describe('npm start and next start answer alike', () => {
  const events = () => `${P}/orgs/${fast.orgId}/events`;
  const event = () => `${events()}/${fast.events.org[0]!.id}`;

  test('lists, one event, orgs, event types and the OpenAPI document, plain, pretty and enveloped', async () => {
    for (const format of ['', 'pretty=true', 'envelope=true', 'pretty=true&envelope=true']) {
      const and = format ? `&${format}` : '';
      const query = format ? `?${format}` : '';
      for (const target of [
        `${events()}?itemsPerPage=5${and}`,
        `${events()}?itemsPerPage=3&pageNum=2&eventType=GROUP_CREATED${and}`,
        `${event()}${query}`,
        `${P}/orgs${query}`,
        `${P}/orgs/${fast.orgId}${query}`,
        `${P}/orgs/${fast.orgId}/eventTypes${query}`,
      ]) {
        const res = await both((s) => signed(s, target), target);
        assert.equal(res.status, 200, `${target}: ${res.body}`);
      }
      const doc = await both((s) => raw(s, `${P}/openapi.json${query}`), 'openapi.json');
      assert.equal(doc.status, 200);
    }
  });

  test('HEAD: the GET headers without a body', async () => {
    for (const target of [`${events()}?itemsPerPage=2`, event(), `${P}/nothing`]) {
      const [a, b] = [
        await signed(fast, target, { method: 'HEAD' }),
        await signed(next, target, { method: 'HEAD' }),
      ];
      const get = await signed(fast, target);
      assert.equal(a.body, '');
      assert.equal(b.body, '');
      assert.deepEqual(
        { ...comparable(next, b), body: undefined },
        { ...comparable(fast, a), body: undefined },
        target,
      );
      assert.equal(a.status, get.status);
      assert.equal(a.headers['content-length'], get.headers['content-length'], target);
    }
  });

  test('errors: 400, 401 (challenge and no role), 404, in JSON, plain and enveloped', async () => {
    const cases: [string, number, (s: TestServer) => Promise<Raw>][] = [
      ['itemsPerPage=0', 400, (s) => signed(s, `${events()}?itemsPerPage=0`)],
      [
        'unknown type, enveloped',
        400,
        (s) => signed(s, `${events()}?eventType=NOPE&envelope=true&pretty=true`),
      ],
      ['malformed event id', 400, (s) => signed(s, `${events()}/nope`)],
      ['challenge', 401, (s) => raw(s, events())],
      [
        'challenge for the dashboard',
        401,
        (s) => raw(s, events(), { headers: { 'x-org-events-client': 'dashboard' } }),
      ],
      ['no reader role', 401, (s) => signed(s, events(), { key: s.keys.readOnly })],
      ['wrong private key', 401, (s) => signed(s, events(), { password: 'wrong' })],
      ['unknown event', 404, (s) => signed(s, `${events()}/${'f'.repeat(24)}`)],
      ['unknown org', 404, (s) => signed(s, `${P}/orgs/${'e'.repeat(24)}/events`)],
      ['unknown path', 404, (s) => raw(s, `${P}/nothing?pretty=true`)],
      ['the prefix itself', 404, (s) => raw(s, P)],
      ['too deep', 404, (s) => raw(s, `${event()}/more`)],
    ];
    for (const [label, status, send] of cases) {
      const res = await both(send, label);
      assert.equal(res.status, status, `${label}: ${res.body}`);
    }
  });

  test('every method but GET and HEAD is the JSON 405 on every route', async () => {
    const targets = [
      `${P}/openapi.json`,
      `${P}/orgs`,
      `${P}/orgs/${fast.orgId}`,
      events(),
      event(),
      `${P}/orgs/${fast.orgId}/eventTypes`,
    ];
    for (const target of targets) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        const res = await both((s) => raw(s, target, { method }), `${method} ${target}`);
        assert.equal(res.status, 405, `${method} ${target}`);
        assert.equal(res.headers['x-error-code'], 'METHOD_NOT_ALLOWED');
      }
    }
    // A path the table does not know is a 404 whatever the method.
    const res = await both((s) => raw(s, `${P}/nothing`, { method: 'POST' }), 'POST unknown');
    assert.equal(res.status, 404);
  });

  test('a path whose first segment is api in another case is the JSON 404 naming it, not the HTML page', async () => {
    for (const server of [fast, next]) {
      for (const [method, target, path] of [
        ['GET', `/API/public/v1.0/orgs/${fast.orgId}/events`, undefined],
        ['GET', '/Api/public/v1.0/nothing?pretty=true', '/Api/public/v1.0/nothing'],
        ['POST', '/API/session', undefined],
        ['GET', '/aPI', undefined],
        ['GET', '/%41PI/x', undefined],
        ['HEAD', '/API/', undefined],
      ] as const) {
        const label = `${method} ${target} (${server === fast ? 'npm start' : 'next start'})`;
        const res = await raw(server, target, { method });
        assert.equal(res.status, 404, `${label}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/json/, label);
        assert.equal(res.headers['x-error-code'], 'RESOURCE_NOT_FOUND', label);
        if (method === 'HEAD') continue;
        const body = JSON.parse(res.body) as { errorCode: string; parameters: string[] };
        assert.equal(body.errorCode, 'RESOURCE_NOT_FOUND', label);
        assert.deepEqual(body.parameters, [path ?? target], label);
      }
    }
  });

  describe('the Digest uri matches the request-target as sent, through both doors', () => {
    const cases: [string, number, () => string, ((s: TestServer) => string)?][] = [
      [
        'a percent-encoded path segment',
        200,
        () => `${P}/orgs/${fast.orgId}/%65vents?itemsPerPage=2`,
      ],
      [
        'a percent-encoded query',
        200,
        () => `${events()}?itemsPerPage=2&eventType=GROUP%5FCREATED`,
      ],
      // Next would percent-encode these in the URL it hands route handlers.
      ['characters a URL parser encodes', 200, () => `${events()}?itemsPerPage=2&note={"a"}|<b>`],
      ['a trailing slash', 200, () => `${events()}/?itemsPerPage=2`],
      ['an encoded slash in an id', 400, () => `${P}/orgs/a%2Fb/events`],
      ['an empty org id (repeated slash)', 400, () => `${P}/orgs//events?itemsPerPage=2`],
      ['a repeated slash before a segment', 404, () => `${P}/orgs/${fast.orgId}//events`],
      ['a backslash', 400, () => `${P}/orgs/${fast.orgId}\\events`],
      ['dot segments', 404, () => `${P}/orgs/${fast.orgId}/../${fast.orgId}/events`],
      [
        'the absolute form, signed as sent',
        200,
        () => `http://127.0.0.1${events()}?itemsPerPage=2`,
      ],
      [
        'the absolute form, signed in origin form',
        200,
        () => `http://127.0.0.1${events()}?itemsPerPage=2`,
        () => `${events()}?itemsPerPage=2`,
      ],
    ];
    for (const [label, status, target, uri] of cases) {
      test(label, async () => {
        const res = await both((s) => signed(s, target(), { uri: uri?.(s) }), label);
        assert.equal(res.status, status, `${target()}: ${res.body}`);
      });
    }

    test('a signature over another target is refused by both', async () => {
      const res = await both(
        (s) => signed(s, `${events()}?itemsPerPage=2`, { uri: `${events()}?itemsPerPage=3` }),
        'other uri',
      );
      assert.equal(res.status, 401);
    });
  });
});

describe('without TRUST_PROXY the throttle counts the TCP peer, not X-Forwarded-For', () => {
  // 30 failures lock an address (DEFAULT_THROTTLE_POLICY). Each guess uses
  // another unknown key, so no per-key lock is involved, and claims another
  // client in X-Forwarded-For. The connections come from 127.0.0.3, a
  // loopback address no other test uses; 127.0.0.4 stands for everyone else.
  for (const door of ['npm start', 'next start'] as const) {
    test(door, async () => {
      const s = door === 'npm start' ? fast : next;
      const target = `${P}/orgs/${s.orgId}/events?itemsPerPage=1`;
      for (let i = 0; i < 30; i++) {
        const res = await signed(s, target, {
          key: { ...s.keys.member, publicKey: `spoof${String(i).padStart(3, '0')}` },
          localAddress: '127.0.0.3',
          headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
        });
        assert.equal(res.status, 401, `guess ${i}`);
      }
      const locked = await signed(s, target, {
        localAddress: '127.0.0.3',
        headers: { 'x-forwarded-for': '203.0.113.200' },
      });
      assert.equal(locked.status, 429, locked.body);
      assert.equal(locked.headers['x-error-code'], 'RATE_LIMITED');
      const elsewhere = await signed(s, target, { localAddress: '127.0.0.4' });
      assert.equal(elsewhere.status, 200, elsewhere.body);
    });
  }
});
