import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSameOriginRequest, isSecureRequest, safeNextPath } from './request';

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
});
