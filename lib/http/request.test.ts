import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  httpsOriginForSignIn,
  isSameOriginRequest,
  isSecureRequest,
  safeNextPath,
} from './request';

const headers = (values: Record<string, string>) => new Headers(values);
const direct = { TRUST_PROXY: false, PUBLIC_BASE_URL: undefined };
const behindProxy = { TRUST_PROXY: true, PUBLIC_BASE_URL: undefined };

describe('lib/http/request', () => {
  const url = 'http://localhost:3000/api/session';

  it('accepts same-origin posts and refuses cross-site ones', () => {
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', origin: 'http://localhost:3000' }),
        direct,
      ),
      true,
    );
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', origin: 'https://evil.example' }),
        direct,
      ),
      false,
    );
    assert.equal(
      isSameOriginRequest(url, headers({ host: 'localhost:3000', origin: 'null' }), direct),
      false,
    );
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', 'sec-fetch-site': 'cross-site' }),
        direct,
      ),
      false,
    );
    assert.equal(isSameOriginRequest(url, headers({ host: 'localhost:3000' }), direct), true);
    const proxied = headers({
      host: 'internal:3000',
      origin: 'https://events.example',
      'x-forwarded-host': 'events.example',
    });
    assert.equal(isSameOriginRequest(url, proxied, behindProxy), true);
    assert.equal(isSameOriginRequest(url, proxied, direct), false);
    // The client's own entry, left of the proxy's, names no host of ours.
    const spoofed = headers({
      host: 'internal:3000',
      origin: 'https://attacker.example',
      'x-forwarded-host': 'attacker.example, events.example',
    });
    assert.equal(isSameOriginRequest(url, spoofed, behindProxy), false);
  });

  it("a post from PUBLIC_BASE_URL's origin is same-origin whatever Host the proxy sent; not one from another scheme or host", () => {
    const config = { TRUST_PROXY: false, PUBLIC_BASE_URL: 'https://events.example' };
    const from = (origin: string) => headers({ host: '127.0.0.1:3000', origin });
    assert.equal(isSameOriginRequest(url, from('https://events.example'), config), true);
    assert.equal(isSameOriginRequest(url, from('http://events.example'), config), false);
    assert.equal(isSameOriginRequest(url, from('https://events.example.evil'), config), false);
    assert.equal(isSameOriginRequest(url, from('https://events.example'), direct), false);
  });

  it('refuses a post from a plain-http page when the request came over HTTPS: TLS on the wire or a trusted X-Forwarded-Proto', () => {
    const from = (origin: string, extra: Record<string, string> = {}) =>
      headers({ host: 'localhost:3000', origin, ...extra });
    const tls = 'https://localhost:3000/api/session';
    // http://localhost:3000 is another origin than https://localhost:3000, whatever the host says.
    assert.equal(isSameOriginRequest(tls, from('http://localhost:3000'), direct), false);
    assert.equal(isSameOriginRequest(tls, from('https://localhost:3000'), direct), true);
    const proxied = (origin: string) =>
      headers({
        host: 'internal:3000',
        origin,
        'x-forwarded-host': 'events.example',
        'x-forwarded-proto': 'https',
      });
    assert.equal(isSameOriginRequest(url, proxied('http://events.example'), behindProxy), false);
    assert.equal(isSameOriginRequest(url, proxied('https://events.example'), behindProxy), true);
    // Forwarded headers from a proxy not trusted say nothing: the Host decides, as before.
    const untrusted = from('http://localhost:3000', { 'x-forwarded-proto': 'https' });
    assert.equal(isSameOriginRequest(url, untrusted, direct), true);
  });

  it('with only an https PUBLIC_BASE_URL, a plain-http page is same-origin on loopback only, whose Secure cookies browsers keep', () => {
    const config = { TRUST_PROXY: false, PUBLIC_BASE_URL: 'https://events.example' };
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
      const host = new URL(origin).host;
      assert.equal(isSameOriginRequest(url, headers({ host, origin }), config), true, origin);
    }
    const plain = headers({ host: 'events.example', origin: 'http://events.example' });
    assert.equal(isSameOriginRequest(url, plain, config), false);
    assert.equal(isSameOriginRequest(url, plain, direct), true, 'no https anywhere: as before');
  });

  it('marks cookies Secure over HTTPS, behind a trusted HTTPS proxy, or when PUBLIC_BASE_URL is https', () => {
    assert.equal(
      isSecureRequest({ url: 'https://x/api/session', headers: headers({}) }, direct),
      true,
    );
    assert.equal(
      isSecureRequest(
        { url: '/api/public/v1.0/orgs', headers: headers({}), encrypted: true },
        direct,
      ),
      true,
    );
    const forwarded = headers({ 'x-forwarded-proto': 'https' });
    const plain = { url: 'http://x/api/session', headers: forwarded };
    assert.equal(isSecureRequest(plain, behindProxy), true);
    assert.equal(isSecureRequest(plain, direct), false);
    const https = { TRUST_PROXY: false, PUBLIC_BASE_URL: 'https://events.example' };
    const http = { TRUST_PROXY: false, PUBLIC_BASE_URL: 'http://events.example' };
    assert.equal(
      isSecureRequest({ url: 'http://x/api/session', headers: headers({}) }, https),
      true,
    );
    assert.equal(
      isSecureRequest({ url: 'http://x/api/session', headers: headers({}) }, http),
      false,
    );
  });

  it('only ever redirects to a path on this site', () => {
    assert.equal(safeNextPath('/orgs/x/events?types=A'), '/orgs/x/events?types=A');
    assert.equal(safeNextPath('//evil.example'), '/');
    assert.equal(safeNextPath('https://evil.example'), '/');
    assert.equal(safeNextPath('/\\evil.example'), '/');
    assert.equal(safeNextPath(undefined), '/');
    // Dot segments the URL parser removes, leaving a protocol-relative
    // `//evil.example` (a backslash reads as a slash there).
    for (const dotted of [
      '/.//evil.example',
      '/..//evil.example',
      '/%2e//evil.example',
      '/orgs/..//evil.example/x',
      '/./\\evil.example',
      '/.\\/evil.example',
    ]) {
      assert.equal(safeNextPath(dotted), '/', dotted);
    }
    // Encoded slashes stay encoded: a path on this site.
    assert.equal(safeNextPath('/%2F/evil.example'), '/%2F/evil.example');
    // Location headers carry ASCII only: the path comes back percent-encoded.
    assert.equal(
      safeNextPath('/orgs/x/events?q=日本#é'),
      '/orgs/x/events?q=%E6%97%A5%E6%9C%AC#%C3%A9',
    );
    assert.equal(safeNextPath('/orgs/x/events?q=%E6%97%A5'), '/orgs/x/events?q=%E6%97%A5');
  });

  it('names the https origin to open only for a Secure cookie posted from a plain-http page off loopback', () => {
    const https = { TRUST_PROXY: false, PUBLIC_BASE_URL: 'https://events.example.com/base' };
    const url = 'http://10.1.2.3:3000/api/session';
    const from = (origin: string) => headers({ origin, host: '10.1.2.3:3000' });
    for (const origin of [
      'http://10.1.2.3:3000',
      'http://events.example.com',
      'http://events.example.com:8080',
      'http://EVENTS.example.com.',
    ]) {
      assert.equal(
        httpsOriginForSignIn(url, from(origin), true, https),
        'https://events.example.com',
        origin,
      );
    }
    // Another site's plain-http page is cross-site, whatever PUBLIC_BASE_URL says:
    // not told to open this service over https.
    for (const origin of [
      'http://a.test.',
      'http://attacker.example',
      'http://10.1.2.3:3001',
      'http://example.com',
      'http://events.example.com.attacker.example',
    ]) {
      assert.equal(httpsOriginForSignIn(url, from(origin), true, https), null, origin);
    }
    // Without an https PUBLIC_BASE_URL (TLS or a trusted proxy made it Secure): the same host.
    assert.equal(
      httpsOriginForSignIn(url, from('http://10.1.2.3:3000'), true, direct),
      'https://10.1.2.3',
    );
    // Another site's page is not sent to its own host over https: it is cross-site.
    assert.equal(httpsOriginForSignIn(url, from('http://attacker.example'), true, direct), null);
    const kept = [
      'https://events.example.com',
      'http://localhost:3000',
      'http://app.localhost',
      'http://127.0.0.1:3000',
      'http://127.8.9.1',
      'http://[::1]:3000',
      'null',
      '',
    ];
    for (const origin of kept) {
      assert.equal(httpsOriginForSignIn(url, from(origin), true, https), null);
    }
    assert.equal(
      httpsOriginForSignIn(url, headers({}), true, https),
      null,
      'no Origin: not a browser',
    );
    assert.equal(
      httpsOriginForSignIn(url, from('http://10.1.2.3'), false, https),
      null,
      'not Secure',
    );
  });
});
