import type { Page } from '@playwright/test';
import { eventsUrl, expect, rows, signIn, test } from './support/fixtures';

const headers = (page: Page) => page.locator('table.events thead th').allTextContents();

test.beforeEach(async ({ page, state }) => {
  await signIn(page, state.keys.member);
});

test('column choice, order and density survive a reload', async ({ page, state }) => {
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  await expect(rows(page)).toHaveCount(25);
  expect(await headers(page)).toEqual([
    'Pick to compare',
    'Time (UTC)',
    'Event type',
    'Actor',
    'Target',
    'Project / cluster / host',
    'Remote address',
    'Summary',
  ]);
  await page.getByRole('button', { name: 'Columns ▾' }).click();
  const menu = page.getByRole('dialog', { name: 'Table columns' });
  await menu.getByRole('checkbox', { name: 'Target' }).uncheck();
  await menu.getByRole('button', { name: 'Move Summary left' }).click();
  await menu.getByRole('button', { name: 'Move Summary left' }).click();
  await menu.getByLabel('Compact').check();
  await menu.getByRole('button', { name: 'Done' }).click();
  const expected = [
    'Pick to compare',
    'Time (UTC)',
    'Event type',
    'Actor',
    'Summary',
    'Project / cluster / host',
    'Remote address',
  ];
  expect(await headers(page)).toEqual(expected);
  await expect(page.locator('table.events')).toHaveAttribute('data-density', 'compact');

  await page.reload();
  await expect(rows(page)).toHaveCount(25);
  await expect.poll(() => headers(page)).toEqual(expected);
  await expect(page.locator('table.events')).toHaveAttribute('data-density', 'compact');
  // Cells follow their headers.
  await expect(rows(page).first().locator('td').nth(4)).toHaveClass(/col-summary/);
});

test('times show absolute and relative together; cut-off cells carry their full text', async ({
  page,
  state,
}) => {
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  const time = rows(page).first().locator('td.col-time');
  await expect(time.locator('time')).toHaveText(
    new Date(state.events[0]!.created).toISOString().slice(0, 19).replace('T', ' '),
  );
  await expect(time.locator('.relative')).toHaveText(
    /^· (just now|in .+|\d+ (s|min|h|d|mo|y) ago)$/,
  );
  // Every cut-off cell gets a title with its whole text.
  await expect
    .poll(() =>
      page.locator('table.events tbody').evaluate((body) => {
        const cells = [...body.querySelectorAll<HTMLElement>('td .line:not(time), td .sub')];
        const cut = cells.filter((cell) => cell.scrollWidth > cell.clientWidth);
        return {
          cut: cut.length,
          untitled: cut.filter((cell) => cell.title !== cell.textContent).length,
        };
      }),
    )
    .toEqual(expect.objectContaining({ untitled: 0 }));
  const cut = await page
    .locator('table.events tbody')
    .evaluate(
      (body) =>
        [...body.querySelectorAll<HTMLElement>('td .line:not(time), td .sub')].filter(
          (cell) => cell.scrollWidth > cell.clientWidth,
        ).length,
    );
  expect(cut).toBeGreaterThan(0);
});

test('compare: two picked events side by side, differences marked', async ({ page, state }) => {
  const first = state.events.slice(0, 25).findIndex((e) => e.rawKeys?.length);
  const second = state.events
    .slice(0, 25)
    .findIndex(
      (e, i) =>
        i !== first && e.rawKeys?.length && e.eventTypeName !== state.events[first]!.eventTypeName,
    );
  expect(first).toBeGreaterThanOrEqual(0);
  expect(second).toBeGreaterThanOrEqual(0);
  const [a, b] = [state.events[first]!, state.events[second]!];
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  await rows(page).nth(first).locator('input.pick').check();
  await expect(page.getByTestId('compare-bar')).toContainText('1 event picked');
  await rows(page).nth(second).locator('input.pick').check();
  // Picking does not open the event.
  await expect(page.getByTestId('event-panel')).toHaveCount(0);
  await page.getByTestId('compare-bar').getByRole('button', { name: 'Compare' }).click();

  const dialog = page.getByRole('dialog', { name: 'Compare two events' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText(a.id, { exact: true })).toBeVisible();
  await expect(dialog.getByText(b.id, { exact: true })).toBeVisible();
  const fields = dialog.getByRole('table', { name: 'Fields' });
  const row = (path: string) => fields.locator(`tbody tr[data-path="${path}"]`);
  await expect(row('id')).toHaveAttribute('data-differs', 'true');
  await expect(row('id').locator('.diff-mark')).toBeVisible();
  await expect(row('eventTypeName')).toHaveAttribute('data-differs', 'true');
  await expect(row('eventTypeName')).toContainText(a.eventTypeName);
  await expect(row('eventTypeName')).toContainText(b.eventTypeName);
  // Both belong to the same org: that field matches and is not marked.
  await expect(row('orgId')).not.toHaveAttribute('data-differs', 'true');
  // The raw documents are compared too.
  const raw = dialog.getByRole('table', { name: 'Raw documents' });
  await expect(raw.locator('tbody tr').first()).toBeVisible();
  const differing = await dialog.locator('tr[data-differs]').count();
  await expect(dialog.getByTestId('compare-summary')).toContainText(`${differing} of`);

  // Only the differences, then close.
  await dialog.getByLabel('Only differences').check();
  await expect(fields.locator('tbody tr:not([data-differs])')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('compare: Back or Forward under the comparison closes it; the picks stay and the event opened by Forward has focus', async ({
  page,
  state,
}) => {
  // It belongs to the list it was opened over: after Forward it stayed open,
  // modal, over the event panel Forward opened, which could not take focus.
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(eventsUrl(state.orgId, 'size=25'));
  const panel = page.getByTestId('event-panel');
  await rows(page).nth(3).locator('td.col-time').click();
  await expect(panel).toBeVisible();
  await page.goBack();
  await expect(panel).toBeHidden();

  const compareBar = page.getByTestId('compare-bar');
  const dialog = page.getByRole('dialog', { name: 'Compare two events' });
  await rows(page).nth(0).locator('input.pick').check();
  await rows(page).nth(1).locator('input.pick').check();
  await compareBar.getByRole('button', { name: 'Compare' }).click();
  await expect(dialog).toBeVisible();
  await page.goForward();
  await expect(panel.getByText(state.events[3]!.id, { exact: true })).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect.poll(() => panel.evaluate((el) => el.contains(document.activeElement))).toBe(true);
  await expect(compareBar).toContainText('2 events picked');

  // Back to the list (the panel closes): the comparison opened over the
  // panel goes too, and opens again from the same picks.
  await compareBar.getByRole('button', { name: 'Compare' }).click();
  await expect(dialog).toBeVisible();
  await page.goBack();
  await expect(panel).toBeHidden();
  await expect(dialog).toBeHidden();
  await compareBar.getByRole('button', { name: 'Compare' }).click();
  await expect(dialog.getByText(state.events[0]!.id, { exact: true })).toBeVisible();
  await expect(dialog.getByText(state.events[1]!.id, { exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});
