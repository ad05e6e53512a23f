import { CHROMIUM_LAUNCH_OPTIONS } from '../tests/helpers/chromium';
import { startTestServer, type TestServer } from '../tests/helpers/server';
import { expect, test } from './support/fixtures';

/**
 * PUBLIC_BASE_URL=https://… makes the session cookie Secure, which Chromium
 * drops on a plain-http page of any host but loopback: opened past the
 * proxy at http://dashboard.test:port (mapped to this machine), the sign-in
 * page says so before the keys are typed and a sign-in stays refused with
 * that reason, where it signed in and came straight back with no word why.
 * At http://127.0.0.1:port, where Chromium keeps the cookie, it signs in.
 */

const HOST = 'dashboard.test';
let server: TestServer;

test.use({
  launchOptions: {
    ...CHROMIUM_LAUNCH_OPTIONS,
    args: [...CHROMIUM_LAUNCH_OPTIONS.args, `--host-resolver-rules=MAP ${HOST} 127.0.0.1`],
  },
});
test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  server = await startTestServer({ env: { PUBLIC_BASE_URL: `https://${HOST}` }, eventCount: 10 });
});

test.afterAll(async () => {
  await server?.stop();
});

test('at a plain-http address, the sign-in page says to open the https one, and a sign-in there is refused saying the same', async ({
  page,
}) => {
  const port = new URL(server.baseUrl).port;
  await page.goto(`http://${HOST}:${port}/sign-in?next=%2Forgs`);
  const notice = page.getByTestId('https-required');
  await expect(notice).toContainText('Open the dashboard at https://dashboard.test.');
  await expect(notice.getByRole('link', { name: 'https://dashboard.test' })).toHaveAttribute(
    'href',
    'https://dashboard.test/sign-in?next=%2Forgs',
  );
  await page.getByLabel('Public key').fill(server.keys.member.publicKey);
  await page.getByLabel('Private key').fill(server.keys.member.privateKey);
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/session'));
  await page.getByRole('button', { name: 'Sign in' }).click();
  expect((await answer).status()).toBe(403);
  await expect(page).toHaveURL(/\/sign-in\?next=%2Forgs$/);
  await expect(notice).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'not correct' })).toHaveCount(0);
  expect(await page.context().cookies()).toEqual([]);
});

test('at http://127.0.0.1, whose Secure cookies Chromium keeps, the page says nothing of HTTPS and signs in', async ({
  page,
}) => {
  await page.goto(`${server.baseUrl}/sign-in?next=%2Forgs`);
  await page.getByLabel('Public key').fill(server.keys.member.publicKey);
  await page.getByLabel('Private key').fill(server.keys.member.privateKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/orgs$/);
  await expect(page.getByTestId('https-required')).toHaveCount(0);
});
