import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { send } from '@/tests/helpers/digest-client';
import { createTestDatabase, PG_ADMIN_URL } from '@/tests/helpers/postgres';
import {
  signInForCookie,
  startTestServer,
  statusWithin,
  type TestServer,
} from '@/tests/helpers/server';

/**
 * /readyz follows the database: 503 while PostgreSQL refuses connections to
 * it, 200 again once it accepts them, with no restart; /healthz stays 200
 * throughout (the process is fine). Needs a build and the local PostgreSQL.
 */

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: TestServer;
const admin = new pg.Client({ connectionString: PG_ADMIN_URL });

before(async () => {
  database = await createTestDatabase();
  server = await startTestServer({ databaseUrl: database.url, eventCount: 50 });
  await admin.connect();
});
after(async () => {
  await server?.stop();
  await admin.end();
  await database?.drop();
});

test('readyz: 503 while the database refuses connections, 200 when it is back; dashboard pages say the service is unavailable meanwhile', async () => {
  const name = new URL(database.url).pathname.slice(1);
  assert.equal((await send(`${server.baseUrl}/readyz`)).status, 200);
  const cookie = await signInForCookie(server, server.keys.member);

  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  try {
    assert.equal(await statusWithin(server, '/readyz', 503, 10_000), 503);
    const down = await send(`${server.baseUrl}/readyz`);
    assert.deepEqual(down.json(), { status: 'unavailable' }, 'no error text in public');
    assert.equal((await send(`${server.baseUrl}/healthz`)).status, 200);
    // The dashboard's sign-in says the same: a 503 to retry, not a 500 from Next.
    const signIn = await fetch(`${server.baseUrl}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(server.keys.member),
    });
    assert.equal(signIn.status, 503);
    assert.match(signIn.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(((await signIn.json()) as { errorCode: string }).errorCode, 'SERVICE_UNAVAILABLE');
    // A dashboard page says the service is unavailable (and reloads itself),
    // not Next's generic 500, nor "no access" for an organization it could not look up.
    for (const path of [
      `/orgs/${server.orgId}/events`,
      `/orgs/${server.orgId}/events/${server.events.org[0]!.id}`,
      '/orgs',
      '/',
      '/sign-in',
    ]) {
      const page = await fetch(`${server.baseUrl}${path}`, {
        headers: { Cookie: cookie },
        redirect: 'manual',
      });
      const html = await page.text();
      assert.equal(page.status, 200, path);
      assert.match(html, /<h1>The events can’t be shown right now<\/h1>/, path);
      assert.match(html, /The service is temporarily unavailable/, path);
      assert.match(html, /Retry in \d+ seconds/, path);
      assert.match(html, /<head>[^]*<meta http-equiv="refresh" content="\d+; [^]*<\/head>/, path);
      // To its own address marked as the browser's reload, not the user's
      // (lib/dashboard/page-load.ts); "Try again" goes there unmarked.
      const refresh = /<meta http-equiv="refresh" content="\d+; url=([^"]*)"/.exec(html)?.[1];
      assert.equal(refresh, `${path}?reload=auto`, path);
      assert.ok(html.includes(`<a class="button primary" href="${path}">Try again</a>`), path);
      // What the page shows: Next's flight data (scripts) carries the
      // organization segment's no-access boundary on every page, unshown.
      const shown = html.replace(/<script[^>]*>[^]*?<\/script>/g, '');
      assert.doesNotMatch(shown, /have access to this organization|Something went wrong/, path);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const unstructured = server
      .output()
      .split('\n')
      .filter((line) => /⨯|StoreUnavailableError/.test(line) && !line.startsWith('{'));
    assert.deepEqual(unstructured, [], 'every error line is JSON');
    const shownUnavailable = server
      .logLines()
      .find((line) => line.msg === 'page shown as unavailable');
    assert.ok(shownUnavailable, 'the outage is logged');
    // Thrown in Next's minified bundle, where the class is named `c` or so.
    assert.equal(
      (shownUnavailable.err as { type?: string }).type,
      'StoreUnavailableError',
      'the error is logged by its name',
    );
    assert.ok(!server.logLines().some((line) => line.msg === 'Next.js error'));
  } finally {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  }
  assert.equal(await statusWithin(server, '/readyz', 200, 10_000), 200);
  const notReady = server.logLines().find((line) => line.msg === 'not ready');
  assert.ok(notReady, 'the reason is logged');
  assert.equal(notReady.level, 'warn');
});
