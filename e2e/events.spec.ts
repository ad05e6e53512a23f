import type { Page } from '@playwright/test';
import {
  eventsUrl,
  expect,
  frequentTypes,
  inclusiveTo,
  matching,
  rowIds,
  rowTimes,
  rowTypes,
  rows,
  shownTotal,
  signIn,
  test,
  utcInputValue,
} from './support/fixtures';
import type { E2eState } from './support/state';

const NUMBER = new Intl.NumberFormat('en-US');

async function pickTypes(page: Page, types: readonly string[]) {
  await page.getByRole('button', { name: /^Event types:/ }).click();
  const picker = page.getByRole('dialog', { name: 'Filter by event type' });
  await expect(picker).toBeVisible();
  for (const type of types) {
    // Search inside the picker, then tick the type.
    await picker.getByLabel('Search event types').fill(type);
    await picker.getByRole('checkbox', { name: new RegExp(`\\b${type}\\b`) }).check();
  }
  await picker.getByRole('button', { name: 'Apply' }).click();
  await expect(picker).toBeHidden();
}

async function setCustomRange(page: Page, from: number, to: number) {
  await page.getByRole('button', { name: 'Custom…' }).click();
  await page.getByLabel('From (UTC)').fill(utcInputValue(from));
  await page.getByLabel('To (UTC)').fill(utcInputValue(to));
  await page.getByRole('button', { name: 'Apply dates' }).click();
}

/**
 * The list under the most frequent type, on its page 2 (no live count
 * re-renders that page by chance); the filtered events, newest first.
 */
async function filteredPageTwo(page: Page, state: E2eState) {
  const types = frequentTypes(state.events, 1);
  const filtered = matching(state.events, { types });
  await page.goto(eventsUrl(state.orgId));
  await pickTypes(page, types);
  await expect.poll(() => shownTotal(page)).toBe(filtered.length);
  await page
    .getByRole('navigation', { name: 'Pagination' })
    .getByRole('button', { name: 'Next page' })
    .click();
  await expect.poll(() => rowIds(page)).toEqual(filtered.slice(50, 100).map((e) => e.id));
  return filtered;
}

/** A window over the middle of the seeded data, in whole seconds. */
function middleWindow(state: E2eState) {
  const max = Math.floor(state.events[150]!.created / 1000) * 1000;
  const min = Math.floor(state.events[900]!.created / 1000) * 1000;
  return { min, max };
}

test.describe('the events table', () => {
  test.beforeEach(async ({ page, state }) => {
    await signIn(page, state.keys.member);
  });

  test('renders the first page on the server, newest first', async ({ page, state }) => {
    // JavaScript off: whatever shows came from the server render.
    const context = await page
      .context()
      .browser()!
      .newContext({
        javaScriptEnabled: false,
        storageState: await page.context().storageState(),
        baseURL: state.baseUrl,
      });
    const noJs = await context.newPage();
    await noJs.goto(eventsUrl(state.orgId));
    await expect(rows(noJs)).toHaveCount(50);
    expect(await rowIds(noJs)).toEqual(state.events.slice(0, 50).map((e) => e.id));
    await expect(noJs.getByTestId('results-count')).toHaveText(NUMBER.format(state.events.length));
    await context.close();
  });

  test('filters by two event types and a date range: only matching rows, matching totals', async ({
    page,
    state,
  }) => {
    const types = frequentTypes(state.events, 2);
    const { min, max } = middleWindow(state);
    await page.goto(eventsUrl(state.orgId));
    await pickTypes(page, types);
    await expect(page).toHaveURL(new RegExp(`types=${[...types].sort().join(',')}`));
    await expect.poll(() => shownTotal(page)).toBe(matching(state.events, { types }).length);

    await setCustomRange(page, min, max);
    // "To" includes the whole second (or minute) it names.
    const expected = matching(state.events, { types, min, max: inclusiveTo(max) });
    expect(expected.length).toBeGreaterThan(50); // more than one page, so paging is exercised
    await expect.poll(() => shownTotal(page)).toBe(expected.length);
    await expect(page).toHaveURL(/from=.*Z&to=.*Z/);

    const checkPage = async (ids: string[]) => {
      await expect.poll(() => rowIds(page)).toEqual(ids);
      for (const type of await rowTypes(page)) expect(types).toContain(type);
      for (const time of await rowTimes(page)) {
        expect(time).toBeGreaterThanOrEqual(min);
        expect(time).toBeLessThanOrEqual(inclusiveTo(max));
      }
    };
    await checkPage(expected.slice(0, 50).map((e) => e.id));
    await page.getByRole('button', { name: 'Last page' }).click();
    const lastStart = Math.floor((expected.length - 1) / 50) * 50;
    await checkPage(expected.slice(lastStart).map((e) => e.id));

    // Chips name the active filters and remove them one by one.
    await page
      .getByRole('button', { name: new RegExp(`Remove event type`) })
      .first()
      .click();
    await expect
      .poll(() => shownTotal(page))
      .toBe(
        matching(state.events, { types: [[...types].sort()[1]!], min, max: inclusiveTo(max) })
          .length,
      );
  });

  test('pages through with page size 25: first, next, jump, last, and the totals agree', async ({
    page,
    state,
  }) => {
    const total = state.events.length;
    const pages = Math.ceil(total / 25);
    await page.goto(eventsUrl(state.orgId));
    await page.getByLabel('Rows per page').selectOption('25');
    await expect(page).toHaveURL(/size=25/);
    await expect(rows(page)).toHaveCount(25);
    const pagination = page.getByRole('navigation', { name: 'Pagination' });
    await expect(pagination).toContainText(
      `Showing 1–25 of ${NUMBER.format(total)} events · page 1 of ${NUMBER.format(pages)}`,
    );
    await expect(page.getByTestId('results-count')).toHaveText(NUMBER.format(total));

    await pagination.getByRole('button', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/page=2/);
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(25, 50).map((e) => e.id));
    await expect(pagination).toContainText(`Showing 26–50 of ${NUMBER.format(total)}`);

    await pagination.getByLabel('Go to page').fill('10');
    await pagination.getByRole('button', { name: 'Go' }).click();
    await expect(page).toHaveURL(/page=10/);
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(225, 250).map((e) => e.id));

    await pagination.getByRole('button', { name: 'Last page' }).click();
    const lastStart = (pages - 1) * 25;
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(lastStart).map((e) => e.id));
    await expect(pagination).toContainText(
      `Showing ${NUMBER.format(lastStart + 1)}–${NUMBER.format(total)} of ${NUMBER.format(total)} events · page ${pages} of ${pages}`,
    );
    await expect(pagination.getByRole('button', { name: 'Next page' })).toBeDisabled();

    await pagination.getByRole('button', { name: 'First page' }).click();
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(0, 25).map((e) => e.id));
    // Every page's rows added up are exactly the seeded events, in order, once each.
    expect(new Set(state.events.map((e) => e.id)).size).toBe(total);
  });

  test('a new page size keeps the first row shown in view: page 5 at 25 rows (rows 101-125) is page 2 at 100, and page 1 of 100 again at 25', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'size=25&page=5'));
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(100, 125).map((e) => e.id));
    await page.getByLabel('Rows per page').selectOption('100');
    await expect(page).toHaveURL(eventsUrl(state.orgId, 'page=2&size=100'));
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(100, 200).map((e) => e.id));
    // Back to 25 from page 2 (rows 101-200): its first row, 101, is on page 5 again.
    await page.getByLabel('Rows per page').selectOption('25');
    await expect(page).toHaveURL(eventsUrl(state.orgId, 'page=5&size=25'));
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(100, 125).map((e) => e.id));
    // From page 1 a new size stays on page 1.
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await page.getByLabel('Rows per page').selectOption('200');
    await expect(page).toHaveURL(eventsUrl(state.orgId, 'size=200'));
  });

  test('a new page size from a page past the last lands on the last page at that size, showing its rows', async ({
    page,
    state,
  }) => {
    const total = state.events.length;
    // Page 40 at 100 rows is past the end (an old link, or a set that shrank since).
    await page.goto(eventsUrl(state.orgId, 'size=100&page=40'));
    await expect(page.getByTestId('empty-state')).toContainText('This page is past the end');
    await page.getByLabel('Rows per page').selectOption('500');
    const last = Math.ceil(total / 500);
    await expect(page).toHaveURL(eventsUrl(state.orgId, `page=${last}&size=500`));
    await expect(page.getByTestId('page-summary')).toHaveText(
      `Showing ${NUMBER.format((last - 1) * 500 + 1)}–${NUMBER.format(total)} of ${NUMBER.format(total)} events · page ${last} of ${last}`,
    );
    await expect(page.getByTestId('empty-state')).toHaveCount(0);
    await expect(rows(page).first()).toHaveAttribute(
      'data-event-id',
      state.events[(last - 1) * 500]!.id,
    );
  });

  test('a new page size keeps the open event open, on the page that holds it, its row selected', async ({
    page,
    state,
  }) => {
    const panel = page.getByRole('dialog');
    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    // Row 110 open on page 5 at 25 (rows 101-125): at 100 it is on page 2, with the first row.
    const event = state.events[109]!;
    await page.goto(eventsUrl(state.orgId, `size=25&page=5&event=${event.id}`));
    await expect(panel.getByText(event.id, { exact: true })).toBeVisible();
    await page.getByLabel('Rows per page').selectOption('100');
    await expect(page).toHaveURL(eventsUrl(state.orgId, `page=2&size=100&event=${event.id}`));
    await expect(panel.getByText(event.id, { exact: true })).toBeVisible();
    await expect(selected).toHaveAttribute('data-event-id', event.id);
    // Row 190 open on page 2 at 100 (rows 101-200): at 25 the first row's page (5, rows
    // 101-125) does not hold it; page 8 (rows 176-200) does.
    const further = state.events[189]!;
    await page.goto(eventsUrl(state.orgId, `page=2&size=100&event=${further.id}`));
    await expect(selected).toHaveAttribute('data-event-id', further.id);
    await page.getByLabel('Rows per page').selectOption('25');
    await expect(page).toHaveURL(eventsUrl(state.orgId, `page=8&size=25&event=${further.id}`));
    await expect(panel.getByText(further.id, { exact: true })).toBeVisible();
    await expect(selected).toHaveAttribute('data-event-id', further.id);
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(175, 200).map((e) => e.id));
  });

  test('a page size chosen while the last one loads goes to the page holding the open event, counted from the rows on screen', async ({
    page,
    state,
  }) => {
    const panel = page.getByRole('dialog');
    // Row 190 open on page 8 at 25 (rows 176-200).
    const event = state.events[189]!;
    await page.goto(eventsUrl(state.orgId, `size=25&page=8&event=${event.id}`));
    await expect(panel.getByText(event.id, { exact: true })).toBeVisible();
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(175, 200).map((e) => e.id));

    // Hold the 100-row page's answer: page 8 at 25 stays on screen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname.endsWith('/events') && url.searchParams.get('itemsPerPage') === '100',
      async (route) => {
        await held;
        await route.continue();
      },
    );
    await page.getByLabel('Rows per page').selectOption('100');
    await expect(page).toHaveURL(eventsUrl(state.orgId, `page=2&size=100&event=${event.id}`));
    expect(await rowIds(page)).toEqual(state.events.slice(175, 200).map((e) => e.id));

    // At 50 (the default size, not in the URL) row 190 is on page 4 (rows 151-200); the
    // first row of the page loading (row 101) is on page 3.
    await page.getByLabel('Rows per page').selectOption('50');
    await expect(page).toHaveURL(eventsUrl(state.orgId, `page=4&event=${event.id}`));
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(150, 200).map((e) => e.id));
    await expect(page.locator('table.events tbody tr[aria-selected="true"]')).toHaveAttribute(
      'data-event-id',
      event.id,
    );
    release();
  });

  test('with the event panel open, the table and its pagination sit beside it: row 90 of 100 and Next page take a click', async ({
    page,
    state,
  }) => {
    // The default viewport (1440 px), where the panel (600 px wide then) had the
    // table's right part, its scrollbar and the Next page button under it.
    const panel = page.getByRole('dialog');
    const first = state.events[0]!;
    await page.goto(eventsUrl(state.orgId, `size=100&event=${first.id}`));
    await expect(panel.getByText(first.id, { exact: true })).toBeVisible();
    const panelLeft = (await panel.boundingBox())!.x;
    const wrap = (await page.locator('.table-wrap').boundingBox())!;
    expect(wrap.x + wrap.width).toBeLessThanOrEqual(panelLeft);

    // An ordinary click (Playwright checks nothing covers its point) on a deep row.
    const deep = state.events[89]!;
    await rows(page).nth(89).click();
    await expect(page).toHaveURL(eventsUrl(state.orgId, `size=100&event=${deep.id}`));
    await expect(panel.getByText(deep.id, { exact: true })).toBeVisible();
    await expect(rows(page).nth(89)).toHaveAttribute('aria-selected', 'true');

    await page
      .getByRole('navigation', { name: 'Pagination' })
      .getByRole('button', { name: 'Next page' })
      .click();
    await expect(page).toHaveURL(/[?&]page=2(&|$)/);
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(100, 200).map((e) => e.id));
  });

  test('from page 2, a facet click: the pagination line describes the rows shown until the new ones arrive', async ({
    page,
    state,
  }) => {
    const total = state.events.length;
    await page.goto(eventsUrl(state.orgId, 'size=25&page=2'));
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(25, 50).map((e) => e.id));
    const summary = page.getByTestId('page-summary');
    await expect(summary).toContainText(`Showing 26–50 of ${NUMBER.format(total)} events · page 2`);

    // Hold the filtered list's answer: the page-2 rows stay on screen, dimmed.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname.endsWith('/events') && url.searchParams.has('eventType'),
      async (route) => {
        await held;
        await route.continue();
      },
    );
    const [type] = frequentTypes(state.events, 1);
    await page
      .locator('.facet[data-field="eventTypeName"] .facet-value')
      .and(page.locator(`[title$="(${type})"]`))
      .click();
    await expect(page).toHaveURL(/types=/);
    await page.waitForTimeout(300);
    expect(await rowIds(page)).toEqual(state.events.slice(25, 50).map((e) => e.id));
    await expect(summary).toContainText(`Showing 26–50 of ${NUMBER.format(total)} events · page 2`);
    await page.screenshot({ path: 'test-results/e2e/pagination-while-loading.png' });

    release();
    const expected = matching(state.events, { types: [type!] });
    await expect.poll(() => rowIds(page)).toEqual(expected.slice(0, 25).map((e) => e.id));
    await expect(summary).toContainText(
      `Showing 1–${Math.min(25, expected.length)} of ${NUMBER.format(expected.length)} events · page 1`,
    );
    await expect(page.getByTestId('results-count').locator('..')).toContainText(
      `${NUMBER.format(expected.length)} events with event type`,
    );
  });

  test('the results line and empty state read naturally for a preset range', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'range=24h'));
    await expect(page.getByTestId('empty-state')).toContainText('No events in the last 24 hours.');
    await page.screenshot({ path: 'test-results/e2e/empty-last-24-hours.png' });
  });

  test('a 500-row page renders the rows in view, scrolls and moves by keyboard to its end', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'size=500'));
    await expect(page.locator('table.events tbody')).toHaveAttribute('data-rows', '500');
    await expect(page.locator('table.events')).toHaveAttribute(
      'aria-rowcount',
      String(state.events.length + 1),
    );
    expect(await rows(page).count()).toBeLessThan(100);

    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    await rows(page).first().focus();
    await page.keyboard.press('End');
    await expect(selected).toHaveAttribute('data-event-id', state.events[499]!.id);
    await expect(selected).toHaveAttribute('aria-rowindex', '501');
    await expect(selected).toBeFocused();
    await expect(selected).toBeInViewport();
    await page.keyboard.press('k');
    await expect(selected).toHaveAttribute('data-event-id', state.events[498]!.id);
    await page.keyboard.press('Home');
    await expect(selected).toHaveAttribute('data-event-id', state.events[0]!.id);

    // Scrolling to the middle renders the middle rows.
    await page.locator('.table-wrap').evaluate((wrap) => {
      const row = wrap.querySelector<HTMLElement>('tbody tr[data-index]')!;
      wrap.scrollTop = 250 * row.offsetHeight;
    });
    await expect(page.locator(`tr[data-event-id="${state.events[252]!.id}"]`)).toBeInViewport();
    await page.locator(`tr[data-event-id="${state.events[252]!.id}"]`).click();
    await expect(
      page.getByRole('dialog').getByText(state.events[252]!.id, { exact: true }),
    ).toBeVisible();
  });

  test('opens an event in the side panel and shows its raw JSON', async ({ page, state }) => {
    const index = state.events.slice(0, 50).findIndex((e) => e.rawKeys && e.rawKeys.length > 0);
    expect(index).toBeGreaterThanOrEqual(0);
    const event = state.events[index]!;
    await page.goto(eventsUrl(state.orgId));
    await rows(page).nth(index).click();
    await expect(page).toHaveURL(new RegExp(`event=${event.id}`));
    const panel = page.getByRole('dialog');
    await expect(panel).toBeVisible();
    await expect(panel.getByText(event.eventTypeName, { exact: true })).toBeVisible();
    await expect(panel.getByText(event.id, { exact: true })).toBeVisible();

    const rawResponse = page.waitForResponse((r) =>
      r.url().includes(`/events/${event.id}?includeRaw=true`),
    );
    await panel.getByRole('tab', { name: 'Raw' }).click();
    expect((await rawResponse).status()).toBe(200);
    const tree = panel.getByRole('group', { name: 'Raw document' });
    await expect(tree).toBeVisible();
    for (const key of event.rawKeys!) await expect(tree).toContainText(`"${key}":`);

    // Collapsible: collapse all hides the keys, expand all shows them again.
    await panel.getByRole('button', { name: 'Collapse all' }).click();
    await expect(tree.getByText(`"${event.rawKeys![0]}":`)).toBeVisible();
    await panel.getByRole('button', { name: 'Expand all' }).click();
    await expect(tree).toContainText(`"${event.rawKeys![0]}":`);

    await panel.getByRole('button', { name: 'Close event details' }).click();
    await expect(panel).toBeHidden();
    await expect(page).not.toHaveURL(/event=/);
  });

  test("the event page's link back returns to the list as it was, filters and page kept", async ({
    page,
    state,
  }) => {
    const type = state.events[0]!.eventTypeName;
    const event = state.events.find((e) => e.eventTypeName === type)!;
    const listQuery = `types=${type}&event=${event.id}`;
    await page.goto(eventsUrl(state.orgId, listQuery));
    await page.getByRole('dialog').getByRole('link', { name: 'Open full page' }).click();
    await expect(page).toHaveURL(new RegExp(`/events/${event.id}$`));
    const listRequests: string[] = [];
    page.on('request', (request) => {
      if (/^\/api\/.*\/events(\/facets|\/histogram)?$/.test(new URL(request.url()).pathname))
        listRequests.push(request.url());
    });
    // Before, "← All events" went to the whole, unfiltered list.
    await page.getByRole('link', { name: '← Back to the list' }).click();
    await expect(page).toHaveURL(new RegExp(`types=${type}`));
    await expect(page.getByRole('dialog').getByText(event.id, { exact: true })).toBeVisible();
    // Every request on the way back is for the filtered view: before, the unfiltered
    // page, facets and histogram were asked for (and dropped) first.
    expect(listRequests.filter((url) => !url.includes(`eventType=${type}`))).toEqual([]);
    // A permalink opened in a tab that never showed the list links to the whole list.
    const fresh = await page.context().newPage();
    await fresh.goto(page.url().replace(/\/events\?.*$/, `/events/${event.id}`));
    await expect(fresh.getByRole('link', { name: '← All events' })).toBeVisible();
    await fresh.close();
  });

  test("the event's page is titled by its type and time, and opening it puts focus on its heading", async ({
    page,
    state,
  }) => {
    const event = state.events[3]!;
    await page.goto(eventsUrl(state.orgId, `event=${event.id}`));
    await page.getByRole('dialog').getByRole('link', { name: 'Open full page' }).click();
    await expect(page).toHaveURL(new RegExp(`/events/${event.id}$`));
    const heading = page.getByRole('heading', { level: 1 });
    const time = `${new Date(event.created).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    // Before, every event's page was "Event · Org Events", and focus stayed on <body>.
    await expect(page).toHaveTitle(`${await heading.textContent()} · ${time} · Org Events`);
    await expect(heading).toBeFocused();
    // A permalink loaded anew has the same title; an unknown id is named by its id.
    await page.reload();
    await expect(page).toHaveTitle(`${await heading.textContent()} · ${time} · Org Events`);
    const unknownId = 'ffffffffffffffffffffffff';
    await page.goto(`/orgs/${state.orgId}/events/${unknownId}`);
    await expect(page.getByText('Event not found')).toBeVisible();
    await expect(page).toHaveTitle(`Event ${unknownId} · Org Events`);
  });

  test("the organization's link in the header shows its whole list again", async ({
    page,
    state,
  }) => {
    const filtered = await filteredPageTwo(page, state);
    // Before, the URL lost its filters but the table, chips and total stayed filtered.
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').first().click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events$`));
    await expect.poll(() => shownTotal(page)).toBe(state.events.length);
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(0, 50).map((e) => e.id));
    await page.goBack();
    await expect.poll(() => rowIds(page)).toEqual(filtered.slice(50, 100).map((e) => e.id));
  });

  test('the event page opens on the tab being read, and its URL follows the tab', async ({
    page,
    state,
  }) => {
    const event = state.events.slice(0, 50).find((e) => e.rawKeys && e.rawKeys.length > 0)!;
    await page.goto(eventsUrl(state.orgId, `event=${event.id}`));
    const panel = page.getByRole('dialog');
    await panel.getByRole('tab', { name: 'Raw' }).click();
    await panel.getByRole('link', { name: 'Open full page' }).click();
    await expect(page).toHaveURL(new RegExp(`/events/${event.id}\\?tab=raw$`));
    const rawTab = page.getByRole('tab', { name: 'Raw' });
    await expect(rawTab).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('group', { name: 'Raw document' })).toContainText(
      `"${event.rawKeys![0]}":`,
    );

    // Switching tabs rewrites the URL in place: a reload (or the permalink) reopens it.
    await page.getByRole('tab', { name: 'Details' }).click();
    await expect(page).toHaveURL(new RegExp(`/events/${event.id}$`));
    await rawTab.click();
    await expect(page).toHaveURL(new RegExp(`/events/${event.id}\\?tab=raw$`));
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Raw' })).toHaveAttribute('aria-selected', 'true');
    // The tab switches replaced the entry: back leaves the event's page.
    await page.goBack();
    await expect(page).toHaveURL(new RegExp(`event=${event.id}`));
  });

  test('the permalink and a reload restore the same view', async ({ page, state, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const types = frequentTypes(state.events, 2);
    const expected = matching(state.events, { types });
    await page.goto(eventsUrl(state.orgId));
    await pickTypes(page, types);
    // Each change acts on the list the one before it produced: until the
    // filtered rows arrive the pagination still counts every event (its
    // "Page 24" also matched a loose 'Page 2').
    await expect.poll(() => shownTotal(page)).toBe(expected.length);
    await page.getByLabel('Rows per page').selectOption('25');
    await expect(rows(page)).toHaveCount(25);
    await page
      .getByRole('navigation', { name: 'Pagination' })
      .getByRole('button', { name: 'Page 2', exact: true })
      .click();
    await expect.poll(() => rowIds(page)).toEqual(expected.slice(25, 50).map((e) => e.id));
    const target = expected[27]!;
    await rows(page).nth(2).click();
    const panel = page.getByRole('dialog');
    await expect(panel.getByText(target.id, { exact: true })).toBeVisible();
    await panel.getByRole('button', { name: 'Copy permalink' }).click();
    await expect(panel.getByText('Copied')).toBeVisible();
    const permalink = await page.evaluate(() => navigator.clipboard.readText());
    expect(permalink).toBe(page.url());
    expect(permalink).toContain(`event=${target.id}`);

    const check = async (p: Page) => {
      await expect(p.getByRole('dialog').getByText(target.id, { exact: true })).toBeVisible();
      await expect.poll(() => rowIds(p)).toEqual(expected.slice(25, 50).map((e) => e.id));
      await expect(p.getByRole('button', { name: 'Page 2', exact: true })).toHaveAttribute(
        'aria-current',
        'page',
      );
      await expect(p.getByTestId('results-count')).toHaveText(NUMBER.format(expected.length));
      await expect(p.locator('tr[aria-selected="true"]')).toHaveAttribute(
        'data-event-id',
        target.id,
      );
    };
    await page.reload();
    await check(page);
    const other = await context.newPage();
    await other.goto(permalink);
    await check(other);

    // The event's own page shows the same event.
    await other.getByRole('link', { name: 'Open full page' }).click();
    await expect(other).toHaveURL(new RegExp(`/events/${target.id}$`));
    await expect(other.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(other.getByText(target.id, { exact: true })).toBeVisible();
  });

  test('back and forward walk through filters, pages and the open event', async ({
    page,
    state,
  }) => {
    const filtered = await filteredPageTwo(page, state);
    await rows(page).first().click();
    await expect(page.getByRole('dialog')).toBeVisible();

    await page.goBack();
    await expect(page.getByRole('dialog')).toBeHidden();
    await expect(page).toHaveURL(/page=2/);
    await page.goBack();
    await expect(page).not.toHaveURL(/page=/);
    await expect.poll(() => rowIds(page)).toEqual(filtered.slice(0, 50).map((e) => e.id));
    await page.goBack();
    await expect(page).not.toHaveURL(/types=/);
    await expect.poll(() => shownTotal(page)).toBe(state.events.length);
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(0, 50).map((e) => e.id));

    await page.goForward();
    await expect.poll(() => shownTotal(page)).toBe(filtered.length);
    await page.goForward();
    await expect.poll(() => rowIds(page)).toEqual(filtered.slice(50, 100).map((e) => e.id));
    await page.goForward();
    await expect(
      page.getByRole('dialog').getByText(filtered[50]!.id, { exact: true }),
    ).toBeVisible();

    // Out to the event's own page and back again: the same view returns.
    const viewUrl = page.url();
    await page.getByRole('link', { name: 'Open full page' }).click();
    await expect(page).toHaveURL(new RegExp(`/events/${filtered[50]!.id}$`));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/.+/);
    await page.goBack();
    await expect(page).toHaveURL(viewUrl);
    await expect(
      page.getByRole('dialog').getByText(filtered[50]!.id, { exact: true }),
    ).toBeVisible();
    await expect.poll(() => rowIds(page)).toEqual(filtered.slice(50, 100).map((e) => e.id));
    await page.goBack();
    await expect(page.getByRole('dialog')).toBeHidden();
    await expect.poll(() => rowIds(page)).toEqual(filtered.slice(50, 100).map((e) => e.id));
  });

  test("the browser's Back from the event's page shows its row again, and Back closing the panel focuses it", async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId));
    const row = rows(page).nth(30);
    const eventId = state.events[30]!.id;
    await row.click();
    const panel = page.getByRole('dialog');
    await panel.getByRole('link', { name: 'Open full page' }).click();
    await expect(page).toHaveURL(new RegExp(`/events/${eventId}$`));

    await page.goBack();
    await expect(panel.getByText(eventId, { exact: true })).toBeVisible();
    await expect(panel).toBeFocused();
    // Before, the table came back scrolled to its top, the open event's row out of view.
    await expect(row).toHaveAttribute('data-event-id', eventId);
    await expect(row).toBeInViewport();
    // Before, Back closing the panel left focus on <body>, as Esc does not.
    await page.goBack();
    await expect(panel).toBeHidden();
    await expect(row).toBeFocused();
  });

  test('keyboard: arrows and j/k move, Enter opens, Esc closes and returns focus', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId));
    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    await rows(page).first().focus();
    await expect(selected).toHaveAttribute('data-event-id', state.events[0]!.id);
    await page.keyboard.press('ArrowDown');
    await expect(selected).toHaveAttribute('data-event-id', state.events[1]!.id);
    await page.keyboard.press('j');
    await expect(selected).toHaveAttribute('data-event-id', state.events[2]!.id);
    await page.keyboard.press('k');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('j');
    await expect(selected).toHaveAttribute('data-event-id', state.events[1]!.id);
    await expect(rows(page).nth(1)).toBeFocused();

    await page.keyboard.press('Enter');
    const panel = page.getByRole('dialog');
    await expect(panel).toBeVisible();
    await expect(panel).toBeFocused();
    await expect(page).toHaveURL(new RegExp(`event=${state.events[1]!.id}`));
    // With the panel open, j/k move the selection and the panel follows.
    await page.keyboard.press('j');
    await expect(page).toHaveURL(new RegExp(`event=${state.events[2]!.id}`));
    await expect(panel.getByText(state.events[2]!.id, { exact: true })).toBeVisible();

    await page.keyboard.press('Escape');
    await expect(panel).toBeHidden();
    await expect(rows(page).nth(2)).toBeFocused();
    await expect(page).not.toHaveURL(/event=/);
  });

  test('j/k past the last or first row go on to the next or previous page, the panel too', async ({
    page,
    state,
  }) => {
    const events = state.events;
    await page.goto(eventsUrl(state.orgId, 'size=10'));
    const selected = page.locator('table.events tbody tr[aria-selected="true"]');
    await rows(page).nth(9).focus();
    await expect(selected).toHaveAttribute('data-event-id', events[9]!.id);
    await page.keyboard.press('j');
    await expect(page).toHaveURL(/page=2/);
    await expect.poll(() => rowIds(page)).toEqual(events.slice(10, 20).map((e) => e.id));
    await expect(selected).toHaveAttribute('data-event-id', events[10]!.id);
    await expect(rows(page).first()).toBeFocused();
    await page.keyboard.press('k');
    await expect.poll(() => rowIds(page)).toEqual(events.slice(0, 10).map((e) => e.id));
    await expect(selected).toHaveAttribute('data-event-id', events[9]!.id);
    await expect(rows(page).nth(9)).toBeFocused();

    // With the panel open, it follows onto the next page, and its Next button does too.
    await page.keyboard.press('Enter');
    const panel = page.getByRole('dialog');
    await expect(panel.getByText(events[9]!.id, { exact: true })).toBeVisible();
    await page.keyboard.press('j');
    await expect(page).toHaveURL(
      new RegExp(`page=2.*event=${events[10]!.id}|event=${events[10]!.id}.*page=2`),
    );
    await expect(panel.getByText(events[10]!.id, { exact: true })).toBeVisible();
    await expect.poll(() => rowIds(page)).toEqual(events.slice(10, 20).map((e) => e.id));
    await page.keyboard.press('k');
    await expect(panel.getByText(events[9]!.id, { exact: true })).toBeVisible();
    await expect.poll(() => rowIds(page)).toEqual(events.slice(0, 10).map((e) => e.id));
    await panel.getByRole('button', { name: 'Next event' }).click();
    await expect(panel.getByText(events[10]!.id, { exact: true })).toBeVisible();
    // The very first event has nothing before it: k stays.
    await page.goto(eventsUrl(state.orgId, 'size=10'));
    await rows(page).first().focus();
    await page.keyboard.press('k');
    await expect(selected).toHaveAttribute('data-event-id', events[0]!.id);
    await expect(page).not.toHaveURL(/page=/);
  });

  test('j/k across pages add no history entries: Back undoes opening the panel, then leaves the list', async ({
    page,
    state,
  }) => {
    const events = state.events;
    await page.goto('/orgs');
    await page.goto(eventsUrl(state.orgId, 'size=10'));
    await rows(page).nth(9).focus();
    await page.keyboard.press('j');
    await expect.poll(() => rowIds(page)).toEqual(events.slice(10, 20).map((e) => e.id));
    // Opening an event is one entry; the panel following k back onto page 1 is none.
    await page.keyboard.press('Enter');
    const panel = page.getByRole('dialog');
    await expect(panel.getByText(events[10]!.id, { exact: true })).toBeVisible();
    await page.keyboard.press('k');
    await expect.poll(() => rowIds(page)).toEqual(events.slice(0, 10).map((e) => e.id));
    await expect(panel.getByText(events[9]!.id, { exact: true })).toBeVisible();

    // Before, each page j/k crossed was an entry: Back reopened event 10 on page 2.
    await page.goBack();
    await expect(panel).toBeHidden();
    await expect(page).toHaveURL(eventsUrl(state.orgId, 'page=2&size=10'));
    await page.goBack();
    await expect(page).toHaveURL(/\/orgs$/);
  });

  test('times follow one explicit zone choice: table, inputs and URL', async ({
    browser,
    state,
  }) => {
    const context = await browser.newContext({
      timezoneId: 'Asia/Kolkata',
      baseURL: state.baseUrl,
    });
    const page = await context.newPage();
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId));
    const first = state.events[0]!;
    const firstTime = rows(page).first().locator('td.col-time time');
    await expect(page.getByRole('columnheader', { name: 'Time (UTC)' })).toBeVisible();
    await expect(firstTime).toHaveText(
      new Date(first.created).toISOString().slice(0, 19).replace('T', ' '),
    );

    // Chromium may name the zone by its older alias (Asia/Calcutta).
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await page.getByRole('button', { name: /^Local/ }).click();
    await expect(page).toHaveURL(/tz=local/);
    await expect(page.getByRole('columnheader', { name: `Time (${zone})` })).toBeVisible();
    const shifted = new Date(first.created + 5.5 * 3_600_000)
      .toISOString()
      .slice(0, 19)
      .replace('T', ' ');
    await expect(firstTime).toHaveText(shifted);

    // Relative time on hover.
    await firstTime.hover();
    await expect(firstTime).toHaveAttribute('title', /ago/);

    // Custom bounds are typed and shown in the same zone, and written to the URL with its offset.
    await page.getByRole('button', { name: 'Custom…' }).click();
    await page.getByLabel(`From (${zone})`).fill('2026-01-20T05:30');
    await page.getByRole('button', { name: 'Apply dates' }).click();
    await expect(page).toHaveURL(/from=2026-01-20T05:30(%2B|\+)05:30/);
    const times = await rowTimes(page);
    for (const time of times) expect(time).toBeGreaterThanOrEqual(Date.UTC(2026, 0, 20, 0, 0));
    await page.reload();
    // Inputs show the table's own format, in the chosen zone.
    await page.getByRole('button', { name: 'Custom…' }).click();
    await expect(page.getByLabel(`From (${zone})`)).toHaveValue('2026-01-20 05:30:00');
    await context.close();
  });

  test('an empty result names the filters and offers to widen them', async ({ page, state }) => {
    const oldest = state.events[state.events.length - 1]!.created;
    const before = utcInputValue(oldest - 86_400_000);
    await page.goto(eventsUrl(state.orgId, `to=${before}Z`));
    const empty = page.getByTestId('empty-state');
    await expect(empty).toContainText('No events match these filters');
    await expect(empty).toContainText('until');
    await empty.getByRole('button', { name: 'Clear all filters' }).click();
    await expect.poll(() => shownTotal(page)).toBe(state.events.length);
  });

  test('a volume chart that failed to load says so and offers no zoom over bars it lacks', async ({
    page,
    state,
  }) => {
    await page.route('**/api/public/v1.0/orgs/*/events/histogram?*', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: '{"detail":"Service unavailable for the test.","error":503,"errorCode":"UNAVAILABLE","parameters":[],"reason":"Service Unavailable"}',
      }),
    );
    await page.goto(eventsUrl(state.orgId));
    await expect(rows(page).first()).toBeVisible();
    const chart = page.getByRole('region', { name: 'Events over time' });
    await expect(chart).toContainText('The volume chart could not be loaded.');
    await expect(chart).not.toContainText('Drag across the bars');
  });

  test('a failed load shows an error with a retry that recovers', async ({ page, state }) => {
    await page.goto(eventsUrl(state.orgId));
    await expect(rows(page).first()).toBeVisible();
    let fail = true;
    await page.route('**/api/public/v1.0/orgs/*/events?*', (route) =>
      fail
        ? route.fulfill({
            status: 503,
            contentType: 'application/json',
            body: '{"detail":"Service unavailable for the test.","error":503,"errorCode":"UNAVAILABLE","parameters":[],"reason":"Service Unavailable"}',
          })
        : route.continue(),
    );
    await page.getByRole('button', { name: 'Last 30 days' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Events could not be loaded' });
    await expect(alert).toBeVisible();
    await expect(alert).toContainText('Service unavailable for the test.');
    fail = false;
    await alert.getByRole('button', { name: 'Retry' }).click();
    await expect(alert).toBeHidden();
  });
});
