import type { Page } from '@playwright/test';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import { eventsUrl, expect, rowIds, rows, shownTotal, signIn, test } from './support/fixtures';
import type { E2eState } from './support/state';

/**
 * Live: events imported into the running server's database while the page
 * is open. Uses the second organization (its own key), so the first one's
 * seeded events stay exactly what the other suites expect.
 */
async function importEvents(
  state: E2eState,
  after: number,
  count: number,
  tag: string,
  step = 60_000,
) {
  const store = await openStore(state.databaseUrl);
  try {
    const events = Array.from({ length: count }, (_, i) => {
      const created = after + (i + 1) * step;
      return encodeEvent(state.otherOrgId, {
        id: objectIdAt(created, `${tag}${i.toString(16)}`.padStart(16, '0')),
        created: new Date(created).toISOString(),
        eventTypeName: 'JOINED_ORG',
        username: `live-${tag}-${i}@example.com`,
      });
    });
    await store.insertEvents(state.otherOrgId, events);
    // Newest first, as the table shows them.
    return events.map((event) => event.id).reverse();
  } finally {
    await store.close();
  }
}

/** Signed in to the other org, its events 25 a page, rows shown. */
async function openOtherOrgEvents(page: Page, state: E2eState) {
  await signIn(page, state.keys.otherOrg);
  await page.goto(eventsUrl(state.otherOrgId, 'size=25'));
  await expect(rows(page).first()).toBeVisible();
}

async function newestShown(page: Page): Promise<number> {
  const iso = await rows(page).first().locator('td.col-time time').getAttribute('datetime');
  return Date.parse(iso!);
}

test('new events: a pill with the right count, rows stay put, one click shows them', async ({
  page,
  state,
}) => {
  await openOtherOrgEvents(page, state);
  const before = await rowIds(page);
  const firstBox = await rows(page).first().boundingBox();

  const added = await importEvents(state, await newestShown(page), 3, 'a1');
  const pill = page.getByTestId('new-events');
  await expect(pill).toHaveText('↑ 3 new events', { timeout: 15_000 });
  // Said to a screen reader too (the pill itself appears silently).
  await expect(page.getByTestId('new-events-status')).toHaveText('3 new events');
  await expect(page.getByTestId('new-events-status')).toHaveRole('status');
  // Nothing on screen moved: same rows, the first one where it was.
  expect(await rowIds(page)).toEqual(before);
  expect(await rows(page).first().boundingBox()).toEqual(firstBox);

  await pill.click();
  await expect.poll(() => rowIds(page)).toEqual([...added, ...before].slice(0, 25));
  await expect(pill).toBeHidden();

  // While the tab is hidden, its title carries the count.
  const more = await importEvents(state, await newestShown(page), 1, 'b2');
  await expect(pill).toHaveText('↑ 1 new event', { timeout: 15_000 });
  const title = await page.title();
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect(page).toHaveTitle(`(1) ${title}`);
  await page.evaluate(() => {
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await expect(page).toHaveTitle(title);

  // Live on, at the top: new events come in by themselves.
  await page.getByRole('button', { name: 'Live', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Live', exact: true })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await expect.poll(() => rowIds(page)).toEqual([...more, ...added, ...before].slice(0, 25));
  const last = await importEvents(state, await newestShown(page), 2, 'c3');
  await expect
    .poll(() => rowIds(page), { timeout: 15_000 })
    .toEqual([...last, ...more, ...added, ...before].slice(0, 25));
  await expect(pill).toBeHidden();
});

test('events sharing the newest second: no pill for those on later pages, one for a newer one', async ({
  page,
  state,
}) => {
  await openOtherOrgEvents(page, state);
  // Three events in one whole second (step 0), ids rising: the table shows the last first.
  const second = Math.floor((await newestShown(page)) / 1000) * 1000 + 60_000;
  const three = await importEvents(state, second, 3, 'f6', 0);

  let checks = 0;
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (
      url.pathname.endsWith(`/orgs/${state.otherOrgId}/events`) &&
      url.searchParams.has('minDate')
    )
      checks += 1;
  });
  await page.goto(eventsUrl(state.otherOrgId, 'size=1'));
  await expect.poll(() => rowIds(page)).toEqual(three.slice(0, 1));
  // By the second live check's answer, the first one's count is on screen.
  await expect.poll(() => checks, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  const pill = page.getByTestId('new-events');
  await expect(pill).toBeHidden();

  // One more in that second, with a higher id: it sorts above the row shown.
  const fourth = await importEvents(state, second, 1, 'f7', 0);
  await expect(pill).toHaveText('↑ 1 new event', { timeout: 15_000 });
  await pill.click();
  await expect.poll(() => rowIds(page)).toEqual(fourth);
  await expect(pill).toBeHidden();
});

/** The total in the histogram's header ("1,234 events · per hour"). */
async function histogramTotal(page: Page): Promise<number> {
  const text = await page.locator('section.histogram .histogram-head span').first().textContent();
  const match = /^([\d,]+) events?/.exec(text ?? '');
  return match ? Number(match[1]!.replace(/,/g, '')) : NaN;
}

test('new events brought in: the histogram and the facets count them too', async ({
  page,
  state,
}) => {
  await signIn(page, state.keys.otherOrg);
  // Filtered to one type, so its facet row is always listed.
  await importEvents(state, Date.now(), 1, 'd4');
  await page.goto(eventsUrl(state.otherOrgId, 'types=JOINED_ORG'));
  await expect(rows(page).first()).toBeVisible();
  const total = await shownTotal(page);
  await expect.poll(() => histogramTotal(page)).toBe(total);
  const facet = page.locator(
    '.facet[data-field="eventTypeName"] .facet-value[aria-pressed="true"]',
  );
  await expect(facet.locator('.count')).toHaveText(total.toLocaleString('en-US'));

  await importEvents(state, await newestShown(page), 3, 'e5');
  const pill = page.getByTestId('new-events');
  await expect(pill).toHaveText('↑ 3 new events', { timeout: 15_000 });
  await pill.click();
  await expect.poll(() => shownTotal(page)).toBe(total + 3);
  await expect.poll(() => histogramTotal(page)).toBe(total + 3);
  await expect(facet.locator('.count')).toHaveText((total + 3).toLocaleString('en-US'));
});

test('an event dated in the future (a wrong clock) does not silence the pill for events arriving now', async ({
  page,
  state,
}) => {
  const future = Date.parse('2027-06-01T00:00:00Z');
  const [futureId] = await importEvents(state, future - 60_000, 1, 'a9');
  try {
    await openOtherOrgEvents(page, state);
    await expect.poll(() => rowIds(page).then((ids) => ids[0])).toBe(futureId);
    const before = await rowIds(page);

    // Two arrive now: they sort below the 2027 row, and are new all the same.
    const added = await importEvents(state, Date.now() - 3_000, 2, 'b9', 1_000);
    const pill = page.getByTestId('new-events');
    await expect(pill).toHaveText('↑ 2 new events', { timeout: 15_000 });
    expect(await rowIds(page)).toEqual(before);
    await pill.click();
    await expect.poll(() => rowIds(page)).toEqual(expect.arrayContaining(added));
    expect((await rowIds(page))[0]).toBe(futureId);
    await expect(pill).toBeHidden();
    await page.screenshot({ path: 'test-results/e2e/live-future-row.png' });
  } finally {
    const store = await openStore(state.databaseUrl);
    try {
      await store.deleteEvents(state.otherOrgId, { ids: [futureId!] });
    } finally {
      await store.close();
    }
  }
});
