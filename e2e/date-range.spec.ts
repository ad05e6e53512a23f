import type { Page } from '@playwright/test';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import {
  dragHistogram,
  eventsUrl,
  expect,
  rows,
  shownTotal,
  signIn,
  test,
} from './support/fixtures';
import { orgWithEvents, ownOrgsKey } from './support/orgs';

/**
 * A bare date as the custom range's "to" is that whole calendar day in the
 * chosen zone, up to the end of its 23:59, on the days daylight saving time starts
 * or ends too (23 and 25 hours long), not 24 hours after its midnight.
 */
test.use({ timezoneId: 'America/New_York' });

for (const [day, from, to] of [
  // 25 hours: 24 h after midnight is 23:00.
  ['2026-11-01', '2026-11-01T00:00-04:00', '2026-11-01T23:59-05:00'],
  // 23 hours: 24 h after midnight is 00:59 the next day.
  ['2026-03-08', '2026-03-08T00:00-05:00', '2026-03-08T23:59-04:00'],
  ['2026-06-15', '2026-06-15T00:00-04:00', '2026-06-15T23:59-04:00'],
] as const) {
  test(`"to ${day}" in America/New_York ends at ${to}`, async ({ page, state }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId, 'tz=local'));
    await page.getByRole('button', { name: 'Custom…' }).click();
    await page.getByLabel('From (America/New_York)').fill(day);
    await page.getByLabel('To (America/New_York)').fill(day);
    await page.getByRole('button', { name: 'Apply dates' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('to')).toBe(to);
    expect(new URL(page.url()).searchParams.get('from')).toBe(from);
  });
}

test('the hour New York passes twice shows each time with its offset, and the custom range keeps its second pass', async ({
  page,
  state,
}) => {
  // An org of its own: the seeded ones stay as the specs running beside this one expect.
  const orgId = await orgWithEvents(state, 'Clocks go back', (orgId) =>
    // 01:30 at UTC-04:00, then 01:30 again at UTC-05:00.
    ['2025-11-02T05:30:00Z', '2025-11-02T06:30:00Z'].map((created, i) =>
      encodeEvent(orgId, {
        id: objectIdAt(Date.parse(created), `d5d5d5d5d5d5d5d${i}`),
        created,
        eventTypeName: 'JOINED_ORG',
        username: `pass-${i}@example.com`,
      }),
    ),
  );
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  await expect
    .poll(() => rows(page).locator('td.col-time time').allTextContents())
    .toEqual(['2025-11-02 01:30:00 UTC-05:00', '2025-11-02 01:30:00 UTC-04:00']);

  // The second pass alone, as a link (or a histogram bar) gives it.
  const from = '2025-11-02T01:00-05:00';
  const to = '2025-11-02T01:59-05:00';
  await page.goto(
    eventsUrl(orgId, `tz=local&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`),
  );
  await expect.poll(() => shownTotal(page)).toBe(1);
  await page.getByRole('button', { name: 'Custom…' }).click();
  await expect(page.getByLabel('From (America/New_York)')).toHaveValue('2025-11-02 01:00:00-05:00');
  // All of the minute, as the link names it.
  await expect(page.getByLabel('To (America/New_York)')).toHaveValue('2025-11-02 01:59-05:00');
  // Applied as shown, the bounds stay where they were, not an hour earlier.
  await page.getByRole('button', { name: 'Apply dates' }).click();
  await expect(page.getByRole('form', { name: 'Custom date range' })).toBeHidden();
  expect(new URL(page.url()).searchParams.get('from')).toBe(from);
  expect(new URL(page.url()).searchParams.get('to')).toBe(to);
  await expect.poll(() => shownTotal(page)).toBe(1);
});

/** An org of its own holding one Joined-org event at each instant. */
function orgWithEventsAt(state: Parameters<typeof orgWithEvents>[0], name: string, at: string[]) {
  return orgWithEvents(state, name, (orgId) =>
    at.map((created, i) =>
      encodeEvent(orgId, {
        id: objectIdAt(Date.parse(created), `e6e6e6e6e6e6e6${String(i).padStart(2, '0')}`),
        created,
        eventTypeName: 'JOINED_ORG',
        username: `at-${i}@example.com`,
      }),
    ),
  );
}

/** The volume chart's bars' tooltips, oldest first. */
function barTitles(page: Page): Promise<string[]> {
  return page
    .getByTestId('histogram')
    .locator('.histogram-bar')
    .evaluateAll((bars) => bars.map((bar) => bar.getAttribute('title') ?? ''));
}

test('a custom time New York skips says how it is read before it is applied, and is applied as shown', async ({
  page,
  state,
}) => {
  // 01:50 EST; 03:10 and 03:40 EDT: the clocks go from 02:00 to 03:00.
  const orgId = await orgWithEventsAt(state, 'Clocks go forward', [
    '2025-03-09T06:50:00Z',
    '2025-03-09T07:10:00Z',
    '2025-03-09T07:40:00Z',
  ]);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  await expect.poll(() => shownTotal(page)).toBe(3);
  await page.getByRole('button', { name: 'Custom…' }).click();
  const fromField = page.getByLabel('From (America/New_York)');
  await fromField.fill('2025-03-09 02:30');
  await page.getByRole('button', { name: 'Apply dates' }).click();
  // Not applied yet: the form says where the bound went and shows it there.
  const form = page.getByRole('form', { name: 'Custom date range' });
  await expect(form.getByRole('status')).toHaveText(
    '2025-03-09 02:30 does not exist in America/New_York (the clocks go forward): read as 2025-03-09 03:30:00. Apply again to use it.',
  );
  await expect(fromField).toHaveValue('2025-03-09 03:30:00');
  expect(new URL(page.url()).searchParams.get('from')).toBeNull();

  await page.getByRole('button', { name: 'Apply dates' }).click();
  await expect(form).toBeHidden();
  expect(new URL(page.url()).searchParams.get('from')).toBe('2025-03-09T03:30-04:00');
  await expect.poll(() => shownTotal(page)).toBe(1);
  await expect(page.locator('.results-bar > span').first()).toHaveText(
    '1 event from 2025-03-09 03:30:00 UTC-04:00',
  );
  await page.getByRole('button', { name: 'Custom…' }).click();
  await expect(fromField).toHaveValue('2025-03-09 03:30:00');

  // A skipped "to" is written back as typed, to the minute: rewritten with
  // ":00" it would end with that second alone once applied.
  const toField = page.getByLabel('To (America/New_York)');
  await fromField.fill('');
  await toField.fill('2025-03-09 02:10');
  await page.getByRole('button', { name: 'Apply dates' }).click();
  await expect(form.getByRole('status')).toHaveText(
    '2025-03-09 02:10 does not exist in America/New_York (the clocks go forward): read as 2025-03-09 03:10. Apply again to use it.',
  );
  await expect(toField).toHaveValue('2025-03-09 03:10');
  await page.getByRole('button', { name: 'Apply dates' }).click();
  await expect(form).toBeHidden();
  expect(new URL(page.url()).searchParams.get('to')).toBe('2025-03-09T03:10-04:00');
  await expect.poll(() => shownTotal(page)).toBe(2);
});

test('a custom "to" with seconds ending in :00 is that second alone, one without seconds the whole minute, in the URL and as shown again', async ({
  page,
  state,
}) => {
  // 11:30:00.500 and 11:30:30 New York time (EST).
  const orgId = await orgWithEventsAt(state, 'To the second', [
    '2026-01-31T16:30:00.500Z',
    '2026-01-31T16:30:30Z',
  ]);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  await expect.poll(() => shownTotal(page)).toBe(2);
  const toField = page.getByLabel('To (America/New_York)');
  const form = page.getByRole('form', { name: 'Custom date range' });
  for (const [typed, url, total] of [
    ['2026-01-31 11:30:00', '2026-01-31T11:30:00-05:00', 1],
    ['2026-01-31 11:30', '2026-01-31T11:30-05:00', 2],
  ] as const) {
    await page.getByRole('button', { name: 'Custom…' }).click();
    await toField.fill(typed);
    await page.getByRole('button', { name: 'Apply dates' }).click();
    await expect(form).toBeHidden();
    expect(new URL(page.url()).searchParams.get('to')).toBe(url);
    await expect.poll(() => shownTotal(page)).toBe(total);
    // Shown again as typed, so applying it unchanged keeps the same end.
    await page.getByRole('button', { name: 'Custom…' }).click();
    await expect(toField).toHaveValue(typed);
    await page.getByRole('button', { name: 'Apply dates' }).click();
    await expect(form).toBeHidden();
    expect(new URL(page.url()).searchParams.get('to')).toBe(url);
  }
});

test("the chart's hour bar as New York's clocks go forward names its ends with their offsets", async ({
  page,
  state,
}) => {
  // Five hours of events: hour bars, from 23:00 EST to 05:00 EDT.
  const orgId = await orgWithEventsAt(state, 'Bars as clocks go forward', [
    '2025-03-09T04:30:00Z',
    '2025-03-09T06:30:00Z',
    '2025-03-09T09:30:00Z',
  ]);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  await expect(page.getByTestId('histogram')).toHaveAttribute('data-interval', 'hour');
  await expect
    .poll(() => barTitles(page))
    .toEqual([
      '2025-03-08 23:00:00 – 2025-03-09 00:00:00: 1 event',
      '2025-03-09 00:00:00 – 2025-03-09 01:00:00: 0 events',
      // One hour, not the two "01:00:00 – 03:00:00" read as.
      '2025-03-09 01:00:00 UTC-05:00 – 2025-03-09 03:00:00 UTC-04:00: 1 event',
      '2025-03-09 03:00:00 – 2025-03-09 04:00:00: 0 events',
      '2025-03-09 04:00:00 – 2025-03-09 05:00:00: 0 events',
      '2025-03-09 05:00:00 – 2025-03-09 06:00:00: 1 event',
    ]);
});

/** 01:45 EDT, then 01:05 and 01:20 EST; and two hours either side, for hour bars. */
const CLOCKS_GO_BACK = [
  '2025-11-02T03:30:00Z',
  '2025-11-02T05:45:00Z',
  '2025-11-02T06:05:00Z',
  '2025-11-02T06:20:00Z',
  '2025-11-02T08:30:00Z',
];

test("the chart's hour bars about the hour New York passes twice name their ends with their offsets, and how long one that reads backwards is", async ({
  page,
  state,
}) => {
  const orgId = await orgWithEventsAt(state, 'Bars as clocks go back', CLOCKS_GO_BACK);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  await expect(page.getByTestId('histogram')).toHaveAttribute('data-interval', 'hour');
  await expect
    .poll(() => barTitles(page))
    .toEqual([
      '2025-11-01 23:00:00 – 2025-11-02 00:00:00: 1 event',
      '2025-11-02 00:00:00 UTC-04:00 – 2025-11-02 01:00:00 UTC-04:00: 0 events',
      '2025-11-02 01:00:00 UTC-04:00 – 2025-11-02 01:00:00 UTC-05:00 (1 hour later: the clocks go back 1 hour in between): 1 event',
      '2025-11-02 01:00:00 UTC-05:00 – 2025-11-02 02:00:00 UTC-05:00: 2 events',
      '2025-11-02 02:00:00 – 2025-11-02 03:00:00: 0 events',
      '2025-11-02 03:00:00 – 2025-11-02 04:00:00: 1 event',
    ]);
});

test('the results line of a range across the hour New York passes twice says how long it is where it reads backwards', async ({
  page,
  state,
}) => {
  const orgId = await orgWithEventsAt(state, 'Range as clocks go back', CLOCKS_GO_BACK);
  await signIn(page, ownOrgsKey(state));
  // From 01:30 on the first pass to 01:10 on the second: 40 minutes.
  const from = '2025-11-02T01:30-04:00';
  const to = '2025-11-02T01:09-05:00';
  await page.goto(
    eventsUrl(orgId, `tz=local&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`),
  );
  await expect.poll(() => shownTotal(page)).toBe(2);
  await expect(page.locator('.results-bar > span').first()).toHaveText(
    '2 events from 2025-11-02 01:30:00 UTC-04:00 to 2025-11-02 01:10:00 UTC-05:00 (40 minutes later: the clocks go back 1 hour in between)',
  );
});

test("the chart's day bars in local time start at New York's midnights, a 23-hour day among them, and a picked bar is that local day", async ({
  page,
  state,
}) => {
  // 23:30 and 00:30 EST either side of New York's midnight (one UTC day);
  // eleven days later, after the clocks go forward on 8 March: day bars.
  const orgId = await orgWithEventsAt(state, 'Local days', [
    '2026-03-02T04:30:00Z',
    '2026-03-02T05:30:00Z',
    '2026-03-12T04:30:00Z',
  ]);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  const histogram = page.getByTestId('histogram');
  await expect(histogram).toHaveAttribute('data-interval', 'day');
  await expect(page.locator('.histogram-head')).toContainText('3 events · per day');
  // Local days, so no longer labelled as UTC ones.
  await expect(page.locator('.histogram-head')).not.toContainText('UTC');
  const titles = await barTitles(page);
  expect(titles.slice(0, 2)).toEqual([
    '2026-03-01 00:00:00 – 2026-03-02 00:00:00: 1 event',
    '2026-03-02 00:00:00 – 2026-03-03 00:00:00: 1 event',
  ]);
  // 23 hours, its ends with their offsets as the offset changes within it.
  expect(titles).toContain(
    '2026-03-08 00:00:00 UTC-05:00 – 2026-03-09 00:00:00 UTC-04:00: 0 events',
  );
  expect(titles.at(-1)).toBe('2026-03-12 00:00:00 – 2026-03-13 00:00:00: 1 event');

  // A drag onto the second bar alone: that day in New York, whole.
  await dragHistogram(page, 1, 1);
  await expect
    .poll(() => new URL(page.url()).searchParams.get('from'))
    .toBe('2026-03-02T00:00-05:00');
  expect(new URL(page.url()).searchParams.get('to')).toBe('2026-03-02T23:59-05:00');
  await expect.poll(() => shownTotal(page)).toBe(1);
});

test('a "from" typed with a fraction of a second stays that instant in the URL and the results, and in the input again', async ({
  page,
  state,
}) => {
  // Half a second apart within one second: only the later one is from .500 on.
  const orgId = await orgWithEventsAt(state, 'Fractions', [
    '2026-04-01T12:00:00.250Z',
    '2026-04-01T12:00:00.750Z',
  ]);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'tz=local'));
  await expect.poll(() => shownTotal(page)).toBe(2);
  await page.getByRole('button', { name: 'Custom…' }).click();
  await page.getByLabel('From (America/New_York)').fill('2026-04-01 08:00:00.500');
  await page.getByRole('button', { name: 'Apply dates' }).click();
  await expect
    .poll(() => new URL(page.url()).searchParams.get('from'))
    .toBe('2026-04-01T08:00:00.500-04:00');
  await expect.poll(() => shownTotal(page)).toBe(1);
  await page.getByRole('button', { name: 'Custom…' }).click();
  await expect(page.getByLabel('From (America/New_York)')).toHaveValue('2026-04-01 08:00:00.500');
});

test.describe('in Kolkata (UTC+05:30)', () => {
  test.use({ timezoneId: 'Asia/Kolkata' });

  test("the chart's hour bars in local time are Kolkata's hours, not UTC's (which start at :30 there), and a picked bar is that local hour", async ({
    page,
    state,
  }) => {
    // 09:50 and 10:10 in Kolkata, one UTC hour (04:00 to 05:00, 09:30 to
    // 10:30 there) but two of its own; 15:50 makes the chart hourly.
    const orgId = await orgWithEventsAt(state, 'Kolkata hours', [
      '2026-03-02T04:20:00Z',
      '2026-03-02T04:40:00Z',
      '2026-03-02T10:20:00Z',
    ]);
    await signIn(page, ownOrgsKey(state));
    await page.goto(eventsUrl(orgId, 'tz=local'));
    const histogram = page.getByTestId('histogram');
    await expect(histogram).toHaveAttribute('data-interval', 'hour');
    await expect(page.locator('.histogram-head')).toContainText('3 events · per hour');
    const titles = await barTitles(page);
    expect(titles.slice(0, 2)).toEqual([
      '2026-03-02 09:00:00 – 2026-03-02 10:00:00: 1 event',
      '2026-03-02 10:00:00 – 2026-03-02 11:00:00: 1 event',
    ]);
    expect(titles.at(-1)).toBe('2026-03-02 15:00:00 – 2026-03-02 16:00:00: 1 event');

    // A drag onto the second bar alone: 10:00 to 10:59 in Kolkata.
    await dragHistogram(page, 1, 1);
    await expect
      .poll(() => new URL(page.url()).searchParams.get('from'))
      .toBe('2026-03-02T10:00+05:30');
    expect(new URL(page.url()).searchParams.get('to')).toBe('2026-03-02T10:59+05:30');
    await expect.poll(() => shownTotal(page)).toBe(1);
  });

  test('from and to inside an hour: the first and last bars say and pick only the part of their hour in the range, so a picked bar holds the events it counted', async ({
    page,
    state,
  }) => {
    // 09:20, 09:50, 10:10, 15:50 and 15:58 in Kolkata; the range is 09:40 to 15:55 there.
    const orgId = await orgWithEventsAt(state, 'Kolkata range in hours', [
      '2026-03-02T03:50:00Z',
      '2026-03-02T04:20:00Z',
      '2026-03-02T04:40:00Z',
      '2026-03-02T10:20:00Z',
      '2026-03-02T10:28:00Z',
    ]);
    await signIn(page, ownOrgsKey(state));
    const range = 'from=2026-03-02T09:40%2B05:30&to=2026-03-02T15:55%2B05:30&tz=local';
    await page.goto(eventsUrl(orgId, range));
    const histogram = page.getByTestId('histogram');
    await expect(histogram).toHaveAttribute('data-interval', 'hour');
    await expect(page.locator('.histogram-head')).toContainText('3 events · per hour');
    const titles = await barTitles(page);
    expect(titles[0]).toBe('2026-03-02 09:40:00 – 2026-03-02 10:00:00: 1 event');
    expect(titles.at(-1)).toBe('2026-03-02 15:00:00 – 2026-03-02 15:56:00: 1 event');
    await expect(page.locator('.histogram-axis span').first()).toHaveText('2026-03-02 09:40:00');
    await expect(page.locator('.histogram-axis span').last()).toHaveText('2026-03-02 15:56:00');

    // The first bar: from 09:40 still, not 09:00 (which took in 09:20).
    await dragHistogram(page, 0, 0);
    await expect
      .poll(() => new URL(page.url()).searchParams.get('to'))
      .toBe('2026-03-02T09:59+05:30');
    expect(new URL(page.url()).searchParams.get('from')).toBe('2026-03-02T09:40+05:30');
    await expect.poll(() => shownTotal(page)).toBe(1);

    // The last bar: to 15:55 still, not 15:59 (which took in 15:58).
    await page.goto(eventsUrl(orgId, range));
    await expect(histogram).toHaveAttribute('data-buckets', '7');
    await dragHistogram(page, 6, 6);
    await expect
      .poll(() => new URL(page.url()).searchParams.get('from'))
      .toBe('2026-03-02T15:00+05:30');
    expect(new URL(page.url()).searchParams.get('to')).toBe('2026-03-02T15:55+05:30');
    await expect.poll(() => shownTotal(page)).toBe(1);
  });
});
