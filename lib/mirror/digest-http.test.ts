import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { computeHa1 } from '@/lib/auth/api-keys';
import {
  buildChallenge,
  computeDigestResponse,
  parseAuthorization,
  parseAuthParams,
  verifyDigestResponse,
} from '@/lib/auth/digest';
import { AnswerTooLargeError, DigestHttpClient } from './digest-http';

/**
 * A server answering each request by `decide(n, authorized)` (n counts the
 * requests that carried credentials): true accepts, else a 401 with a new
 * nonce, stale as told.
 */
async function server(
  decide: (authorized: number) => true | 429 | { stale: boolean },
  { host = '127.0.0.1', username = 'abcdefgh', timeoutMs = 60_000 } = {},
) {
  let authorized = 0;
  const listener = http.createServer((req, res) => {
    const verdict = req.headers.authorization ? decide(++authorized) : { stale: false };
    if (verdict === true) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
      return;
    }
    if (verdict === 429) {
      res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":429}');
      return;
    }
    res
      .writeHead(401, {
        'www-authenticate': `Digest realm="MMS Public API", domain="", nonce="n${authorized}", algorithm=MD5, qop="auth", stale=${verdict.stale}`,
      })
      .end('{}');
  });
  await new Promise<void>((resolve) => listener.listen(0, host, resolve));
  const { port } = listener.address() as AddressInfo;
  const origin = new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  const client = new DigestHttpClient(origin, { username, password: 'secret' }, { timeoutMs });
  return {
    client,
    authorized: () => authorized,
    /** Ends the client's connections and the server. */
    close: () => {
      client.close();
      listener.close();
    },
  };
}

/** The status the client gets asking for the orgs of a server answering with `answer` (key abcdefgh:secret). */
async function statusFrom(answer: http.RequestListener): Promise<number> {
  const listener = http.createServer(answer);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  const client = new DigestHttpClient(new URL(`http://127.0.0.1:${port}`), {
    username: 'abcdefgh',
    password: 'secret',
  });
  try {
    return (await client.get('/api/public/v1.0/orgs')).status;
  } finally {
    client.close();
    listener.close();
  }
}

test('a key refused with a fresh nonce is not sent again: one failure, not two, against the lockout', async () => {
  const source = await server(() => ({ stale: false }));
  try {
    const answer = await source.client.get('/api/public/v1.0/orgs');
    assert.equal(answer.status, 401);
    assert.equal(source.authorized(), 1);
  } finally {
    source.close();
  }
});

test('a 429 proves nothing of the nonce: a 401 after it is not tried again', async () => {
  const source = await server((n) => (n === 1 ? 429 : { stale: false }));
  try {
    assert.equal((await source.client.get('/a')).status, 429);
    assert.equal((await source.client.get('/a')).status, 401);
    assert.equal(source.authorized(), 2);
  } finally {
    source.close();
  }
});

test('a nonce the server calls stale, or forgets after accepting it, gets one fresh try', async () => {
  // Accepted, then forgotten without stale=true (a restart), accepted again;
  // then stale=true, accepted again.
  const verdicts = [true, { stale: false }, true, { stale: true }, true] as const;
  const source = await server((n) => verdicts[n - 1] ?? { stale: false });
  try {
    for (let i = 0; i < 3; i++) {
      assert.equal((await source.client.get('/api/public/v1.0/orgs')).status, 200);
    }
    assert.equal(source.authorized(), 5);
  } finally {
    source.close();
  }
});

test('a source offering several challenges (Basic, then Digest SHA-256 and MD5, one header each) is answered with the first Digest one', async () => {
  // Node joins the headers into one line, which read as no challenge: the
  // request was never made with the key, and the mirror said it was wrong.
  assert.equal(
    await statusFrom((req, res) => {
      const sent = req.headers.authorization;
      const params = sent?.startsWith('Digest ') ? parseAuthParams(sent.slice(7)) : null;
      const expected =
        params &&
        computeDigestResponse({
          algorithm: 'SHA-256',
          ha1: computeHa1('SHA-256', 'abcdefgh', 'r', 'secret'),
          nonce: 'n1',
          nc: params.get('nc')!,
          cnonce: params.get('cnonce')!,
          qop: 'auth',
          method: 'GET',
          uri: req.url!,
        });
      if (params?.get('algorithm') === 'SHA-256' && params.get('response') === expected) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
        return;
      }
      res.setHeader('www-authenticate', [
        'Basic realm="proxy"',
        'Digest realm="r", nonce="n1", algorithm=SHA-256, qop="auth"',
        'Digest realm="r", nonce="n1", algorithm=MD5, qop="auth"',
      ]);
      res.writeHead(401).end();
    }),
    200,
  );
});

test("challenges joined in one WWW-Authenticate line (a proxy's Basic before or after, a quoted comma within) are read, and the key accepted", async () => {
  // RFC 9110 lets a server join challenges with commas as it joins their
  // parameters. The line was read as one Digest challenge, which failed:
  // the key was never sent, and the mirror said the source asked for an
  // authentication it does not do.
  for (const line of [
    'Basic realm="proxy", Digest realm="r", nonce="n1", algorithm=SHA-256, qop="auth"',
    'Digest realm="r", nonce="n1", qop="auth-int,auth", algorithm=SHA-256, Basic realm="a, b"',
    'Negotiate, Bearer realm="sso", error="invalid_token", Digest realm="r", nonce="n1", algorithm=SHA-256, qop="auth"',
  ]) {
    const status = await statusFrom((req, res) => {
      const parsed = parseAuthorization(req.headers.authorization);
      const credentials = parsed.scheme === 'digest' ? parsed.credentials : null;
      if (
        credentials?.algorithm === 'SHA-256' &&
        verifyDigestResponse(credentials, 'GET', computeHa1('SHA-256', 'abcdefgh', 'r', 'secret'))
      ) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
        return;
      }
      res.writeHead(401, { 'www-authenticate': line }).end();
    });
    assert.equal(status, 200, line);
  }
});

test("a realm holding a quote or a backslash (another installation's DIGEST_REALM) is sent back escaped, and the key accepted", async () => {
  // Written into realm="…" as it was, the quote ended the value early: the
  // server read no valid credentials, and the mirror said the key was wrong.
  for (const realm of ['Acme "events"', 'CORP\\']) {
    const status = await statusFrom((req, res) => {
      const parsed = parseAuthorization(req.headers.authorization);
      const credentials = parsed.scheme === 'digest' ? parsed.credentials : null;
      if (
        credentials?.realm === realm &&
        verifyDigestResponse(credentials, 'GET', computeHa1('MD5', 'abcdefgh', realm, 'secret'))
      ) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"results":[]}');
        return;
      }
      res.writeHead(401, { 'www-authenticate': buildChallenge(realm, 'n1', false) }).end();
    });
    assert.equal(status, 200, realm);
  }
});

test('a source at an IPv6 literal (http://[::1]:port) is reached', async () => {
  const source = await server(() => true, { host: '::1' });
  try {
    assert.equal((await source.client.get('/api/public/v1.0/orgs')).status, 200);
  } finally {
    source.close();
  }
});

test('a key a header cannot carry fails its request at once, leaving no deadline behind', async () => {
  // Refused by the HTTP client as the request is made. Its deadline was left
  // running and, when it fired, threw outside any promise: the process died.
  const source = await server(() => true, { username: 'abcdefg\r', timeoutMs: 50 });
  try {
    await assert.rejects(source.client.get('/api/public/v1.0/orgs'), /Invalid character/);
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    source.close();
  }
});

test('an answer longer than the client reads fails with AnswerTooLargeError, as sent or once decoded, and one of the limit is read whole', async () => {
  // Before, a gzip answer decoding past the longest string threw in the
  // response's handler, out of reach of any catch: the mirror died.
  const limit = 64 * 1024;
  const spaces = (n: number) => Buffer.alloc(n, 0x20);
  const answers: Record<string, { encoding?: string; body: Buffer } | 'endless'> = {
    '/plain-at-limit': { body: spaces(limit) },
    '/plain-over': { body: spaces(limit + 1) },
    '/gzip-at-limit': { encoding: 'gzip', body: zlib.gzipSync(spaces(limit)) },
    '/gzip-over': { encoding: 'gzip', body: zlib.gzipSync(spaces(limit * 1024)) },
    '/br-over': { encoding: 'br', body: zlib.brotliCompressSync(spaces(limit + 1)) },
    '/deflate-over': { encoding: 'deflate', body: zlib.deflateSync(spaces(limit + 1)) },
    // A source sending without end: refused once past the limit, not at its deadline.
    '/endless': 'endless',
  };
  const listener = http.createServer((req, res) => {
    const answer = answers[req.url!]!;
    if (answer === 'endless') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = () => {
        while (res.write(spaces(16 * 1024)));
      };
      res.on('drain', more);
      res.on('close', () => res.off('drain', more));
      more();
      return;
    }
    res
      .writeHead(200, answer.encoding ? { 'content-encoding': answer.encoding } : {})
      .end(answer.body);
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as AddressInfo;
  const client = new DigestHttpClient(
    new URL(`http://127.0.0.1:${port}`),
    { username: 'abcdefgh', password: 'secret' },
    { maxAnswerBytes: limit },
  );
  try {
    for (const path of ['/plain-at-limit', '/gzip-at-limit']) {
      assert.equal((await client.get(path)).body, spaces(limit).toString(), path);
    }
    for (const path of ['/plain-over', '/gzip-over', '/br-over', '/deflate-over', '/endless']) {
      const started = Date.now();
      await assert.rejects(
        client.get(path),
        (error) => error instanceof AnswerTooLargeError && error.limit === limit,
        path,
      );
      assert.ok(
        Date.now() - started < 10_000,
        `${path} failed only after ${Date.now() - started} ms`,
      );
    }
  } finally {
    client.close();
    listener.close();
    listener.closeAllConnections();
  }
});
