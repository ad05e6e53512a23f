import type { Page } from '@playwright/test';
import { startTestServer, type TestServer } from '../tests/helpers/server';
import { expect, rows, test } from './support/fixtures';

/**
 * The idle timeout (SESSION_IDLE_SECONDS) on a server of its own, where it is
 * 10 s (the suite's server keeps the default, or every other spec would
 * have to keep busy): a page left alone, live count and all, ends at sign-in
 * saying why and comes back where it was; a page in use outlives the timeout.
 */

const IDLE_SECONDS = 10;
let server: TestServer;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startTestServer({
    env: { SESSION_IDLE_SECONDS: String(IDLE_SECONDS) },
    eventCount: 300,
  });
});

test.afterAll(async () => {
  await server?.stop();
});

async function signInTo(page: Page): Promise<void> {
  const response = await page.request.post(`${server.baseUrl}/api/session`, {
    data: { publicKey: server.keys.member.publicKey, privateKey: server.keys.member.privateKey },
    headers: { Origin: server.baseUrl },
  });
  expect(response.status()).toBe(200);
}

const eventsPage = (query = '') =>
  `${server.baseUrl}/orgs/${server.orgId}/events${query ? `?${query}` : ''}`;

async function expectIdleNotice(page: Page, back: RegExp): Promise<void> {
  await expect(page.getByTestId('session-idle')).toHaveText(
    'You were signed out after 10 seconds without activity. Sign in again to return to the page you were on.',
  );
  expect(new URL(page.url()).searchParams.get('next')).toMatch(back);
}

test('a page left open, polling for new events, is signed out after the idle timeout and comes back after sign-in', async ({
  page,
}) => {
  // The sign-out comes up to the timeout after the calls the page makes in
  // the 10 s after it is shown (they are its load's activity), plus one live
  // count's 5 s: ~25 s after the rows show, more on a loaded machine.
  test.setTimeout(120_000);
  await signInTo(page);
  // Page 1: the live count asks every 5 s, and does not count as activity.
  // Its last activity (the page and its first list) comes after this, so the
  // timeout runs from later still: on a loaded machine, where the rows took
  // seconds to show, timing from them read an on-time sign-out as early.
  const left = Date.now();
  await page.goto(eventsPage('size=25'));
  await expect(rows(page).first()).toBeVisible();
  await expect(page).toHaveURL(/\/sign-in\?/, { timeout: 60_000 });
  expect(Date.now() - left).toBeGreaterThanOrEqual((IDLE_SECONDS - 1) * 1000);
  await expectIdleNotice(page, /\/events\?size=25$/);

  await page.getByLabel('Public key').fill(server.keys.member.publicKey);
  await page.getByLabel('Private key').fill(server.keys.member.privateKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(new RegExp(`/orgs/${server.orgId}/events\\?size=25$`));
  await expect(rows(page).first()).toBeVisible();
});

test('a page load after the idle timeout goes to sign-in with the notice, keeping where it was going', async ({
  page,
}) => {
  await signInTo(page);
  // Page 2: no live count.
  await page.goto(eventsPage('page=2&size=25'));
  await expect(rows(page).first()).toBeVisible();
  await page.waitForTimeout((IDLE_SECONDS + 1) * 1000);
  await page.goto(eventsPage('page=3&size=25'));
  await expect(page).toHaveURL(/\/sign-in\?reason=idle&next=/);
  await expectIdleNotice(page, /\/events\?page=3&size=25$/);
});

test('a page in use keeps its session past the idle timeout', async ({ page }) => {
  await signInTo(page);
  await page.goto(eventsPage('page=2&size=25'));
  await expect(rows(page).first()).toBeVisible();
  const started = Date.now();
  // A click every 3 s for twice the timeout: each shows the next page and
  // asks the API for the one after (the page warms it).
  for (let pageNum = 3; Date.now() - started < 2 * IDLE_SECONDS * 1000; pageNum++) {
    await page.waitForTimeout(3000);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect(page).toHaveURL(new RegExp(`[?&]page=${pageNum}(&|$)`));
    await expect(rows(page).first()).toBeVisible();
  }
  await page.reload();
  await expect(page).toHaveURL(/\/events\?/);
  await expect(rows(page).first()).toBeVisible();
});
