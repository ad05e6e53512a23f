import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FrontDoor, type TestServer, startTestServer } from '../helpers/server';

/**
 * What the dashboard's answers tell the browser about themselves: no other
 * site may frame them (clickjacking), nothing is loaded, posted or fetched
 * from elsewhere, no type is sniffed and no URL (which holds the filters:
 * usernames, addresses) goes to another site as a Referer. Pages, the
 * dashboard's own routes, static files and the not-found page alike.
 */
describe('the dashboard security headers', () => {
  let server: TestServer;
  const url = (path: string) => `${server.baseUrl}${path}`;

  before(async () => {
    server = await startTestServer({ eventCount: 20 });
  });
  after(() => server.stop());

  const assertSecurityHeaders = (response: Response, label: string) => {
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .filter((words) => words[0])
        .map(([name, ...values]) => [name!, values.join(' ')]),
    );
    assert.equal(directives.get('frame-ancestors'), "'none'", `${label}: ${csp}`);
    assert.equal(directives.get('default-src'), "'self'", `${label}: ${csp}`);
    assert.equal(directives.get('object-src'), "'none'", `${label}: ${csp}`);
    assert.equal(directives.get('base-uri'), "'none'", `${label}: ${csp}`);
    assert.equal(directives.get('form-action'), "'self'", `${label}: ${csp}`);
    assert.equal(directives.get('connect-src'), "'self'", `${label}: ${csp}`);
    assert.equal(response.headers.get('x-frame-options'), 'DENY', label);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff', label);
    assert.equal(response.headers.get('referrer-policy'), 'same-origin', label);
  };

  it('are on every page, signed in or not, and on the dashboard routes', async () => {
    const signIn = await fetch(url('/sign-in'));
    assert.equal(signIn.status, 200);
    assertSecurityHeaders(signIn, '/sign-in');

    const session = await fetch(url('/api/session'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: server.baseUrl },
      body: JSON.stringify(server.keys.member),
    });
    assert.equal(session.status, 200);
    assertSecurityHeaders(session, 'POST /api/session');
    const cookie = session.headers.getSetCookie()[0]!.split(';')[0]!;

    const events = await fetch(url(`/orgs/${server.orgId}/events`), {
      headers: { Cookie: cookie },
    });
    assert.equal(events.status, 200);
    assertSecurityHeaders(events, 'the events page');
    const script = /src="(\/_next\/static\/[^"]+\.js)"/.exec(await events.text())?.[1];
    assert.ok(script, 'the page loads a script of its own');
    const asset = await fetch(url(script));
    assert.equal(asset.status, 200);
    assertSecurityHeaders(asset, script);

    const views = await fetch(url(`/api/orgs/${server.orgId}/views`), {
      headers: { Cookie: cookie },
    });
    assert.equal(views.status, 200);
    assertSecurityHeaders(views, 'GET views');

    const missing = await fetch(url('/no/such/page'));
    assert.equal(missing.status, 404);
    assertSecurityHeaders(missing, 'not found');
    const redirect = await fetch(url('/'), { redirect: 'manual' });
    assert.equal(redirect.status, 307);
    assertSecurityHeaders(redirect, 'redirect to sign-in');
  });
});

/**
 * The policy's script-src is strict and nonce-based (lib/http/content-security-policy.ts):
 * set by the front door under either way of serving (server.ts, and `next
 * start` through instrumentation.ts), and Next puts the same nonce on every
 * script of the page. The API keeps the hosted service's headers, no policy.
 */
for (const door of ['npm start', 'next start'] as FrontDoor[]) {
  describe(`the dashboard's nonce-based script policy (${door})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ door, eventCount: 5 });
    });
    after(() => server.stop());

    it("gives each page a nonce of its own, on every script of it, and none to the API's answers", async () => {
      const nonces: string[] = [];
      for (let i = 0; i < 2; i++) {
        // A policy the client sends is not the one the page gets.
        const page = await fetch(`${server.baseUrl}/sign-in`, {
          headers: { 'Content-Security-Policy': "script-src 'nonce-Y2xpZW50c293bg=='" },
        });
        assert.equal(page.status, 200);
        const csp = page.headers.get('content-security-policy') ?? '';
        const scriptSrc = csp
          .split(';')
          .find((d) => d.trim().startsWith('script-src'))
          ?.trim();
        const nonce = /^script-src 'self' 'nonce-([A-Za-z0-9+/]{22}==)' 'strict-dynamic'$/.exec(
          scriptSrc ?? '',
        )?.[1];
        assert.ok(nonce, csp);
        const html = await page.text();
        const scripts = html.match(/<script\b[^>]*>/g) ?? [];
        assert.ok(scripts.length > 0, 'the page has scripts');
        for (const tag of scripts) assert.ok(tag.includes(` nonce="${nonce}"`), tag);
        nonces.push(nonce);
      }
      assert.notEqual(nonces[0], nonces[1], 'two responses, two nonces');

      const api = await fetch(`${server.apiUrl}/orgs/${server.orgId}/events`);
      assert.equal(api.status, 401);
      assert.equal(api.headers.get('content-security-policy'), null);
    });
  });
}
