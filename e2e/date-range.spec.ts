import { eventsUrl, expect, signIn, test } from './support/fixtures';

/**
 * A bare date as the custom range's "to" is that whole calendar day in the
 * chosen zone, up to its 23:59:59, on the days daylight saving time starts
 * or ends too (23 and 25 hours long), not 24 hours after its midnight.
 */
test.use({ timezoneId: 'America/New_York' });

for (const [day, from, to] of [
  // 25 hours: 24 h after midnight is 23:00.
  ['2026-11-01', '2026-11-01T00:00-04:00', '2026-11-01T23:59:59-05:00'],
  // 23 hours: 24 h after midnight is 00:59:59 the next day.
  ['2026-03-08', '2026-03-08T00:00-05:00', '2026-03-08T23:59:59-04:00'],
  ['2026-06-15', '2026-06-15T00:00-04:00', '2026-06-15T23:59:59-04:00'],
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
