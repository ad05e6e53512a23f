import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  buildChallenge,
  computeDigestResponse,
  digestsEqual,
  digestUriMatches,
  parseAuthorization,
  parseAuthParams,
  verifyDigestResponse,
  type DigestCredentials,
} from './digest';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function credentialsOf(header: string): DigestCredentials {
  const parsed = parseAuthorization(header);
  assert.equal(parsed.scheme, 'digest');
  assert.ok(parsed.scheme === 'digest' && parsed.credentials, JSON.stringify(parsed));
  return parsed.credentials;
}

describe('RFC test vectors', () => {
  test('RFC 2617 §3.5 (Mufasa, MD5, qop=auth)', () => {
    const header =
      'Digest username="Mufasa", realm="testrealm@host.com", ' +
      'nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", qop=auth, ' +
      'nc=00000001, cnonce="0a4f113b", response="6629fae49393a05397450978507c4ef1", ' +
      'opaque="5ccc069c403ebaf9f0171e9517f40e41"';
    const credentials = credentialsOf(header);
    const ha1 = md5('Mufasa:testrealm@host.com:Circle Of Life');
    assert.equal(
      computeDigestResponse({ ...credentials, ha1, method: 'GET' }),
      '6629fae49393a05397450978507c4ef1',
    );
    assert.equal(verifyDigestResponse(credentials, 'GET', ha1), true);
    assert.equal(verifyDigestResponse(credentials, 'POST', ha1), false);
    assert.equal(
      verifyDigestResponse(credentials, 'GET', md5('Mufasa:testrealm@host.com:x')),
      false,
    );
  });

  test('RFC 7616 §3.9.1 (SHA-256 and MD5)', () => {
    const base = {
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      nc: '00000001',
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
      qop: 'auth' as const,
      method: 'GET',
      uri: '/dir/index.html',
    };
    const secret = 'Mufasa:http-auth@example.org:Circle of Life';
    assert.equal(
      computeDigestResponse({ ...base, algorithm: 'SHA-256', ha1: sha256(secret) }),
      '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
    );
    assert.equal(
      computeDigestResponse({ ...base, algorithm: 'MD5', ha1: md5(secret) }),
      '8ca523f5e9506fed4657c9700eebdbec',
    );
    const header =
      'Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", ' +
      'algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc=00000001, ' +
      'cnonce="f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", qop=auth, ' +
      'response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1", ' +
      'opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
    assert.equal(verifyDigestResponse(credentialsOf(header), 'GET', sha256(secret)), true);
  });

  test('-sess variants re-key HA1 with nonce and cnonce (independent vectors)', () => {
    // RFC 7616 §3.9.1's inputs with the -sess algorithms (the RFC publishes no
    // -sess example). The expected responses were computed outside this code:
    // with Python's hashlib, HA1 = H(H("Mufasa:http-auth@example.org:Circle of
    // Life"):nonce:cnonce), HA2 = H("GET:/dir/index.html"), response =
    // H(HA1:nonce:00000001:cnonce:auth:HA2); the MD5-sess value and the header
    // below are also what Python requests 2.34 (HTTPDigestAuth, its cnonce
    // pinned to this one) sends.
    const nonce = '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v';
    const cnonce = 'f2/wE4q74E6zIJEt';
    const secret = 'Mufasa:http-auth@example.org:Circle of Life';
    const base = {
      nonce,
      nc: '00000001',
      cnonce,
      qop: 'auth' as const,
      method: 'GET',
      uri: '/dir/index.html',
    };
    assert.equal(
      computeDigestResponse({ ...base, algorithm: 'MD5-sess', ha1: md5(secret) }),
      '2713d83eed36a98e138830816b0293d8',
    );
    assert.equal(
      computeDigestResponse({ ...base, algorithm: 'SHA-256-sess', ha1: sha256(secret) }),
      '9c035058a41f45ddb25167ce079e5204df646a25534db6ee1ad359f94246c019',
    );
    const fromRequests =
      'Digest username="Mufasa", realm="http-auth@example.org", ' +
      `nonce="${nonce}", uri="/dir/index.html", ` +
      'response="2713d83eed36a98e138830816b0293d8", algorithm="MD5-sess", qop="auth", ' +
      `nc=00000001, cnonce="${cnonce}"`;
    assert.equal(verifyDigestResponse(credentialsOf(fromRequests), 'GET', md5(secret)), true);
    // The plain algorithm's answer is not the -sess one.
    assert.notEqual(
      computeDigestResponse({ ...base, algorithm: 'MD5', ha1: md5(secret) }),
      '2713d83eed36a98e138830816b0293d8',
    );
  });
});

describe('parseAuthParams', () => {
  test('quoted and unquoted values, commas and escapes inside quotes, any name case', () => {
    const params = parseAuthParams(
      'Username="a\\"b", REALM="x, y", qop=auth ,nc=00000001,, uri="/p?a=1,2"',
    );
    assert.deepEqual(Object.fromEntries(params!), {
      username: 'a"b',
      realm: 'x, y',
      qop: 'auth',
      nc: '00000001',
      uri: '/p?a=1,2',
    });
  });

  test('a backslash before anything but a quote or a backslash is text: a uri sent verbatim keeps its \\,', () => {
    // curl sends uri="…a\,b…" for a URL holding a\,b (a comma within a
    // filter value): read as a quoted-pair, it became a,b and failed the uri check.
    const params = parseAuthParams('uri="/p?c=a\\,b&d=C:\\x", realm="q\\"x\\\\y"');
    assert.deepEqual(Object.fromEntries(params!), { uri: '/p?c=a\\,b&d=C:\\x', realm: 'q"x\\y' });
  });

  test('duplicate names, unterminated quotes and garbage are invalid', () => {
    assert.equal(parseAuthParams('uri="/a", URI="/b"'), null);
    assert.equal(parseAuthParams('username="abc'), null);
    assert.equal(parseAuthParams('username'), null);
    assert.equal(parseAuthParams('="x"'), null);
    assert.equal(parseAuthParams('a="x" b="y"'), null);
    assert.equal(parseAuthParams('a='), null);
  });
});

describe('parseAuthorization', () => {
  const valid =
    'Digest username="k", realm="MMS Public API", nonce="n", uri="/x", ' +
    `response="${'a'.repeat(32)}", qop=auth, nc=00000001, cnonce="c"`;

  test('schemes', () => {
    assert.deepEqual(parseAuthorization(null), { scheme: 'none' });
    assert.deepEqual(parseAuthorization('  '), { scheme: 'none' });
    assert.deepEqual(parseAuthorization('Basic dXNlcjpwYXNz'), { scheme: 'basic' });
    assert.deepEqual(parseAuthorization('Bearer abc'), { scheme: 'other' });
    assert.equal(credentialsOf(valid).username, 'k');
    assert.equal(credentialsOf(valid.replace('Digest', 'DIGEST')).username, 'k');
  });

  test('qop and algorithm, quoted or not, in any case', () => {
    assert.equal(credentialsOf(valid.replace('qop=auth', 'qop="auth"')).qop, 'auth');
    assert.equal(credentialsOf(valid.replace('qop=auth', 'qop=AUTH')).qop, 'auth');
    assert.equal(credentialsOf(`${valid}, algorithm="MD5"`).algorithm, 'MD5');
    assert.equal(credentialsOf(`${valid}, algorithm=md5-sess`).algorithm, 'MD5-sess');
    assert.equal(credentialsOf(valid).algorithm, 'MD5', 'algorithm defaults to MD5');
    const sha = valid.replace('a'.repeat(32), 'b'.repeat(64));
    assert.equal(credentialsOf(`${sha}, algorithm=SHA-256`).algorithm, 'SHA-256');
    assert.equal(credentialsOf(`${sha}, algorithm="sha-256-sess"`).algorithm, 'SHA-256-sess');
  });

  test('nc is 8 hex digits and becomes a number', () => {
    const c = credentialsOf(valid.replace('nc=00000001', 'nc=000000FF'));
    assert.equal(c.ncValue, 255);
    for (const nc of ['1', '0000000g', '000000001']) {
      const parsed = parseAuthorization(valid.replace('nc=00000001', `nc=${nc}`));
      assert.ok(parsed.scheme === 'digest' && !parsed.credentials, nc);
    }
  });

  test('refuses what we do not support or what is incomplete', () => {
    const refused = [
      valid.replace(', qop=auth, nc=00000001, cnonce="c"', ''), // RFC 2069: no replay protection
      valid.replace('qop=auth', 'qop=auth-int'),
      `${valid}, algorithm=SHA-512-256`,
      `${valid}, userhash=true`,
      valid.replace('username="k", ', ''),
      valid.replace('uri="/x", ', ''),
      valid.replace(', cnonce="c"', ''),
      valid.replace('a'.repeat(32), 'a'.repeat(31)),
      valid.replace('a'.repeat(32), 'z'.repeat(32)),
      `${valid.replace('a'.repeat(32), 'a'.repeat(32))}, algorithm=SHA-256`, // MD5-length response
      `${valid}, uri="/y"`, // duplicate
      'Digest',
      `Digest ${'x'.repeat(5000)}="y"`,
    ];
    for (const header of refused) {
      const parsed = parseAuthorization(header);
      assert.ok(parsed.scheme === 'digest' && parsed.credentials === null, header.slice(0, 120));
    }
  });
});

describe('long request targets', () => {
  test("a correct response for a 10 KB uri parses and verifies (the bound is Node's header limit)", () => {
    const uri = `/api/public/v1.0/orgs/${'a'.repeat(24)}/events?${Array.from(
      { length: 400 },
      (_, i) => `eventType=TYPE_${String(i).padStart(12, '0')}`,
    ).join('&')}`;
    assert.ok(uri.length > 10_000, `uri is ${uri.length} characters`);
    const ha1 = md5('k:MMS Public API:secret');
    const fields = { nonce: 'n'.repeat(32), nc: '00000001', cnonce: 'c', qop: 'auth' as const };
    const response = computeDigestResponse({
      ...fields,
      algorithm: 'MD5',
      ha1,
      method: 'GET',
      uri,
    });
    const header =
      `Digest username="k", realm="MMS Public API", nonce="${fields.nonce}", uri="${uri}", ` +
      `algorithm=MD5, qop=auth, nc=00000001, cnonce="c", response="${response}"`;
    const credentials = credentialsOf(header);
    assert.equal(credentials.uri, uri);
    assert.equal(verifyDigestResponse(credentials, 'GET', ha1), true);
  });
});

describe('digestUriMatches', () => {
  test('exact request-target or the absolute form of it', () => {
    assert.equal(digestUriMatches('/a/b?x=1&y=2', '/a/b?x=1&y=2'), true);
    assert.equal(digestUriMatches('http://h:3000/a/b?x=1', '/a/b?x=1'), true);
    assert.equal(digestUriMatches('https://h/a', '/a'), true);
    assert.equal(digestUriMatches('/a/b?x=1', '/a/b?x=2'), false);
    assert.equal(digestUriMatches('/a/b', '/a/b?x=1'), false);
    assert.equal(digestUriMatches('/A/b', '/a/b'), false);
    assert.equal(digestUriMatches('http://h/other', '/a'), false);
    assert.equal(digestUriMatches('//h/a', '/a'), false);
  });

  test("an absolute uri's path starts after its authority: a '/' in its fragment is no path", () => {
    // `http://h#/a/b` names h's root; its fragment only looks like a path.
    assert.equal(digestUriMatches('http://evil.example#/a/b', '/a/b'), false);
    assert.equal(digestUriMatches('http://h#/a/b?x=1', '/a/b?x=1'), false);
    assert.equal(digestUriMatches('http://h#/a/b', '/'), true);
    assert.equal(digestUriMatches('http://h?x=1', '/?x=1'), true);
    assert.equal(digestUriMatches('http://h?x=/a', '/?x=/a'), true);
    assert.equal(digestUriMatches('http://h?x=/a', '/a'), false);
  });
});

test('digestsEqual is case-insensitive hex equality', () => {
  assert.equal(digestsEqual('abcdef', 'ABCDEF'), true);
  assert.equal(digestsEqual('abcdef', 'abcdee'), false);
  assert.equal(digestsEqual('abcdef', 'abcde'), false);
});

test('buildChallenge matches the real service byte for byte', () => {
  assert.equal(
    buildChallenge('MMS Public API', '89FU+zZ06zgKynmobMhdFzhWpORw6cYM', false),
    'Digest realm="MMS Public API", domain="", nonce="89FU+zZ06zgKynmobMhdFzhWpORw6cYM", algorithm=MD5, qop="auth", stale=false',
  );
  assert.match(buildChallenge('a"b', 'n', true), /^Digest realm="a\\"b", .*stale=true$/);
});
