import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type TestServer, startTestServer } from '../helpers/server';

/**
 * The dashboard's sign-in endpoint and pages against the real server: the
 * cookie it sets, the API accepting it as the key, and every refusal (wrong
 * or disabled key, cross-site post, throttling, another org), never a 5xx.
 */

type Key = { publicKey: string; privateKey: string };

describe('dashboard session (POST/DELETE /api/session) and pages', () => {
  let server: TestServer;
  const url = (path: string) => `${server.baseUrl}${path}`;
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(url('/api/session'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: server.baseUrl, ...headers },
      body,
      redirect: 'manual',
    });
  const signIn = (key: Key) =>
    post(JSON.stringify({ publicKey: key.publicKey, privateKey: key.privateKey }));
  const sessionCookie = (response: Response) => {
    const header = response.headers.getSetCookie().find((c) => c.startsWith('org_events_session='));
    assert.ok(header, 'a session cookie is set');
    return header;
  };
  const cookiePair = (header: string) => header.split(';')[0]!;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('exchanges a correct key for a sealed HttpOnly SameSite=Strict cookie the API accepts', async () => {
    const response = await signIn(server.keys.member);
    assert.equal(response.status, 200);
    const text = await response.text();
    assert.ok(!text.includes(server.keys.member.privateKey));
    const cookie = sessionCookie(response);
    assert.match(cookie, /; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    assert.ok(!cookie.includes('Secure'), 'plain HTTP: no Secure flag');
    assert.ok(!cookie.includes(server.keys.member.privateKey));

    // The same principal as Digest, for the dashboard and for any client.
    const variants: Record<string, string>[] = [{ 'X-Org-Events-Client': 'dashboard' }, {}];
    for (const extra of variants) {
      const api = await fetch(url(`/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=3`), {
        headers: { Cookie: cookiePair(cookie), ...extra },
      });
      assert.equal(api.status, 200);
      const body = (await api.json()) as { results: { id: string }[]; totalCount: number };
      assert.deepEqual(
        body.results.map((e) => e.id),
        server.events.org.slice(0, 3).map((e) => e.id),
      );
      assert.equal(body.totalCount, server.events.org.length);
    }
    const orgs = await fetch(url('/api/public/v1.0/orgs'), {
      headers: { Cookie: cookiePair(cookie) },
    });
    const list = (await orgs.json()) as { results: { id: string }[] };
    assert.deepEqual(
      list.results.map((o) => o.id),
      [server.orgId],
    );
    // Another org: refused, no data.
    const other = await fetch(url(`/api/public/v1.0/orgs/${server.otherOrgId}/events`), {
      headers: { Cookie: cookiePair(cookie), 'X-Org-Events-Client': 'dashboard' },
    });
    // README: no reader role in the org is 401 USER_UNAUTHORIZED.
    assert.equal(other.status, 401);
    assert.equal(other.headers.get('www-authenticate'), null);
    const otherBody = await other.text();
    assert.equal((JSON.parse(otherBody) as { errorCode: string }).errorCode, 'USER_UNAUTHORIZED');
    assert.ok(!otherBody.includes('"results"'));
  });

  it('refuses wrong, disabled and malformed keys with the API error shape, never a 5xx', async () => {
    const wrong = await signIn({ ...server.keys.member, privateKey: 'nope' });
    assert.equal(wrong.status, 401);
    assert.deepEqual(await wrong.json(), {
      detail: 'The public key or private key is not correct.',
      error: 401,
      errorCode: 'INVALID_CREDENTIALS',
      parameters: [],
      reason: 'Unauthorized',
    });
    assert.equal(wrong.headers.getSetCookie().length, 0);

    assert.equal((await signIn(server.keys.disabled)).status, 401);
    for (const body of ['', '{', '[]', 'null', '"x"', '{"publicKey":1}', 'x'.repeat(20_000)]) {
      const response = await post(body);
      assert.equal(response.status, 400, `body ${body.slice(0, 20)}`);
      assert.equal(
        ((await response.json()) as { errorCode: string }).errorCode,
        'MISSING_CREDENTIALS',
      );
    }
  });

  it('refuses a cross-site post 403 CROSS_SITE_REQUEST, whatever its Content-Type, the media type checked after', async () => {
    const credentials = JSON.stringify({
      publicKey: server.keys.member.publicKey,
      privateKey: server.keys.member.privateKey,
    });
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const response = await post(credentials, {
        Origin: 'https://attacker.example',
        'Content-Type': type,
      });
      assert.equal(response.status, 403, type);
      assert.equal(
        ((await response.json()) as { errorCode: string }).errorCode,
        'CROSS_SITE_REQUEST',
        type,
      );
      assert.equal(response.headers.getSetCookie().length, 0, type);
    }
  });

  it('works as a plain form post without JavaScript, and only redirects on-site', async () => {
    const form = (fields: Record<string, string>) =>
      fetch(url('/api/session'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.baseUrl },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
    const ok = await form({ ...server.keys.member, next: `/orgs/${server.orgId}/events?page=2` });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), `/orgs/${server.orgId}/events?page=2`);
    sessionCookie(ok);
    // A link's own text (here Japanese) goes back percent-encoded: a raw
    // character above U+00FF in Location was a 500.
    const unicode = await form({
      ...server.keys.member,
      next: `/orgs/${server.orgId}/events?q=日本`,
    });
    assert.equal(unicode.status, 303);
    assert.equal(
      unicode.headers.get('location'),
      `/orgs/${server.orgId}/events?q=%E6%97%A5%E6%9C%AC`,
    );
    for (const next of ['//attacker.example/x', '/.//attacker.example/x']) {
      const offSite = await form({ ...server.keys.member, next });
      assert.equal(offSite.headers.get('location'), '/', next);
    }
    const bad = await form({ publicKey: server.keys.member.publicKey, privateKey: 'nope' });
    assert.equal(bad.status, 303);
    assert.match(bad.headers.get('location') ?? '', /^\/sign-in\?error=INVALID_CREDENTIALS/);
  });

  it('a sign-in or a saved view whose body is not sent as JSON (for sign-in, or as a form) is refused 415 and not acted on: a cross-site text/plain post needs no preflight', async () => {
    const refusal = (accepted: string) => ({
      detail: `Send the request body as ${accepted} (its Content-Type).`,
      error: 415,
      errorCode: 'UNSUPPORTED_MEDIA_TYPE',
      parameters: ['Content-Type'],
      reason: 'Unsupported Media Type',
    });
    const { publicKey, privateKey } = server.keys.member;
    const credentials = new TextEncoder().encode(JSON.stringify({ publicKey, privateKey }));
    // A Uint8Array body goes with no Content-Type at all.
    const sendAs = (path: string, method: string, type: string | null, extra = {}) =>
      fetch(url(path), {
        method,
        headers: { Origin: server.baseUrl, ...(type ? { 'Content-Type': type } : {}), ...extra },
        body: credentials,
        redirect: 'manual',
      });
    const refusedTypes = [
      'text/plain',
      'text/plain;charset=UTF-8',
      'multipart/form-data; boundary=x',
      'application/jsonp',
      null,
    ];
    for (const type of refusedTypes) {
      const response = await sendAs('/api/session', 'POST', type);
      assert.equal(response.status, 415, `sign-in as ${type}`);
      assert.deepEqual(
        await response.json(),
        refusal('application/json or application/x-www-form-urlencoded'),
      );
      assert.equal(response.headers.getSetCookie().length, 0, `sign-in as ${type}`);
    }
    for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
      assert.equal((await sendAs('/api/session', 'POST', type)).status, 200, type);
    }

    const cookie = cookiePair(sessionCookie(await signIn(server.keys.member)));
    const views = `/api/orgs/${server.orgId}/views`;
    const listed = async () =>
      (
        (await (await fetch(url(views), { headers: { Cookie: cookie } })).json()) as {
          totalCount: number;
        }
      ).totalCount;
    const before = await listed();
    const view = new TextEncoder().encode(JSON.stringify({ name: 'x', state: { query: '' } }));
    const saveAs = (path: string, method: string, type: string | null) =>
      fetch(url(path), {
        method,
        headers: {
          Origin: server.baseUrl,
          Cookie: cookie,
          ...(type ? { 'Content-Type': type } : {}),
        },
        body: view,
      });
    for (const type of refusedTypes) {
      const response = await saveAs(views, 'POST', type);
      assert.equal(response.status, 415, `a view as ${type}`);
      assert.deepEqual(await response.json(), refusal('application/json'));
    }
    assert.equal(await listed(), before, 'no view saved');
    const saved = await saveAs(views, 'POST', 'application/json');
    assert.equal(saved.status, 201);
    const { id } = (await saved.json()) as { id: string };
    const renamed = await saveAs(`${views}/${id}`, 'PATCH', 'text/plain');
    assert.equal(renamed.status, 415);
    // DELETE has no body to send as anything.
    const deleted = await fetch(url(`${views}/${id}`), {
      method: 'DELETE',
      headers: { Origin: server.baseUrl, Cookie: cookie },
    });
    assert.equal(deleted.status, 204);
  });

  it('signs out by clearing the cookie', async () => {
    const response = await fetch(url('/api/session'), { method: 'DELETE' });
    assert.equal(response.status, 204);
    assert.match(
      sessionCookie(response),
      /^org_events_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict/,
    );
  });

  const readEvents = (cookie: string) =>
    fetch(url(`/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=1`), {
      headers: { Cookie: cookie, 'X-Org-Events-Client': 'dashboard' },
    });
  const readOrgs = (cookie: string) =>
    fetch(url('/api/public/v1.0/orgs'), {
      headers: { Cookie: cookie, 'X-Org-Events-Client': 'dashboard' },
    });
  const signOut = (cookie: string, query = '') =>
    fetch(url(`/api/session${query}`), { method: 'DELETE', headers: { Cookie: cookie } });

  it('sign-out ends the session: the same cookie is refused afterwards', async () => {
    const cookie = cookiePair(sessionCookie(await signIn(server.keys.member)));
    const kept = cookiePair(sessionCookie(await signIn(server.keys.member)));
    assert.equal((await readEvents(cookie)).status, 200);

    const out = await signOut(cookie);
    assert.equal(out.status, 204);
    assert.match(sessionCookie(out), /^org_events_session=; Path=\/; Max-Age=0/);

    const after = await readEvents(cookie);
    assert.equal(after.status, 401, 'the signed-out cookie no longer reads events');
    assert.ok(!(await after.text()).includes('"results"'));
    const page = await fetch(url(`/orgs/${server.orgId}/events`), {
      headers: { Cookie: cookie },
      redirect: 'manual',
    });
    assert.equal(page.status, 307, 'the dashboard sends it to sign-in');
    assert.match(page.headers.get('location') ?? '', /^\/sign-in/);
    assert.equal((await readEvents(kept)).status, 200, 'another session of the key lives on');
  });

  it('sign-out ends every session the browser sent: a __Host- one and one from before the prefix', async () => {
    const before = cookiePair(sessionCookie(await signIn(server.keys.member)));
    const prefixed = `__Host-${cookiePair(sessionCookie(await signIn(server.keys.member)))}`;
    const kept = cookiePair(sessionCookie(await signIn(server.keys.member)));
    assert.equal((await readEvents(before)).status, 200);
    assert.equal((await readEvents(prefixed)).status, 200);

    // The browser clears both cookies: a copy of either must not outlive the sign-out.
    assert.equal((await signOut(`${before}; ${prefixed}`)).status, 204);
    assert.equal((await readEvents(prefixed)).status, 401, 'the __Host- session');
    assert.equal((await readEvents(before)).status, 401, 'the session from before the prefix');
    assert.equal((await readEvents(kept)).status, 200, 'a session the browser did not send');
  });

  it("sign-out everywhere voids every session of the key, not another key's", async () => {
    const first = cookiePair(sessionCookie(await signIn(server.keys.owner)));
    const second = cookiePair(sessionCookie(await signIn(server.keys.owner)));
    const otherKey = cookiePair(sessionCookie(await signIn(server.keys.otherOrg)));
    for (const cookie of [first, second, otherKey])
      assert.equal((await readOrgs(cookie)).status, 200);

    const out = await signOut(first, '?everywhere=true');
    assert.equal(out.status, 204);
    assert.equal((await readOrgs(first)).status, 401);
    assert.equal((await readOrgs(second)).status, 401, 'the other session of the key too');
    assert.equal((await readOrgs(otherKey)).status, 200, "another key's session lives on");

    // Without a live session there is no key to sign out everywhere.
    const refused = await signOut(second, '?everywhere=true');
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { errorCode: string }).errorCode, 'USER_UNAUTHORIZED');
  });

  it('throttles repeated failures like Digest: the right key is refused while blocked', async () => {
    const key = server.keys.spare[0]!;
    let last: Response | undefined;
    for (let i = 0; i < 10; i++) last = await signIn({ ...key, privateKey: `wrong-${i}` });
    assert.equal(last?.status, 401);
    const blocked = await signIn(key);
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    assert.equal(((await blocked.json()) as { errorCode: string }).errorCode, 'RATE_LIMITED');
  });

  it('renders pages for the signed-in key only', async () => {
    const anonymous = await fetch(url('/'), { redirect: 'manual' });
    assert.equal(anonymous.status, 307);
    assert.equal(anonymous.headers.get('location'), '/sign-in');
    const deep = await fetch(url(`/orgs/${server.orgId}/events?page=2`), { redirect: 'manual' });
    assert.match(deep.headers.get('location') ?? '', /^\/sign-in\?next=/);

    const cookie = cookiePair(sessionCookie(await signIn(server.keys.member)));
    const home = await fetch(url('/'), { headers: { Cookie: cookie }, redirect: 'manual' });
    assert.equal(home.headers.get('location'), `/orgs/${server.orgId}/events`);
    // Signed in already, a sign-in link sends the browser on, its text encoded.
    const onward = await fetch(
      url(`/sign-in?next=${encodeURIComponent(`/orgs/${server.orgId}/events?q=日本`)}`),
      { headers: { Cookie: cookie }, redirect: 'manual' },
    );
    assert.equal(onward.status, 307);
    assert.equal(
      onward.headers.get('location'),
      `/orgs/${server.orgId}/events?q=%E6%97%A5%E6%9C%AC`,
    );
    // Nor off the site by a dot segment the URL parser drops (`/.//host`).
    const away = await fetch(url(`/sign-in?next=${encodeURIComponent('/.//attacker.example')}`), {
      headers: { Cookie: cookie },
      redirect: 'manual',
    });
    assert.equal(away.status, 307);
    assert.equal(away.headers.get('location'), '/');

    // The first page is in the server-rendered HTML.
    const page = await fetch(url(`/orgs/${server.orgId}/events`), { headers: { Cookie: cookie } });
    assert.equal(page.status, 200);
    const html = await page.text();
    for (const event of server.events.org.slice(0, 50)) assert.ok(html.includes(event.id));

    const refused = await fetch(url(`/orgs/${server.otherOrgId}/events`), {
      headers: { Cookie: cookie },
    });
    const refusedHtml = await refused.text();
    assert.ok(refusedHtml.includes('have access to this organization'));
    for (const event of server.events.otherOrg.slice(0, 5))
      assert.ok(!refusedHtml.includes(event.id));

    // Odd addresses and parameters still get a page, never a server error.
    for (const path of [
      `/orgs/${server.orgId}/events?page=-1&size=99999&types=%00&from=2026-02-30&tz=x&event=zz`,
      `/orgs/${server.orgId}/events/not-an-id`,
      `/orgs/not-an-id/events`,
      `/orgs/${server.orgId}/events/${'f'.repeat(24)}`,
    ]) {
      const response = await fetch(url(path), { headers: { Cookie: cookie } });
      assert.ok(response.status < 500, `${path} -> ${response.status}`);
    }
  });

  it('with two session cookies of one name (one a parent domain planted), a page reads the one the API and sign-out read: the first sent', async () => {
    const live = cookiePair(sessionCookie(await signIn(server.keys.member)));
    const other = `org_events_session=${'x'.repeat(40)}`;
    const page = (cookie: string) =>
      fetch(url(`/orgs/${server.orgId}/events`), {
        headers: { Cookie: cookie },
        redirect: 'manual',
      });
    const api = (cookie: string) =>
      fetch(url(`/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=1`), {
        headers: { Cookie: cookie },
      });
    for (const [cookie, read] of [
      [`${live}; ${other}`, 200],
      [`${other}; ${live}`, 401],
    ] as const) {
      assert.equal((await api(cookie)).status, read, `API, ${cookie.slice(0, 40)}`);
      const answer = await page(cookie);
      assert.equal(
        answer.status === 200,
        read === 200,
        `page: ${answer.status}, ${cookie.slice(0, 40)}`,
      );
    }
  });
});

/**
 * Behind a TLS proxy with PUBLIC_BASE_URL=https://… but without TRUST_PROXY:
 * the browser reaches the service over HTTPS, though the hop to it is plain
 * HTTP and says nothing of the scheme. Requests here are sent as such a proxy
 * sends them (node:http, as fetch cannot set Host).
 */
describe('dashboard session behind a TLS proxy named by PUBLIC_BASE_URL only', () => {
  const PUBLIC = 'https://events.example.com';
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { PUBLIC_BASE_URL: PUBLIC } });
  });
  after(() => server.stop());

  type Answer = { status: number; cookies: string[] };
  const send = (method: string, path: string, headers: Record<string, string>, body = '') =>
    new Promise<Answer>((resolve, reject) => {
      const request = http.request(
        `${server.baseUrl}${path}`,
        { method, headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
        (response) => {
          response.resume();
          response.once('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              cookies: response.headers['set-cookie'] ?? [],
            }),
          );
        },
      );
      request.once('error', reject);
      request.end(body);
    });
  const signIn = (host: string, origin: string) =>
    send(
      'POST',
      '/api/session',
      { Host: host, Origin: origin, 'Content-Type': 'application/json' },
      JSON.stringify(server.keys.member),
    );

  it('signing in sets a Secure __Host- cookie, which opens a page and the API and is what sign-out clears', async () => {
    const signedIn = await signIn('events.example.com', PUBLIC);
    assert.equal(signedIn.status, 200);
    assert.equal(signedIn.cookies.length, 1, signedIn.cookies.join('\n'));
    const cookie = signedIn.cookies[0]!;
    assert.match(
      cookie,
      /^__Host-org_events_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict; Secure$/,
    );
    const pair = cookie.split(';')[0]!;
    const page = await send('GET', `/orgs/${server.orgId}/events`, {
      Host: 'events.example.com',
      Cookie: pair,
    });
    assert.equal(page.status, 200, 'the page');
    const api = await send('GET', `/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=1`, {
      Host: 'events.example.com',
      Cookie: pair,
    });
    assert.equal(api.status, 200, 'the API');
    const out = await send('DELETE', '/api/session', { Host: 'events.example.com', Cookie: pair });
    assert.equal(out.status, 204);
    assert.deepEqual(
      out.cookies.map(
        (c) => /^([^=]*)=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict; Secure$/.exec(c)?.[1],
      ),
      ['__Host-org_events_session', 'org_events_session'],
    );
  });

  it("a sign-in posted from PUBLIC_BASE_URL's origin is same-origin where the proxy rewrote Host; another origin is not", async () => {
    const host = new URL(server.baseUrl).host;
    const ours = await signIn(host, PUBLIC);
    assert.equal(ours.status, 200);
    assert.match(ours.cookies[0] ?? '', /^__Host-org_events_session=/);
    for (const origin of [
      'https://attacker.example',
      'http://events.example.com.attacker.example',
    ]) {
      const theirs = await signIn(host, origin);
      assert.equal(theirs.status, 403, origin);
      assert.deepEqual(theirs.cookies, [], origin);
    }
  });
});

/**
 * PUBLIC_BASE_URL=https://… makes the session cookie Secure, and a browser
 * at a plain-http page on any host but loopback drops it: one that opened
 * the service's own port by address, past the proxy, was signed in and sent
 * back to sign-in with no word why. The browser's Origin says its scheme.
 */
describe('a sign-in from a plain-http page while the session cookie is Secure', () => {
  const PUBLIC = 'https://events.example.com';
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { PUBLIC_BASE_URL: PUBLIC } });
  });
  after(() => server.stop());

  const post = (origin: string, body: string, contentType: string, host = new URL(origin).host) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const request = http.request(
          `${server.baseUrl}/api/session`,
          {
            method: 'POST',
            headers: { Host: host, Origin: origin, 'Content-Type': contentType },
          },
          (response) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.once('end', () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
            );
          },
        );
        request.once('error', reject);
        request.end(body);
      },
    );
  const json = (origin: string) =>
    post(origin, JSON.stringify({ ...server.keys.member, next: '/orgs' }), 'application/json');

  it("is refused with 403 HTTPS_REQUIRED naming PUBLIC_BASE_URL's origin, and sets no cookie", async () => {
    const refused = await json('http://10.1.2.3:3000');
    assert.equal(refused.status, 403, refused.body);
    assert.equal(refused.headers['set-cookie'], undefined);
    const body = JSON.parse(refused.body) as { errorCode: string; detail: string };
    assert.equal(body.errorCode, 'HTTPS_REQUIRED');
    assert.match(body.detail, /https:\/\/events\.example\.com\b/);
  });

  it('without JavaScript, the form goes back to sign-in with HTTPS_REQUIRED, and that page links to the https origin', async () => {
    const form = new URLSearchParams({ ...server.keys.member, next: '/orgs?x=1' }).toString();
    const refused = await post(
      'http://events.example.com',
      form,
      'application/x-www-form-urlencoded',
    );
    assert.equal(refused.status, 303);
    assert.equal(refused.headers['set-cookie'], undefined);
    const location = refused.headers.location ?? '';
    assert.equal(location, '/sign-in?error=HTTPS_REQUIRED&next=%2Forgs%3Fx%3D1');
    const page = await fetch(`${server.baseUrl}${location}`);
    const html = await page.text();
    assert.equal(page.status, 200);
    assert.match(html, /data-testid="https-required"/);
    assert.match(html, /href="https:\/\/events\.example\.com\/sign-in\?next=%2Forgs%3Fx%3D1"/);
  });

  it("another site's plain-http page is refused 403 CROSS_SITE_REQUEST, not told to open this service's https origin, before its media type is looked at", async () => {
    const credentials = JSON.stringify({ ...server.keys.member, next: '/orgs' });
    const form = new URLSearchParams({ ...server.keys.member, next: '/orgs' }).toString();
    for (const [origin, body, type] of [
      ['http://attacker.example', credentials, 'application/json'],
      ['http://attacker.example', form, 'application/x-www-form-urlencoded'],
      ['http://attacker.example', credentials, 'text/plain'],
      ['http://events.example.com.attacker.example', credentials, 'application/json'],
    ] as const) {
      const refused = await post(origin, body, type, 'events.example.com');
      assert.equal(refused.status, 403, `${origin} ${type}: ${refused.body}`);
      assert.equal(refused.headers['set-cookie'], undefined);
      const answer = JSON.parse(refused.body) as { errorCode: string };
      assert.equal(answer.errorCode, 'CROSS_SITE_REQUEST', `${origin} ${type}`);
    }
  });

  it('a text/plain post from this host over plain http is told HTTPS_REQUIRED (the media type is checked after)', async () => {
    const refused = await post(
      'http://events.example.com',
      JSON.stringify(server.keys.member),
      'text/plain',
    );
    assert.equal(refused.status, 403, refused.body);
    assert.equal((JSON.parse(refused.body) as { errorCode: string }).errorCode, 'HTTPS_REQUIRED');
  });

  it('from an https page, or a plain-http one on localhost or 127.0.0.1 (whose Secure cookies browsers keep), signs in', async () => {
    for (const origin of [PUBLIC, 'http://localhost:3000', 'http://127.0.0.1:3000']) {
      const signedIn = await json(origin);
      assert.equal(signedIn.status, 200, `${origin}: ${signedIn.body}`);
      assert.match(String(signedIn.headers['set-cookie']), /^__Host-org_events_session=/, origin);
    }
  });
});
