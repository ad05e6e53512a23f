import type { Page } from '@playwright/test';
import {
  DASHBOARD_HEADERS,
  eventsUrl,
  expect,
  frequentTypes,
  rows,
  signIn,
  test,
} from './support/fixtures';

async function openViews(page: Page) {
  await page.getByRole('button', { name: 'Views ▾' }).click();
  const menu = page.getByRole('dialog', { name: 'Saved views' });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('status')).toBeHidden(); // loaded
  return menu;
}

async function saveView(page: Page, name: string, shared: boolean) {
  const menu = await openViews(page);
  await menu.getByLabel('Save the current view').fill(name);
  if (shared) await menu.getByLabel('Share with everyone in the organization').check();
  await menu.getByRole('button', { name: 'Save view' }).click();
  await expect(menu.getByRole('button', { name: `Open view ${name}` })).toBeVisible();
  await page.keyboard.press('Escape');
}

// Two tests where there was one: the browser part (save, open, rename,
// delete) and the sharing part (what other keys see). Together they loaded
// seven pages in three browser contexts: 32 s alone on an idle machine,
// over the 60 s test timeout on a busy 2-core one.
test('saved views: save, reload, open, rename, delete', async ({ page, state }) => {
  const [type] = frequentTypes(state.events, 1);
  const suffix = Date.now().toString(36);
  const shared = `Team ${suffix}`;
  const mine = `Mine ${suffix}`;
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, `types=${type}&size=25&tz=local`));
  await expect(rows(page)).toHaveCount(25);
  // Hide a column: saved with the view.
  await page.getByRole('button', { name: 'Columns ▾' }).click();
  await page
    .getByRole('dialog', { name: 'Table columns' })
    .getByRole('checkbox', { name: 'Remote address' })
    .uncheck();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('columnheader', { name: 'Remote address' })).toHaveCount(0);
  await saveView(page, shared, true);
  await page.goto(eventsUrl(state.orgId, 'range=24h'));
  await saveView(page, mine, false);

  // After a reload, from the plain list with default columns: open the saved view.
  await page.goto(eventsUrl(state.orgId));
  await page.reload();
  await page.getByRole('button', { name: 'Columns ▾' }).click();
  await page
    .getByRole('dialog', { name: 'Table columns' })
    .getByRole('button', { name: 'Reset' })
    .click();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('columnheader', { name: 'Remote address' })).toHaveCount(1);
  let menu = await openViews(page);
  // The share box took: what the org's other keys see is the next test.
  await expect(menu.getByRole('button', { name: `Open view ${shared}` })).toContainText(
    'Shared by you',
  );
  await expect(menu.getByRole('button', { name: `Open view ${mine}` })).toContainText('Only you');
  await menu.getByRole('button', { name: `Open view ${shared}` }).click();
  await expect(page).toHaveURL(new RegExp(`types=${type}&size=25&tz=local$`));
  await expect(rows(page)).toHaveCount(25);
  for (const code of await rows(page).locator('td.col-type .sub').allTextContents()) {
    expect(code).toBe(type);
  }
  await expect(page.getByRole('columnheader', { name: 'Remote address' })).toHaveCount(0);

  // Rename.
  menu = await openViews(page);
  await menu.getByRole('button', { name: `Rename view ${shared}` }).click();
  await menu.getByLabel(`New name for ${shared}`).fill(`${shared} renamed`);
  await menu.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect(menu.getByRole('button', { name: `Open view ${shared} renamed` })).toBeVisible();
  await page.keyboard.press('Escape');

  // Delete: gone after a reload too.
  menu = await openViews(page);
  await menu.getByRole('button', { name: `Delete view ${mine}` }).click();
  await expect(menu.getByRole('button', { name: `Open view ${mine}` })).toHaveCount(0);
  // Focus stays in the menu, on a view that took its place (it fell to <body>).
  await expect
    .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? ''))
    .toMatch(/^Open view /);
  await page.reload();
  menu = await openViews(page);
  await expect(menu.getByRole('button', { name: `Open view ${mine}` })).toHaveCount(0);
  await expect(menu.getByRole('button', { name: `Open view ${shared} renamed` })).toBeVisible();
});

test('saved views are shared within the org only: others see the shared one and cannot change it', async ({
  page,
  browser,
  state,
}) => {
  const [type] = frequentTypes(state.events, 1);
  const suffix = Date.now().toString(36);
  const shared = `Team ${suffix}`;
  const mine = `Mine ${suffix}`;
  // Saved through the route the menu uses (saving from the menu is the test above).
  await signIn(page, state.keys.member);
  for (const [name, isShared, query] of [
    [shared, true, `types=${type}&size=25&tz=local`],
    [mine, false, 'range=24h'],
  ] as const) {
    const saved = await page.request.post(`/api/orgs/${state.orgId}/views`, {
      data: { name, shared: isShared, state: { query } },
      headers: { Origin: state.baseUrl },
    });
    expect(saved.status()).toBe(201);
  }

  // Another key of the same org sees the shared view, not the private one, and cannot change it.
  const colleague = await browser.newContext({ baseURL: state.baseUrl });
  const other = await colleague.newPage();
  await signIn(other, state.keys.spare[2]!);
  await other.goto(eventsUrl(state.orgId));
  let menu = await openViews(other);
  await expect(menu.getByRole('button', { name: `Open view ${shared}` })).toBeVisible();
  await expect(menu.getByRole('button', { name: `Open view ${mine}` })).toHaveCount(0);
  await expect(menu.getByRole('button', { name: `Rename view ${shared}` })).toHaveCount(0);
  await expect(menu.getByRole('button', { name: `Delete view ${shared}` })).toHaveCount(0);
  await menu.getByRole('button', { name: `Open view ${shared}` }).click();
  await expect(other).toHaveURL(new RegExp(`types=${type}&size=25&tz=local$`));
  await colleague.close();

  // A key of another org sees none of them, in the page and in the route.
  const stranger = await browser.newContext({ baseURL: state.baseUrl });
  const outsider = await stranger.newPage();
  await signIn(outsider, state.keys.otherOrg);
  await outsider.goto(eventsUrl(state.otherOrgId));
  menu = await openViews(outsider);
  await expect(menu.getByRole('button', { name: new RegExp(suffix) })).toHaveCount(0);
  const refused = await outsider.request.get(`/api/orgs/${state.orgId}/views`, {
    headers: DASHBOARD_HEADERS,
  });
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { errorCode: string }).errorCode).toBe('USER_UNAUTHORIZED');
  await stranger.close();
});

test('the views route checks its input and who asks', async ({ page, state }) => {
  const anonymous = await page.request.get(`/api/orgs/${state.orgId}/views`);
  expect(anonymous.status()).toBe(401);
  await signIn(page, state.keys.member);
  const bad = await page.request.post(`/api/orgs/${state.orgId}/views`, {
    data: { name: '', state: { query: '' } },
    headers: { Origin: state.baseUrl },
  });
  expect(bad.status()).toBe(400);
  expect(bad.headers()['x-error-code']).toBe('INVALID_ATTRIBUTE');
  expect(await bad.json()).toEqual({
    detail: 'Invalid attribute name: must be a non-empty string.',
    error: 400,
    errorCode: 'INVALID_ATTRIBUTE',
    parameters: ['name'],
    reason: 'Bad Request',
  });
  // U+0000 cannot be stored by PostgreSQL (it was a 500 there); no control character belongs in a menu.
  for (const name of ['nul\u0000name', 'two\nlines']) {
    const controls = await page.request.post(`/api/orgs/${state.orgId}/views`, {
      data: { name, state: { query: '' } },
      headers: { Origin: state.baseUrl },
    });
    expect(controls.status()).toBe(400);
    expect(((await controls.json()) as { detail: string }).detail).toBe(
      'Invalid attribute name: must not contain control characters.',
    );
  }
  // Half a surrogate pair (sent as the JSON escape \ud800) was stored and read back as U+FFFD.
  const lone = await page.request.post(`/api/orgs/${state.orgId}/views`, {
    data: { name: '\ud800x', state: { query: '' } },
    headers: { Origin: state.baseUrl },
  });
  expect(lone.status()).toBe(400);
  expect(((await lone.json()) as { detail: string }).detail).toBe(
    'Invalid attribute name: must be valid Unicode text (a lone surrogate is not).',
  );
  const crossSite = await page.request.post(`/api/orgs/${state.orgId}/views`, {
    data: { name: 'x', state: { query: '' } },
    headers: { Origin: 'https://evil.example' },
  });
  expect(crossSite.status()).toBe(403);
  const readOnly = await page.context().browser()!.newContext({ baseURL: state.baseUrl });
  const readOnlyPage = await readOnly.newPage();
  await signIn(readOnlyPage, state.keys.readOnly);
  const below = await readOnlyPage.request.get(`/api/orgs/${state.orgId}/views`);
  expect(below.status()).toBe(401);
  await readOnly.close();
});

test('renaming a view to blanks says it needs a name and keeps the old one', async ({
  page,
  state,
}) => {
  const name = `Blank ${Date.now().toString(36)}`;
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  await saveView(page, name, false);
  const menu = await openViews(page);
  await menu.getByRole('button', { name: `Rename view ${name}` }).click();
  await menu.getByLabel(`New name for ${name}`).fill('   ');
  await menu.getByRole('button', { name: 'Rename', exact: true }).click();
  await expect(menu.getByRole('alert')).toHaveText('Give the view a name.');
  // Still renaming, the field there to fix; the stored name unchanged.
  await expect(menu.getByLabel(`New name for ${name}`)).toBeVisible();
  await menu.getByRole('button', { name: 'Cancel' }).click();
  await expect(menu.getByRole('button', { name: `Open view ${name}` })).toBeVisible();
  await menu.getByRole('button', { name: `Delete view ${name}` }).click();
  await expect(menu.getByRole('button', { name: `Open view ${name}` })).toHaveCount(0);
  await expect.poll(() => menu.evaluate((el) => el.contains(document.activeElement))).toBe(true);
});

test('renaming a view, or cancelling the rename, gives focus back to its Rename button', async ({
  page,
  state,
}) => {
  const name = `Focus ${Date.now().toString(36)}`;
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  await saveView(page, name, false);
  const menu = await openViews(page);
  await menu.getByRole('button', { name: `Rename view ${name}` }).click();
  await menu.getByRole('button', { name: 'Cancel' }).click();
  // The form went away with the button pressed: focus fell to <body>.
  await expect(menu.getByRole('button', { name: `Rename view ${name}` })).toBeFocused();
  await menu.getByRole('button', { name: `Rename view ${name}` }).click();
  await menu.getByLabel(`New name for ${name}`).fill(`${name} renamed`);
  await page.keyboard.press('Enter');
  await expect(menu.getByRole('button', { name: `Rename view ${name} renamed` })).toBeFocused();
  await menu.getByRole('button', { name: `Delete view ${name} renamed` }).click();
  await expect(menu.getByRole('button', { name: `Open view ${name} renamed` })).toHaveCount(0);
});

test('opening a saved view gives focus back to Views', async ({ page, state }) => {
  const name = `Open ${Date.now().toString(36)}`;
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, 'size=25&q=zzzz-nothing-matches'));
  await saveView(page, name, false);
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  const menu = await openViews(page);
  await menu.getByRole('button', { name: `Open view ${name}` }).press('Enter');
  await expect(page).toHaveURL(/q=zzzz-nothing-matches/);
  // The menu closed with the button pressed: focus fell to <body>.
  await expect(page.getByRole('button', { name: 'Views ▾' })).toBeFocused();
  await (await openViews(page)).getByRole('button', { name: `Delete view ${name}` }).click();
});
