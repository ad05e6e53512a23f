import { expect, type Page, type Response, test } from '@playwright/test';
import pg from 'pg';
import { createTestDatabase } from '../tests/helpers/postgres';
import { startTestServer, type TestServer } from '../tests/helpers/server';
import { rowIds, rows } from './support/fixtures';

/**
 * The outage page (app/unavailable.tsx) reloads itself every Retry-After
 * seconds; those reloads are not the user's activity, so a tab left on it
 * is signed out after the idle timeout (10 s here), while the user's own
 * reloads keep the session. The outage is one the session check gets
 * through (when it cannot answer, no activity is recorded anyway): a DBA's
 * lock_timeout meets a session holding the orgs table, so the page's
 * lookup of its organization gives up (503) while the key lookup answers.
 */

const IDLE_SECONDS = 10;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let server: TestServer;
/** Holds the orgs table while the outage lasts. */
let locker: pg.Client;

test.describe.configure({ mode: 'serial' });
// Chromium sends a meta refresh with Sec-Fetch-User: ?1, as the user's, for
// 5 s after a user gesture, and Playwright runs every script it evaluates in
// the page as one: its trace snapshots, a locator's assertion, toHaveURL's
// polling. So while the page is left alone here nothing is evaluated in it
// (no trace; the outage page is told by its response, the sign-in by
// waitForURL), or its reloads would pass for the user's.
test.use({ trace: 'off' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  database = await createTestDatabase();
  const name = new URL(database.url).pathname.slice(1);
  locker = new pg.Client({ connectionString: database.url });
  await locker.connect();
  await locker.query(`ALTER DATABASE ${name} SET lock_timeout = '300ms'`);
  server = await startTestServer({
    databaseUrl: database.url,
    env: { SESSION_IDLE_SECONDS: String(IDLE_SECONDS) },
    eventCount: 50,
  });
});

test.afterAll(async () => {
  await server?.stop();
  await locker?.end();
  await database?.drop();
});

async function startOutage(): Promise<void> {
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE orgs IN ACCESS EXCLUSIVE MODE');
}

async function endOutage(): Promise<void> {
  await locker.query('COMMIT');
}

async function signInTo(page: Page): Promise<void> {
  const response = await page.request.post(`${server.baseUrl}/api/session`, {
    data: { publicKey: server.keys.member.publicKey, privateKey: server.keys.member.privateKey },
    headers: { Origin: server.baseUrl },
  });
  expect(response.status()).toBe(200);
}

const eventsPage = () => `${server.baseUrl}/orgs/${server.orgId}/events?size=25`;

/** That `response` is the outage page, read from its HTML, not from the page (see above). */
async function expectOutagePage(response: Response | null): Promise<void> {
  expect(response?.status()).toBe(200);
  expect(await response?.text()).toContain('<h1>The events can’t be shown right now</h1>');
}

/**
 * Signed in, then the events page opened while the outage lasts (it shows
 * the outage page): `then` runs before the outage ends, told when the page
 * was asked for.
 */
async function onOutagePage(page: Page, then: (opened: number) => Promise<void>): Promise<void> {
  await signInTo(page);
  await startOutage();
  try {
    const opened = Date.now();
    await expectOutagePage(await page.goto(eventsPage()));
    await then(opened);
  } finally {
    await endOutage();
  }
}

test('a tab left on the outage page, reloading by itself, is signed out after the idle timeout', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await onOutagePage(page, async (left) => {
    // It reloads every 5 s; each reload kept the session before, for good.
    await page.waitForURL(/\/sign-in\?reason=idle&/, { timeout: 60_000 });
    expect(Date.now() - left).toBeGreaterThanOrEqual((IDLE_SECONDS - 1) * 1000);
    await expect(page.getByTestId('session-idle')).toBeVisible();
    expect(new URL(page.url()).searchParams.get('next')).toMatch(/\/events\?size=25$/);
  });
});

test("the user's own reloads of the outage page keep the session past the idle timeout", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await onOutagePage(page, async () => {
    // Once reloaded by itself (after 5 s), the address it left in the
    // address bar is the one the user reloads.
    await page.waitForURL(/[?&]reload=auto$/, { timeout: 15_000 });
    // The first reload at once: the last activity recorded is the sign-in
    // (the page, opened within a second of it, records none), and the
    // automatic reload took 5 s or more of the IDLE_SECONDS since. Waiting
    // 3 s first, a loaded machine (the reload late by 2 s) saw it idle.
    const started = Date.now();
    while (Date.now() - started < 2 * IDLE_SECONDS * 1000) {
      await expectOutagePage(await page.reload());
      await page.waitForTimeout(3000);
    }
  });
  await page.reload();
  await expect(rows(page).first()).toBeVisible();
  // Once shown, the page drops the marker from its address (left there, the
  // list, its way back, a bookmark carried it), every other pair kept.
  await expect(page).toHaveURL(eventsPage());
  // The list remembered for the event page's way back has none either.
  const [eventId] = await rowIds(page);
  await page.goto(`${server.baseUrl}/orgs/${server.orgId}/events/${eventId}`);
  await expect(page.getByRole('link', { name: '← Back to the list' })).toHaveAttribute(
    'href',
    `/orgs/${server.orgId}/events?size=25`,
  );
});
