import path from 'node:path';
import type { Page } from '@playwright/test';
import {
  dragHistogram,
  eventsUrl,
  expect,
  pageScrollsSideways,
  rowIds,
  rows,
  shownTotal,
  signIn,
  test,
} from './support/fixtures';
import type { E2eEvent } from './support/state';

/**
 * An investigation, as issue 9 tells it: from the whole organization to the
 * events of one actor on one cluster in one day, by a chip typed in the
 * query box, a facet click, a click-to-filter from a table cell and a drag
 * across the volume histogram. Every expectation is computed from the
 * seeded events, not read back from the API.
 */

const DIR = path.join(__dirname, '..', 'test-results', 'screenshots');
const DAY_MS = 86_400_000;
const ACTOR = 'ada@example.com';

type Filter = (event: E2eEvent) => boolean;

const byActor: Filter = (event) =>
  ['username', 'userId', 'publicKey', 'apiKeyId'].some((field) => event.fields[field] === ACTOR);

/** Most frequent value first; ties by value, so the choice is stable. */
function mostFrequent(values: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

/** A facet's value button (event types carry their code in the title). */
function facetValue(page: Page, field: string, value: string) {
  const values = page.locator(`.facet[data-field="${field}"] .facet-value`);
  return field === 'eventTypeName'
    ? values.and(page.locator(`[title$="(${value})"]`))
    : values.filter({ has: page.locator('.facet-label', { hasText: value }) });
}

const startOfDay = (millis: number) => Math.floor(millis / DAY_MS) * DAY_MS;

async function expectRows(page: Page, expected: readonly E2eEvent[], pageSize = 50) {
  await expect.poll(() => shownTotal(page)).toBe(expected.length);
  const firstPage = expected.slice(0, pageSize).map((event) => event.id);
  await expect.poll(() => rowIds(page)).toEqual(firstPage);
}

test.describe('investigating from the whole org to one actor, cluster and day', () => {
  test('a chip, a facet click, a cell click and a histogram drag, each reflected in rows, totals, facets and the URL', async ({
    page,
    state,
  }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId));
    await expectRows(page, state.events);
    const histogram = page.getByTestId('histogram');
    await expect(page.locator('.histogram-head')).toContainText(
      `${state.events.length.toLocaleString('en-US')} events`,
    );

    // 1. A chip typed in the query box, with completion of the field name.
    const box = page.getByRole('combobox', { name: /Filter events/ });
    await box.fill('act');
    await expect(page.getByRole('option', { name: 'actor:' })).toBeVisible();
    await box.press('Tab');
    await expect(box).toHaveValue('actor:');
    await box.pressSequentially(ACTOR);
    await box.press('Escape');
    await box.press('Enter');
    let expected = state.events.filter(byActor);
    expect(expected.length).toBeGreaterThan(0);
    await expectRows(page, expected);
    await expect(page.getByTestId('query-chip')).toHaveText([`actor:${ACTOR}✕`]);
    await expect(page).toHaveURL(/actor=ada%40example\.com/);

    // The facets count under the filters: the event type facet lists the actor's types.
    const typeOf = mostFrequent(expected.map((event) => event.eventTypeName));
    const typeCount = expected.filter((event) => event.eventTypeName === typeOf).length;
    const typeButton = facetValue(page, 'eventTypeName', typeOf);
    await expect(typeButton.locator('.count')).toHaveText(typeCount.toLocaleString('en-US'));

    // 2. A facet click: the actor's most frequent event type.
    await typeButton.click();
    expected = expected.filter((event) => event.eventTypeName === typeOf);
    await expectRows(page, expected);
    await expect(typeButton).toHaveAttribute('aria-pressed', 'true');
    await expect(page).toHaveURL(new RegExp(`types=${typeOf}`));

    // 3. Click-to-filter from a cell: "everything on this cluster" of the first row.
    const cluster = expected[0]!.fields.clusterName;
    expect(cluster, 'the first row names a cluster').toBeTruthy();
    await rows(page).first().hover();
    await rows(page).first().locator('td.col-resource .cell-filter').click();
    const menu = page.getByRole('menu', { name: 'Filter on this value' });
    await expect(menu).toBeVisible();
    await menu.getByRole('menuitem', { name: `Only cluster ${cluster}` }).click();
    expected = expected.filter((event) => event.fields.clusterName === cluster);
    await expectRows(page, expected);
    await expect(page).toHaveURL(new RegExp(`clusterName=${cluster}`));

    // The histogram shows the same set: its bars add up to the table's total, per day.
    await expect(histogram).toHaveAttribute('data-interval', 'day');
    const barCounts = await histogram
      .locator('.histogram-bar')
      .evaluateAll((bars) => bars.map((bar) => Number(bar.getAttribute('data-count'))));
    expect(barCounts.reduce((sum, n) => sum + n, 0)).toBe(expected.length);
    const firstDay = startOfDay(expected[expected.length - 1]!.created);
    const lastDay = startOfDay(expected[0]!.created);
    expect(barCounts.length).toBe((lastDay - firstDay) / DAY_MS + 1);

    // 4. A drag across the busiest day's bar narrows the range to that day.
    const day = Number(mostFrequent(expected.map((event) => String(startOfDay(event.created)))));
    const index = (day - firstDay) / DAY_MS;
    expect(barCounts[index]).toBe(expected.filter((e) => startOfDay(e.created) === day).length);
    await dragHistogram(page, index, index);
    const dayIso = new Date(day).toISOString().slice(0, 10);
    await expect(page).toHaveURL(new RegExp(`from=${dayIso}T00:00Z&to=${dayIso}T23:59Z`));
    const beforeDay = expected;
    expected = expected.filter((event) => startOfDay(event.created) === day);
    await expectRows(page, expected);
    // The histogram follows: that day, in hours, with the same total.
    await expect(histogram).toHaveAttribute('data-interval', 'hour');
    await expect(histogram).toHaveAttribute('data-buckets', '24');
    await expect(page.locator('.histogram-head')).toContainText(
      `${expected.length.toLocaleString('en-US')} event`,
    );
    await expect(page.getByTestId('query-chip')).toHaveCount(3);

    // A permalink reopens exactly this view; back and forward walk the steps.
    const permalink = page.url();
    await page.reload();
    await expectRows(page, expected);
    await page.goBack();
    await expectRows(page, beforeDay);
    await page.goForward();
    await expectRows(page, expected);
    expect(page.url()).toBe(permalink);

    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.screenshot({ path: path.join(DIR, 'investigate-1440.png') });

    // Backspace in the empty box removes the last chip (the cluster).
    await box.focus();
    await box.press('Backspace');
    await expect(page).not.toHaveURL(/clusterName=/);
    await expectRows(
      page,
      state.events.filter(
        (event) =>
          byActor(event) && event.eventTypeName === typeOf && startOfDay(event.created) === day,
      ),
    );
  });

  test('exclusion by type from the facets, and a malformed chip explained instead of sent', async ({
    page,
    state,
  }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId));
    const top = mostFrequent(state.events.map((event) => event.eventTypeName));
    await facetValue(page, 'eventTypeName', top)
      .locator('xpath=..')
      .locator('.facet-exclude')
      .click();
    await expectRows(
      page,
      state.events.filter((event) => event.eventTypeName !== top),
    );
    await expect(page).toHaveURL(new RegExp(`excludeTypes=${top}`));
    await expect(page.getByTestId('query-chip')).toHaveText([`-type:${top}✕`]);

    const box = page.getByRole('combobox', { name: /Filter events/ });
    await box.fill('ip:10.0.0.0/99 -cluster:Cluster0');
    await box.press('Enter');
    await expect(page.locator('.query-problems')).toContainText('CIDR');
    await expect(page.locator('.query-problems')).toContainText('only event types can be left out');
    await expect(page).not.toHaveURL(/remoteAddress|clusterName/);
  });

  test('a filter starts from page 1, and a row reached by keyboard shows its cut-off cells whole', async ({
    page,
    state,
  }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId, 'page=2&size=25'));
    await expect.poll(() => rowIds(page)).toEqual(state.events.slice(25, 50).map((e) => e.id));
    // The project line of the place column is cut at 1440 px: the tooltip shows it whole.
    const index = state.events
      .slice(25, 50)
      .findIndex((event) => event.fields.clusterName && event.fields.groupId);
    expect(index).toBeGreaterThan(0);
    await rows(page)
      .nth(index - 1)
      .focus();
    await page.keyboard.press('ArrowDown');
    const tooltip = page.getByTestId('row-tooltip');
    await expect(tooltip).toBeVisible();
    await expect(tooltip).toContainText(`project ${state.events[25 + index]!.fields.groupId}`);
    await page.keyboard.press('f');
    const menu = page.getByRole('menu', { name: 'Filter on this value' });
    await expect(menu.getByRole('menuitem').first()).toBeFocused();
    const cluster = state.events[25 + index]!.fields.clusterName!;
    await menu.getByRole('menuitem', { name: `Only cluster ${cluster}` }).press('Enter');
    await expect(page).toHaveURL(new RegExp(`clusterName=${cluster}`));
    await expect(page).not.toHaveURL(/page=2/);
    await expectRows(
      page,
      state.events.filter((event) => event.fields.clusterName === cluster),
      25,
    );
  });

  test('on a 390 px phone the facets open as a sheet and the page does not scroll sideways', async ({
    page,
    state,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId, `actor=${encodeURIComponent(ACTOR)}`));
    await expectRows(page, state.events.filter(byActor));
    const facets = page.getByRole('complementary', { name: 'Facets' });
    await expect(facets).toBeHidden();
    expect(await pageScrollsSideways(page)).toBe(false);
    await page.screenshot({ path: path.join(DIR, 'investigate-390.png') });
    const opener = page.getByRole('button', { name: 'Facets' });
    await opener.click();
    // A sheet over the page: a modal dialog that keeps the keyboard.
    const sheet = page.getByRole('dialog', { name: 'Facets' });
    await expect(sheet).toBeVisible();
    await expect(sheet).toBeFocused();
    const focusInSheet = () => sheet.evaluate((el) => el.contains(document.activeElement));
    // Shift+Tab from its start wraps to its last control, Tab from there to its first:
    // the controls the sheet covers (Live, the query box) are never reached.
    await page.keyboard.press('Shift+Tab');
    expect(await focusInSheet()).toBe(true);
    await page.keyboard.press('Tab');
    expect(await focusInSheet()).toBe(true);
    await expect(sheet.getByRole('button', { name: 'Done' })).toBeFocused();
    await page.keyboard.press('Escape');
    await expect(sheet).toBeHidden();
    await expect(opener).toBeFocused();
    await opener.click();
    await expect(sheet).toBeVisible();
    await page.screenshot({ path: path.join(DIR, 'investigate-390-facets.png') });
    const name = mostFrequent(
      state.events.filter(byActor).flatMap((event) => event.fields.clusterName ?? []),
    );
    await facetValue(page, 'clusterName', name).click();
    await expectRows(
      page,
      state.events.filter((event) => byActor(event) && event.fields.clusterName === name),
    );
    await sheet.getByRole('button', { name: 'Done' }).click();
    await expect(sheet).toBeHidden();
    await expect(opener).toBeFocused();
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await pageScrollsSideways(page)).toBe(false);
  });
});

test('an unknown event type in a link is named as not applied and left out; the rest applies', async ({
  page,
  state,
}) => {
  await signIn(page, state.keys.member);
  const mine = state.events.filter(byActor);
  const type = mostFrequent(mine.map((event) => event.eventTypeName));
  const expected = mine.filter((event) => event.eventTypeName === type);
  await page.goto(eventsUrl(state.orgId, `types=${type},NOT_A_TYPE&actor=${ACTOR}`));
  await expect(page.getByTestId('not-applied')).toContainText('NOT_A_TYPE');
  await expectRows(page, expected);
  await expect(page.getByText('Events could not be loaded')).toHaveCount(0);
  await expect(page.locator('section.histogram .histogram-head')).toContainText(
    `${expected.length.toLocaleString('en-US')} event`,
  );
  // The chips are what applies: the known type and the actor.
  await expect(page.getByTestId('query-chip')).toHaveCount(2);
});

test('malformed values in a link are named as not applied, not dropped silently', async ({
  page,
  state,
}) => {
  await signIn(page, state.keys.member);
  await page.goto(
    eventsUrl(state.orgId, `remoteAddress=10.0.0.0/99&actor=${ACTOR}&from=garbage&size=100000`),
  );
  const notice = page.getByTestId('not-applied');
  await expect(notice).toContainText('10.0.0.0/99');
  await expect(notice).toContainText('from=garbage');
  await expect(notice).toContainText('size=100000');
  await expectRows(page, state.events.filter(byActor));
});

test('the query box keeps the chips it refused, to be fixed, and applies the rest', async ({
  page,
  state,
}) => {
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId));
  const box = page.getByRole('combobox', { name: /Filter events/ });
  await box.fill(`actor:${ACTOR} ip:10.0.0.0/99 team`);
  await box.press('Enter');
  await expect(page.locator('.query-bar-wrap [role="alert"]')).toContainText(
    '10.0.0.0/99 is not a CIDR block',
  );
  await expect(box).toHaveValue('ip:10.0.0.0/99');
  await expect(page.getByTestId('query-chip')).toHaveText([`actor:${ACTOR}✕`, '"team"✕']);
  // Fixed in place, it applies.
  await box.fill('ip:10.0.0.0/8');
  await box.press('Enter');
  await expect(box).toHaveValue('');
  await expect(page.getByTestId('query-chip')).toHaveCount(3);
});

test('the query box names the field a mistyped name meant, and Enter completes a type typed in part', async ({
  page,
  state,
}) => {
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId));
  const box = page.getByRole('combobox', { name: /Filter events/ });
  await box.fill(`usr:${ACTOR}`);
  await box.press('Enter');
  await expect(page.locator('.query-bar-wrap [role="alert"]')).toContainText(
    'usr: is not a field (did you mean user:?)',
  );
  await expect(box).toHaveValue(`usr:${ACTOR}`);
  await expect(page.getByTestId('query-chip')).toHaveCount(0);
  // One suggestion completes it: Enter takes it instead of refusing `joined_o`.
  await box.fill('type:joined_o');
  await expect(page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option')).toHaveText([
    /^JOINED_ORG/,
  ]);
  await box.press('Enter');
  await expect(page.getByTestId('query-chip')).toHaveText(['type:JOINED_ORG✕']);
  await expect(box).toHaveValue('');
});

test('a completion of user: or key: finds the events its count says', async ({ page, state }) => {
  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId));
  const box = page.getByRole('combobox', { name: /Filter events/ });
  const options = page.getByRole('listbox', { name: 'Suggestions' }).getByRole('option');
  // The actor facet lists usernames and API public keys together: `user:`
  // is offered a key, and `key:` a username, from that one list.
  const key = 'nmtxqlkl';
  for (const [typed, actor] of [
    [`user:${key.slice(0, 4)}`, key],
    [`key:${ACTOR.slice(0, 3)}`, ACTOR],
  ] as const) {
    const expected = state.events.filter((event) =>
      ['username', 'publicKey'].some((field) => event.fields[field] === actor),
    );
    expect(expected.length).toBeGreaterThan(0);
    await box.fill(typed);
    const offered = options.filter({ hasText: actor });
    await expect(offered).toHaveCount(1);
    await expect(offered.locator('.count')).toHaveText(String(expected.length));
    await offered.click();
    await box.press('Enter');
    await expectRows(page, expected);
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await expect(page.getByTestId('query-chip')).toHaveCount(0);
  }
});

test('±5 minutes in the event panel shows every event around it, the event still open', async ({
  page,
  state,
}) => {
  const MINUTE = 60_000;
  const byKey = state.events.filter((event) => event.fields.publicKey === 'nmtxqlkl');
  /** The seeded events ±5 minutes around `at`, in whole minutes ("to" covers all of its minute). */
  const aroundOf = (at: number) => {
    const from = Math.floor((at - 5 * MINUTE) / MINUTE) * MINUTE;
    const to = Math.floor((at + 5 * MINUTE) / MINUTE) * MINUTE + MINUTE - 1;
    return {
      from,
      events: state.events.filter((event) => event.created >= from && event.created <= to),
    };
  };
  // An event of the key with another actor's events around it.
  const picked = byKey.find((event) =>
    aroundOf(event.created).events.some((other) => other.fields.publicKey !== 'nmtxqlkl'),
  )!;
  const { from, events: around } = aroundOf(picked.created);
  // Around it, events of other actors too: the actor filter is gone.
  expect(around.some((event) => event.fields.publicKey !== 'nmtxqlkl')).toBe(true);

  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, `actor=nmtxqlkl&event=${picked.id}`));
  const around5 = page.getByRole('button', { name: '±5 minutes' });
  await around5.click();
  await expectRows(page, around);
  const url = new URL(page.url());
  expect(url.searchParams.get('actor')).toBeNull();
  expect(url.searchParams.get('event')).toBe(picked.id);
  expect(Date.parse(url.searchParams.get('from')!)).toBe(from);
  await expect(around5).toBeVisible();
  await expect(page.locator(`tr[data-event-id="${picked.id}"]`)).toBeVisible();
  // Back returns to the actor's events.
  await page.goBack();
  await expect.poll(() => shownTotal(page)).toBe(byKey.length);
});

test("the event's own page links to the table filtered by its actor, its type (in or out) and ±5 minutes around it", async ({
  page,
  state,
}) => {
  const MINUTE = 60_000;
  const KEY = 'nmtxqlkl';
  const byKey = state.events.filter((event) =>
    ['username', 'publicKey'].some((field) => event.fields[field] === KEY),
  );
  const inWindow = (at: number) => {
    const from = Math.floor((at - 5 * MINUTE) / MINUTE) * MINUTE;
    const to = Math.floor((at + 5 * MINUTE) / MINUTE) * MINUTE + MINUTE - 1;
    return state.events.filter((event) => event.created >= from && event.created <= to);
  };
  // An event of the key with other actors' events around it, so each link shows other rows.
  const picked = byKey.find((event) =>
    inWindow(event.created).some((other) => other.fields.publicKey !== KEY),
  )!;
  const ofType = state.events.filter((event) => event.eventTypeName === picked.eventTypeName);
  const notOfType = state.events.filter((event) => event.eventTypeName !== picked.eventTypeName);

  // Opened from a shared link: no list was shown in this tab before.
  await signIn(page, state.keys.member);
  const eventPage = `/orgs/${state.orgId}/events/${picked.id}`;
  const expectations: [string, readonly E2eEvent[], Record<string, string | null>][] = [
    [`Only actor ${KEY}`, byKey, { actor: KEY, event: null }],
    ['Only this type', ofType, { types: picked.eventTypeName, event: null }],
    ['Leave out this type', notOfType, { excludeTypes: picked.eventTypeName, event: null }],
    ['±5 minutes', inWindow(picked.created), { actor: null, event: picked.id }],
  ];
  for (const [name, expected, params] of expectations) {
    await page.goto(eventPage);
    await page.getByRole('link', { name, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events\\?`));
    await expectRows(page, expected);
    const url = new URL(page.url());
    for (const [param, value] of Object.entries(params)) {
      expect(url.searchParams.get(param), `${name}: ${param}`).toBe(value);
    }
  }
});

test('a field filter that matches nothing suggests the values containing it, any case, and one click applies one', async ({
  page,
  state,
}) => {
  const actorOf = (event: E2eEvent) => event.fields.username ?? event.fields.publicKey;
  const typed = 'ADA';
  // Every actor with events whose name holds the typed text: the facet's values, any case.
  const close = [...new Set(state.events.map(actorOf))].filter(
    (actor): actor is string => actor !== undefined && actor.toLowerCase().includes('ada'),
  );
  expect(close).toContain(ACTOR);
  const expected = state.events.filter((event) => actorOf(event) === ACTOR);

  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId));
  const box = page.getByRole('combobox', { name: /Filter events/ });
  await box.fill(`user:${typed}`);
  await box.press('Escape');
  await box.press('Enter');
  const empty = page.getByTestId('empty-state');
  await expect(empty).toContainText('No events match these filters');
  const suggestions = empty.getByRole('group', { name: `Values of user like ${typed}` });
  await expect(suggestions.getByRole('button')).toHaveCount(close.length);
  const offered = suggestions.getByRole('button', { name: new RegExp(`^${ACTOR}`) });
  await expect(offered).toContainText(String(expected.length));
  await offered.click();
  await expectRows(page, expected);
  await expect(page.getByTestId('query-chip')).toHaveText([`actor:${ACTOR}✕`]);
});
