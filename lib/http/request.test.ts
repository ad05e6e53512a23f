import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSameOriginRequest, isSecureRequest, safeNextPath } from './request';

const headers = (values: Record<string, string>) => new Headers(values);

describe('lib/http/request', () => {
  it('accepts same-origin posts and refuses cross-site ones', () => {
    const url = 'http://localhost:3000/api/session';
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', origin: 'http://localhost:3000' }),
        false,
      ),
      true,
    );
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', origin: 'https://evil.example' }),
        false,
      ),
      false,
    );
    assert.equal(
      isSameOriginRequest(url, headers({ host: 'localhost:3000', origin: 'null' }), false),
      false,
    );
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', 'sec-fetch-site': 'cross-site' }),
        false,
      ),
      false,
    );
    assert.equal(isSameOriginRequest(url, headers({ host: 'localhost:3000' }), false), true);
    const proxied = headers({
      host: 'internal:3000',
      origin: 'https://events.example',
      'x-forwarded-host': 'events.example',
    });
    assert.equal(isSameOriginRequest(url, proxied, true), true);
    assert.equal(isSameOriginRequest(url, proxied, false), false);
    // The client's own entry, left of the proxy's, names no host of ours.
    const spoofed = headers({
      host: 'internal:3000',
      origin: 'https://attacker.example',
      'x-forwarded-host': 'attacker.example, events.example',
    });
    assert.equal(isSameOriginRequest(url, spoofed, true), false);
  });

  it('marks cookies Secure over HTTPS or behind a trusted HTTPS proxy only', () => {
    assert.equal(isSecureRequest('https://x/api/session', headers({}), false), true);
    const forwarded = headers({ 'x-forwarded-proto': 'https' });
    assert.equal(isSecureRequest('http://x/api/session', forwarded, true), true);
    assert.equal(isSecureRequest('http://x/api/session', forwarded, false), false);
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
