import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import { eventsUrl, expect, rows, signIn, test } from './support/fixtures';

/**
 * A session ended elsewhere (signed out in another tab, rotated away) sends
 * the export and saving a view to sign-in, as the table's own loads do,
 * instead of "You are not authorized" or a count that never comes.
 */

/** Ends the page's session from outside the page: DELETE /api/session with its cookie. */
async function endSessionElsewhere(
  request: APIRequestContext,
  context: BrowserContext,
  baseUrl: string,
) {
  const cookie = (await context.cookies()).find((c) => c.name === 'org_events_session')!;
  const response = await request.delete(`${baseUrl}/api/session`, {
    headers: { Origin: baseUrl, Cookie: `${cookie.name}=${cookie.value}` },
  });
  expect(response.status()).toBeLessThan(300);
}

/**
 * Page 2, so no live polling (page 1 only) ends up at sign-in by itself;
 * the next page is warmed when the browser is idle, so that load is waited for.
 */
async function openPageTwo(page: Page, orgId: string) {
  const warmed = page.waitForResponse((r) => r.url().includes('pageNum=3'));
  await page.goto(eventsUrl(orgId, 'page=2&size=25'));
  await expect(rows(page).first()).toBeVisible();
  await warmed;
}

async function expectSentToSignIn(page: Page) {
  await expect(page).toHaveURL(/\/sign-in\?reason=expired&next=/);
  await expect(page.getByTestId('session-expired')).toHaveText(/Your session has expired/);
  expect(new URL(page.url()).searchParams.get('next')).toMatch(/\/events\?page=2&size=25$/);
}

test.describe('a session ended elsewhere', () => {
  test('page 1 left open goes to sign-in by itself at its next live count', async ({
    page,
    context,
    request,
    state,
  }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await expect(rows(page).first()).toBeVisible();
    // The page's first requests (facets, histogram, count) answered: on a
    // loaded machine one still on its way when the session ended was refused
    // first and took the page to sign-in, and no live count came.
    await page.waitForLoadState('networkidle');
    const refused = page.waitForResponse(
      (r) => r.url().includes('itemsPerPage=1&') && r.status() === 401,
    );
    await endSessionElsewhere(request, context, state.baseUrl);
    await refused; // the live count, asked every 5 s
    await expect(page).toHaveURL(/\/sign-in\?reason=expired&next=/);
    await expect(page.getByTestId('session-expired')).toHaveText(/Your session has expired/);
    expect(new URL(page.url()).searchParams.get('next')).toMatch(/\/events\?size=25$/);
  });

  test('opening Export goes to sign-in and back', async ({ page, context, request, state }) => {
    await signIn(page, state.keys.member);
    await openPageTwo(page, state.orgId);
    await endSessionElsewhere(request, context, state.baseUrl);
    await page.getByRole('button', { name: 'Export ▾' }).click();
    await expectSentToSignIn(page);
    await page.getByLabel('Public key').fill(state.keys.member.publicKey);
    await page.getByLabel('Private key').fill(state.keys.member.privateKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events\\?page=2&size=25$`));
  });

  test('starting an export goes to sign-in', async ({ page, context, request, state }) => {
    await signIn(page, state.keys.member);
    await openPageTwo(page, state.orgId);
    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    const start = dialog.getByRole('button', { name: /^Export [\d,]+ events$/ });
    await expect(start).toBeVisible();
    await endSessionElsewhere(request, context, state.baseUrl);
    await start.click();
    await expectSentToSignIn(page);
  });

  test('saving a view goes to sign-in', async ({ page, context, request, state }) => {
    await signIn(page, state.keys.member);
    await openPageTwo(page, state.orgId);
    await page.getByRole('button', { name: 'Views ▾' }).click();
    const menu = page.getByRole('dialog', { name: 'Saved views' });
    await expect(menu.getByRole('status')).toBeHidden(); // the list loaded
    await endSessionElsewhere(request, context, state.baseUrl);
    await menu.getByLabel('Save the current view').fill(`Ended ${Date.now().toString(36)}`);
    await menu.getByRole('button', { name: 'Save view' }).click();
    await expectSentToSignIn(page);
  });
});
