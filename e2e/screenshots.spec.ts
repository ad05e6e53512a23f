import path from 'node:path';
import { eventsUrl, expect, rows, signIn, test } from './support/fixtures';

/**
 * Writes screenshots for reviews to look at: the table and the detail panel,
 * in the light and the dark theme (the system's choice). They go under the
 * untracked test-results/ (outside Playwright's outputDir, which each run
 * empties), so a run never rewrites tracked files.
 */
const DIR = path.join(__dirname, '..', 'test-results', 'screenshots');

for (const scheme of ['light', 'dark'] as const) {
  test(`screenshots of the table and the detail panel (${scheme})`, async ({ page, state }) => {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await expect(rows(page)).toHaveCount(25);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe(scheme === 'dark' ? 'rgb(14, 17, 22)' : 'rgb(255, 255, 255)');
    await rows(page).nth(1).focus();
    await page.screenshot({ path: path.join(DIR, `table-${scheme}.png`) });

    // The panel on an event with a raw document, showing its JSON tree.
    const index = state.events.slice(0, 25).findIndex((e) => e.rawKeys && e.rawKeys.length > 3);
    await rows(page).nth(Math.max(index, 0)).click();
    const panel = page.getByRole('dialog');
    await expect(panel).toBeVisible();
    await page.screenshot({ path: path.join(DIR, `detail-${scheme}.png`) });
    await panel.getByRole('tab', { name: 'Raw' }).click();
    await expect(panel.getByRole('group', { name: 'Raw document' })).toBeVisible();
    await page.screenshot({ path: path.join(DIR, `detail-raw-${scheme}.png`) });
  });
}
