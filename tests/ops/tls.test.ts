import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { runServerToExit, startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * TLS_CERT_FILE and TLS_KEY_FILE: server.ts listens with HTTPS itself, and
 * the links it writes say https. A self-signed certificate made with
 * openssl for the test; requests through curl --digest. The dashboard's
 * session cookie is Secure too. Needs a build.
 */

const run = promisify(execFile);
let server: TestServer;
let dir: string;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-tls-'));
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1'],
    ...['-keyout', key, '-out', cert],
  ]);
  server = await startTestServer({ env: { TLS_CERT_FILE: cert, TLS_KEY_FILE: key } });
});
after(async () => {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function curl(url: string, ...extra: string[]): Promise<{ status: string; body: string }> {
  const { stdout } = await run('curl', ['-s', '-k', ...extra, '-w', '\n%{http_code}', url]);
  const cut = stdout.lastIndexOf('\n');
  return { body: stdout.slice(0, cut), status: stdout.slice(cut + 1) };
}

/** Signs the member key in over HTTPS with curl, as the dashboard's form script does: the answer's status line and headers. */
async function signInOverHttps(): Promise<string> {
  const { member } = server.keys;
  const { stdout } = await run('curl', [
    ...['-s', '-k', '-D', '-', '-o', '/dev/null', '-X', 'POST'],
    ...['-H', 'Content-Type: application/json', '-H', `Origin: ${server.baseUrl}`],
    ...['--data', JSON.stringify({ publicKey: member.publicKey, privateKey: member.privateKey })],
    `${server.baseUrl}/api/session`,
  ]);
  return stdout;
}

/** The HTTP status of a curl request over HTTPS (`args`: its options and URL). */
async function statusOf(...args: string[]): Promise<string> {
  const { stdout } = await run('curl', [
    '-s',
    '-k',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    ...args,
  ]);
  return stdout;
}

describe('HTTPS from TLS_CERT_FILE and TLS_KEY_FILE', () => {
  test('the server says it is ready on an https URL', () => {
    assert.match(server.baseUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  test('curl -k --digest reads a list over HTTPS; its links use https', async () => {
    const { member } = server.keys;
    const res = await curl(
      `${server.apiUrl}/orgs/${server.orgId}/events?itemsPerPage=3`,
      ...['--digest', '-u', `${member.publicKey}:${member.privateKey}`],
    );
    assert.equal(res.status, '200', res.body);
    const body = JSON.parse(res.body) as { links: { href: string }[]; results: unknown[] };
    assert.equal(body.results.length, 3);
    assert.ok(body.links.length > 0);
    for (const link of body.links) assert.match(link.href, /^https:\/\/127\.0\.0\.1:\d+\//);
  });

  test('plain HTTP on the same port is not served', async () => {
    const http = server.baseUrl.replace(/^https:/, 'http:');
    const res = await curl(`${http}/healthz`).catch(() => ({ status: 'refused', body: '' }));
    assert.notEqual(res.status, '200');
  });

  test("signing in over HTTPS sets a Secure __Host- cookie that opens the API (the dashboard's thread is reached over loopback HTTP)", async () => {
    const stdout = await signInOverHttps();
    assert.match(stdout, /^HTTP\/1\.1 200/, stdout);
    // __Host-: the browser takes it only Secure, for this host and Path=/, from this origin alone.
    const cookie = /^set-cookie: (__Host-org_events_session=.*)$/im.exec(stdout)?.[1];
    assert.ok(cookie, stdout);
    assert.match(cookie, /; Secure(;|$)/i);
    assert.doesNotMatch(cookie, /; Domain=/i);
    // The cookie opens the API over HTTPS.
    const events = `${server.baseUrl}/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=1`;
    assert.equal(await statusOf('-H', `Cookie: ${cookie.split(';')[0]}`, events), '200');
    // And the dashboard's page (read in Next's thread), where without it the page sends to sign-in.
    const page = `${server.baseUrl}/orgs/${server.orgId}/events`;
    assert.equal(await statusOf('-H', `Cookie: ${cookie.split(';')[0]}`, page), '200');
    assert.notEqual(await statusOf(page), '200');
  });

  test("the __Host- cookie beside the dashboard's zone cookie, as a browser sends them, opens a page and is what sign-out ends", async () => {
    const signedIn = await signInOverHttps();
    const session = /^set-cookie: (__Host-org_events_session=[^;]*)/im.exec(signedIn)?.[1];
    assert.ok(session, signedIn);
    // The dashboard sets org_events_tz once it has run: a browser sends both from then on.
    const both = `${session}; org_events_tz=UTC`;
    const page = `${server.baseUrl}/orgs/${server.orgId}/events`;
    const events = `${server.apiUrl}/orgs/${server.orgId}/events?itemsPerPage=1`;
    assert.equal(await statusOf('-H', `Cookie: ${both}`, page), '200', 'the page');
    assert.equal(
      await statusOf('-X', 'DELETE', '-H', `Cookie: ${both}`, `${server.baseUrl}/api/session`),
      '204',
    );
    assert.equal(await statusOf('-H', `Cookie: ${session}`, events), '401', 'signed out');
  });

  test('over HTTPS a session cookie without the __Host- prefix (one a sibling subdomain or a plain-HTTP page can plant) opens neither the API, a page nor a saved view; sign-out still clears both names', async () => {
    const signedIn = await signInOverHttps();
    const value = /^set-cookie: __Host-org_events_session=([^;]*)/im.exec(signedIn)?.[1];
    assert.ok(value, signedIn);
    // A live session's value, planted under the unprefixed name: what a
    // cookie-tossing attacker sends to sign a victim in as the attacker.
    const planted = `org_events_session=${value}`;
    const events = `${server.apiUrl}/orgs/${server.orgId}/events?itemsPerPage=1`;
    const page = `${server.baseUrl}/orgs/${server.orgId}/events`;
    const views = `${server.baseUrl}/api/orgs/${server.orgId}/views`;
    assert.equal(await statusOf('-H', `Cookie: __Host-${planted}`, events), '200', 'prefixed');
    assert.equal(await statusOf('-H', `Cookie: ${planted}`, events), '401', 'the API');
    assert.equal(
      await statusOf('-H', `Cookie: ${planted}; org_events_tz=UTC`, page),
      '307',
      'a page',
    );
    assert.equal(await statusOf('-H', `Cookie: ${planted}`, views), '401', 'saved views');
    const out = await run('curl', [
      ...['-s', '-k', '-D', '-', '-o', '/dev/null', '-X', 'DELETE'],
      ...['-H', `Cookie: ${planted}`, `${server.baseUrl}/api/session`],
    ]);
    assert.match(out.stdout, /^HTTP\/1\.1 204/);
    assert.deepEqual(
      [...out.stdout.matchAll(/^set-cookie: ([^=]*)=; Path=\/; Max-Age=0;/gim)].map((m) => m[1]),
      ['__Host-org_events_session', 'org_events_session'],
    );
  });

  test("an event's page, read over HTTPS with no PUBLIC_BASE_URL, lists its related links as https (the page's in-process API call knows the connection is TLS)", async () => {
    const signedIn = await signInOverHttps();
    const session = /^set-cookie: (__Host-org_events_session=[^;]*)/im.exec(signedIn)?.[1];
    assert.ok(session, signedIn);
    const list = await curl(
      `${server.apiUrl}/orgs/${server.orgId}/events?itemsPerPage=1`,
      ...['-H', `Cookie: ${session}`],
    );
    const eventId = (JSON.parse(list.body) as { results: { id: string }[] }).results[0]!.id;
    const page = await curl(
      `${server.baseUrl}/orgs/${server.orgId}/events/${eventId}`,
      ...['-H', `Cookie: ${session}`],
    );
    assert.equal(page.status, '200', page.body.slice(0, 500));
    const eventLink = `/api/public/v1.0/orgs/${server.orgId}/events/${eventId}`;
    const hrefs = [...page.body.matchAll(/<a href="([^"]*)"/g)]
      .map((m) => m[1]!)
      .filter((href) => href.endsWith(eventLink));
    assert.deepEqual(hrefs, [`${server.baseUrl}${eventLink}`]);
  });

  test('a sign-in or a saved view posted from a plain-http page is refused over HTTPS: http://host is another origin than https://host, and a network attacker can answer for it', async () => {
    const { member } = server.keys;
    const plainOrigin = server.baseUrl.replace(/^https:/, 'http:');
    const post = (pathname: string, origin: string, body: unknown, ...extra: string[]) =>
      run('curl', [
        ...['-s', '-k', '-D', '-', '-X', 'POST', '-H', 'Content-Type: application/json'],
        ...['-H', `Origin: ${origin}`, ...extra, '-d', JSON.stringify(body)],
        `${server.baseUrl}${pathname}`,
      ]).then((r) => r.stdout);
    const status = (out: string) => /^HTTP\/1\.1 (\d+)/.exec(out)?.[1];
    const errorCode = (out: string) => /"errorCode":"([A-Z_]+)"/.exec(out)?.[1];

    // 127.0.0.1 is loopback: not the HTTPS_REQUIRED case, the cross-site one.
    const credentials = { publicKey: member.publicKey, privateKey: member.privateKey };
    const refused = await post('/api/session', plainOrigin, credentials);
    assert.equal(status(refused), '403', refused);
    assert.equal(errorCode(refused), 'CROSS_SITE_REQUEST');
    assert.doesNotMatch(refused, /^set-cookie:/im);

    const signedIn = await post('/api/session', server.baseUrl, credentials);
    const session = /^set-cookie: (__Host-org_events_session=[^;]*)/im.exec(signedIn)?.[1];
    assert.ok(session, signedIn);
    const views = `/api/orgs/${server.orgId}/views`;
    const view = { name: 'from a plain-http page', state: { query: '' } };
    for (const [origin, host] of [
      [plainOrigin, []],
      ['http://events.test', ['-H', 'Host: events.test']],
    ] as const) {
      const out = await post(views, origin, view, '-H', `Cookie: ${session}`, ...host);
      assert.equal(status(out), '403', `${origin}: ${out}`);
      assert.equal(errorCode(out), 'CROSS_SITE_REQUEST');
    }
    const saved = await post(views, server.baseUrl, view, '-H', `Cookie: ${session}`);
    assert.equal(status(saved), '201', saved);
  });

  test("over HTTPS a sign-in from another site's page is refused CROSS_SITE_REQUEST whatever its Content-Type; one from this host's plain-http page HTTPS_REQUIRED, before its media type", async () => {
    const { member } = server.keys;
    const credentials = JSON.stringify({
      publicKey: member.publicKey,
      privateKey: member.privateKey,
    });
    const signIn = (origin: string, host: string, type: string) =>
      run('curl', [
        ...['-s', '-k', '-D', '-', '-X', 'POST', '-H', `Content-Type: ${type}`],
        ...['-H', `Origin: ${origin}`, '-H', `Host: ${host}`, '-d', credentials],
        `${server.baseUrl}/api/session`,
      ]).then((r) => r.stdout);
    const answer = (out: string) => ({
      status: /^HTTP\/1\.1 (\d+)/.exec(out)?.[1],
      errorCode: /"errorCode":"([A-Z_]+)"/.exec(out)?.[1],
      cookie: /^set-cookie:/im.test(out),
    });
    for (const type of ['application/json', 'text/plain']) {
      for (const origin of ['http://attacker.example', 'https://attacker.example']) {
        assert.deepEqual(
          answer(await signIn(origin, 'events.test', type)),
          { status: '403', errorCode: 'CROSS_SITE_REQUEST', cookie: false },
          `${origin} ${type}`,
        );
      }
      const plain = await signIn('http://events.test', 'events.test', type);
      assert.deepEqual(
        answer(plain),
        { status: '403', errorCode: 'HTTPS_REQUIRED', cookie: false },
        type,
      );
      assert.match(plain, /Open the dashboard at https:\/\/events\.test to sign in/, type);
    }
  });

  test('/healthz over HTTPS', async () => {
    const res = await curl(`${server.baseUrl}/healthz`);
    assert.equal(res.status, '200');
  });
});

/**
 * A TLS file that cannot be read or is not a PEM of its kind ends the start
 * with a line naming the variable: OpenSSL's "PEM routines::no start line"
 * or a bare ENOENT named neither the variable nor the file.
 */
test('a TLS file that is missing, of the wrong kind or not the pair ends the start naming the variable, before the database is waited for', async () => {
  const other = path.join(dir, 'other');
  fs.mkdirSync(other);
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=other', '-days', '1'],
    ...['-keyout', path.join(other, 'key.pem'), '-out', path.join(other, 'cert.pem')],
  ]);
  const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  const missing = path.join(dir, 'missing.pem');
  for (const [certFile, keyFile, reason] of [
    [missing, key, `TLS_CERT_FILE ${missing} cannot be read: ENOENT`],
    [cert, missing, `TLS_KEY_FILE ${missing} cannot be read: ENOENT`],
    [key, cert, `TLS_CERT_FILE ${key} is not a PEM certificate`],
    [cert, cert, `TLS_KEY_FILE ${cert} is not a PEM private key`],
    [cert, path.join(other, 'key.pem'), 'TLS_CERT_FILE and TLS_KEY_FILE are not a certificate'],
  ] as const) {
    const started = runServerToExit({
      ...process.env,
      NODE_ENV: 'test',
      SERVE: 'api',
      PORT: '0',
      // A database that never answers: the files are checked before it is
      // waited for (else the start ended on the wait, not naming them).
      DATABASE_URL: 'postgres://127.0.0.1:1/none',
      DATABASE_WAIT_SECONDS: '3',
      REDIS_URL: '',
      TLS_CERT_FILE: certFile,
      TLS_KEY_FILE: keyFile,
    });
    assert.equal(started.status, 1, `${certFile} ${keyFile}: ${started.stdout}${started.stderr}`);
    const failure = started.stderr.trim().split('\n').at(-1)!;
    assert.ok(failure.startsWith(`> org-events failed to start: ${reason}`), failure);
    assert.doesNotMatch(started.stdout, /ready on/);
  }
});
