import type { Page } from '@playwright/test';
import { eventsUrl, expect, rows, shownTotal, signIn, test } from './support/fixtures';

/**
 * For the keyboard and screen readers: a dialog closed from inside gives
 * focus back to the button that opened it (it fell to <body>, so the next
 * Tab started over from the top), facet values are read with their counts
 * apart, and the facets' hundred buttons can be skipped.
 */
/** Picks the first two rows and opens their comparison from the keyboard; it has focus. */
async function openComparison(page: Page, orgId: string) {
  await page.goto(eventsUrl(orgId, 'size=25'));
  await rows(page).nth(0).locator('input.pick').check();
  await rows(page).nth(1).locator('input.pick').check();
  const compare = page.getByTestId('compare-bar').getByRole('button', { name: 'Compare' });
  await compare.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Compare two events' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toBeFocused();
  return { compare, dialog };
}

/** Opens the custom date range on a page of 25 rows; its From field has focus. */
async function openCustomRange(page: Page, orgId: string) {
  await page.goto(eventsUrl(orgId, 'size=25'));
  await expect(rows(page).first()).toBeVisible();
  const custom = page.getByRole('button', { name: 'Custom…' });
  const range = page.getByRole('form', { name: 'Custom date range' });
  await custom.click();
  await expect(page.getByLabel('From (UTC)')).toBeFocused();
  return { custom, range };
}

test.describe('keyboard and screen reader', () => {
  test.beforeEach(async ({ page, state }) => {
    await signIn(page, state.keys.member);
  });

  test('the custom date range gives focus back to Custom… on Escape, Cancel and Apply', async ({
    page,
    state,
  }) => {
    const { custom, range } = await openCustomRange(page, state.orgId);
    await page.keyboard.press('Escape');
    await expect(range).toBeHidden();
    await expect(custom).toBeFocused();

    await custom.press('Enter');
    await range.getByRole('button', { name: 'Cancel' }).press('Enter');
    await expect(range).toBeHidden();
    await expect(custom).toBeFocused();

    await custom.press('Enter');
    await page.getByLabel('From (UTC)').fill('2026-01-01');
    await range.getByRole('button', { name: 'Apply dates' }).press('Enter');
    await expect(page).toHaveURL(/from=2026-01-01/);
    await expect(range).toBeHidden();
    await expect(custom).toBeFocused();
  });

  test('a custom date that cannot be read marks its field invalid, and only that one; the event page heads its sections one level under its title', async ({
    page,
    state,
  }) => {
    await openCustomRange(page, state.orgId);
    const from = page.getByLabel('From (UTC)');
    const to = page.getByLabel('To (UTC)');
    await from.fill('not a date');
    await to.fill('2026-01-31');
    await page.getByRole('button', { name: 'Apply dates' }).click();
    await expect(
      page.getByRole('form', { name: 'Custom date range' }).getByRole('alert'),
    ).toContainText('Enter dates as');
    await expect(from).toHaveAttribute('aria-invalid', 'true');
    await expect(to).not.toHaveAttribute('aria-invalid');
    await from.fill('2026-02-01');
    await page.getByRole('button', { name: 'Apply dates' }).click();
    await expect(
      page.getByRole('form', { name: 'Custom date range' }).getByRole('alert'),
    ).toHaveText('The start must be before the end.');
    await expect(from).toHaveAttribute('aria-invalid', 'true');
    await expect(to).toHaveAttribute('aria-invalid', 'true');

    // h1, then h2 sections (they were h3: a level skipped).
    await page.goto(`/orgs/${state.orgId}/events/${state.events[0]!.id}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expect(page.getByRole('heading', { name: 'Overview', level: 2 })).toBeVisible();
    await expect(page.getByRole('heading', { level: 3 })).toHaveCount(0);
  });

  test('the compare dialog keeps Tab inside it, and Escape still closes it after a round of Tabs', async ({
    page,
    state,
  }) => {
    // Tab went on from its last control to the pager behind the backdrop,
    // where Escape no longer closed it.
    const { compare, dialog } = await openComparison(page, state.orgId);
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press(i === 3 ? 'Shift+Tab' : 'Tab');
      expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    }
    // j moves no selection behind a modal.
    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    const before = await selected.evaluateAll((trs) => trs.map((tr) => tr.dataset.eventId));
    await page.keyboard.press('j');
    expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    expect(await selected.evaluateAll((trs) => trs.map((tr) => tr.dataset.eventId))).toEqual(
      before,
    );
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(compare).toBeFocused();
  });

  test('the volume chart by keyboard: the slider reads the whole range picked, and Enter applies exactly it', async ({
    page,
    state,
  }) => {
    // Its value named the bar under the cursor alone while Shift widened the pick.
    await page.goto(eventsUrl(state.orgId));
    const slider = page.getByRole('slider', { name: /^Date range/ });
    await slider.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
    await page.keyboard.press('Shift+ArrowLeft');
    const live = page.locator('.histogram-head [aria-live]');
    await expect(live).toContainText('Enter to apply');
    const text = (await live.textContent())!.replace(' · Enter to apply', '');
    expect(text).toMatch(/ – .*: [\d,]+ events?$/);
    await expect(slider).toHaveAttribute('aria-valuetext', text);
    const picked = Number(/: ([\d,]+) events?$/.exec(text)![1]!.replace(/,/g, ''));
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/from=/);
    await expect.poll(() => shownTotal(page)).toBe(picked);
  });

  test('j/k move rows only from the table or the panel: from a toolbar button they move nothing', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    await rows(page).nth(1).focus();
    await expect(selected).toHaveAttribute('data-event-id', state.events[1]!.id);
    const custom = page.getByRole('button', { name: 'Custom…' });
    await custom.focus();
    const url = page.url();
    for (const key of ['j', 'j', 'k', 'k', 'k']) {
      await page.keyboard.press(key);
      // A key that moved the selection has re-rendered the rows by the second frame.
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      );
      await expect(selected).toHaveAttribute('data-event-id', state.events[1]!.id);
    }
    await expect(custom).toBeFocused();
    expect(page.url()).toBe(url);
    // From the rows they still move it.
    await rows(page).nth(1).focus();
    await page.keyboard.press('j');
    await expect(selected).toHaveAttribute('data-event-id', state.events[2]!.id);
  });

  test('Tab past the last control of the custom date range or a toolbar popover closes it', async ({
    page,
    state,
  }) => {
    // Left open, the popover covered the table the keyboard went on to.
    const { custom, range } = await openCustomRange(page, state.orgId);
    // Shift+Tab back to Custom… stays within the date range: it stays open.
    await page.keyboard.press('Shift+Tab');
    await expect(custom).toBeFocused();
    await expect(range).toBeVisible();
    await range.getByRole('button', { name: 'Apply dates' }).focus();
    await page.keyboard.press('Tab');
    await expect(range).toBeHidden();
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');

    const columns = page.getByRole('button', { name: 'Columns ▾' });
    await columns.click();
    const dialog = page.getByRole('dialog', { name: 'Table columns' });
    await expect(dialog).toBeVisible();
    const last = dialog.locator('input, button, select').last();
    await last.focus();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Tab');
    await expect(dialog).toBeHidden();
  });

  test('Escape on the compare dialog gives focus back to Compare', async ({ page, state }) => {
    const { compare, dialog } = await openComparison(page, state.orgId);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(compare).toBeFocused();

    await compare.press('Enter');
    await dialog.getByRole('button', { name: 'Close comparison' }).click();
    await expect(dialog).toBeHidden();
    await expect(compare).toBeFocused();
  });

  test('a facet value is read with its count apart, and the facets can be skipped', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    const facets = page.getByRole('complementary', { name: 'Facets' });
    const first = facets.locator('.facet[data-field="eventTypeName"] .facet-value').first();
    await expect(first.locator('.count')).not.toHaveText('');
    const label = await first.locator('.facet-label').textContent();
    const count = await first.locator('.count').textContent();
    await expect(first).toHaveAccessibleName(
      `${label}, ${count} ${count === '1' ? 'event' : 'events'}`,
    );

    // From the query bar, one Tab to the skip link, Enter, and the next Tab is on a row.
    await expect(rows(page).first()).toBeVisible();
    await page.getByRole('combobox', { name: /Filter events/ }).focus();
    const skip = page.getByRole('link', { name: 'Skip to results' });
    let tabs = 0;
    while (!(await skip.evaluate((link) => link === document.activeElement)) && tabs < 5) {
      await page.keyboard.press('Tab');
      tabs += 1;
    }
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    await expect(rows(page).first()).toBeFocused();
  });

  test('from the results reached by Skip to results, ↓ and j go to the rows, as the hint says', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await expect(rows(page).first()).toBeVisible();
    const skip = page.getByRole('link', { name: 'Skip to results' });
    const results = page.locator('#events-results');
    for (const key of ['ArrowDown', 'j']) {
      await skip.focus();
      await page.keyboard.press('Enter');
      await expect(results).toBeFocused();
      await page.keyboard.press(key);
      // The row Tab would reach: the first, or the one already selected.
      await expect(rows(page).first()).toBeFocused();
    }
    // Then the keys move between rows as before.
    await page.keyboard.press('j');
    await expect(rows(page).nth(1)).toBeFocused();
  });

  test('Clear in the query bar gives focus to the filter box', async ({ page, state }) => {
    await page.goto(eventsUrl(state.orgId, 'size=25&q=zzzz-nothing-matches'));
    await expect(page.getByTestId('query-chip')).toHaveCount(1);
    await page.getByRole('button', { name: 'Clear', exact: true }).press('Enter');
    await expect(page.getByTestId('query-chip')).toHaveCount(0);
    // Clear goes away with the chips: focus fell to <body>.
    await expect(page.getByRole('combobox', { name: /Filter events/ })).toBeFocused();
  });

  test('Clear all filters in the empty state gives focus to the results', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'size=25&q=zzzz-nothing-matches'));
    await page.getByRole('button', { name: 'Clear all filters' }).press('Enter');
    await expect(rows(page).first()).toBeVisible();
    // The button went away with the empty state: focus fell to <body>.
    await expect(page.locator('#events-results')).toBeFocused();
    await page.keyboard.press('Tab');
    await expect(rows(page).first()).toBeFocused();
  });
});

test.describe('the event panel as a sheet', () => {
  test.beforeEach(async ({ page, state }) => {
    await signIn(page, state.keys.member);
  });

  test('at 1024 px the panel covering the list keeps Tab inside it, j/k still move it, and Close or Escape gives focus to the row of the event it shows; at 1400 it is not modal', async ({
    page,
    state,
  }) => {
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await rows(page).nth(1).focus();
    await page.keyboard.press('Enter');
    const panel = page.getByTestId('event-panel');
    await expect(panel).toBeVisible();
    await expect(panel).toHaveAttribute('aria-modal', 'true');
    const inPanel = () => panel.evaluate((el) => el.contains(document.activeElement));
    const onRow = () =>
      page.evaluate(() => document.activeElement?.closest('table.events') != null);
    // From the panel's last control Tab went on to the rows hidden under it.
    await panel.evaluate((el) => {
      const controls = [...el.querySelectorAll<HTMLElement>('a[href], button:not([disabled])')];
      controls
        .filter((control) => control.getClientRects().length > 0)
        .at(-1)!
        .focus();
    });
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press(i === 2 ? 'Shift+Tab' : 'Tab');
      expect(await inPanel()).toBe(true);
      expect(await onRow()).toBe(false);
    }
    // j moves the panel to the next event (the sheet keeps the page's keys).
    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    await panel.focus();
    await page.keyboard.press('j');
    await expect(selected).toHaveAttribute('data-event-id', state.events[2]!.id);
    await panel.getByRole('button', { name: 'Close event details' }).press('Enter');
    await expect(panel).toBeHidden();
    await expect(rows(page).nth(2)).toBeFocused();

    await page.keyboard.press('Enter');
    await expect(panel).toBeVisible();
    await page.keyboard.press('Tab');
    expect(await inPanel()).toBe(true);
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(rows(page).nth(2)).toBeFocused();

    // From 1400 px the panel stands beside the list, which stays usable.
    await page.setViewportSize({ width: 1400, height: 800 });
    await page.keyboard.press('Enter');
    await expect(panel).toBeVisible();
    await expect(panel).toHaveAttribute('aria-modal', 'false');
    await rows(page).nth(4).locator('td.col-time').click();
    await expect(rows(page).nth(4)).toBeFocused();
    await expect(selected).toHaveAttribute('data-event-id', state.events[4]!.id);
  });

  test('on a phone, an event opened by Forward with the facet sheet open closes the sheet and has focus, with no error', async ({
    page,
    state,
  }) => {
    // The two modals each pulled focus back from the other, without end.
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await rows(page).nth(1).locator('td.col-time').click();
    const panel = page.getByTestId('event-panel');
    await expect(panel).toBeVisible();
    await page.goBack();
    await expect(panel).toBeHidden();
    await page.getByRole('button', { name: 'Facets' }).click();
    const facetSheet = page.locator('.investigate[data-sheet]');
    await expect(facetSheet).toHaveCount(1);
    await page.goForward();
    await expect(panel).toBeVisible();
    await expect(facetSheet).toHaveCount(0);
    await page.keyboard.press('Tab');
    expect(await panel.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    expect(errors).toEqual([]);
  });
});
