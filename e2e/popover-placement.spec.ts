import { eventsUrl, expect, rows, signIn, test } from './support/fixtures';

/**
 * The toolbar menus (and the custom date range) open inside the window whatever the toolbar's wrapping:
 * a long "Local (Europe/Berlin)" button pushes the View group to the left
 * edge at 1280 px, where a menu lined up with its button's right edge ran
 * off the left of the window (x = -362). Widths above 640 px (below, menus
 * are bottom sheets).
 */
test.use({ timezoneId: 'Europe/Berlin' });

const MENUS = [
  [/^Event types:/, 'Filter by event type'],
  [/^Views/, 'Saved views'],
  [/^Columns/, 'Table columns'],
  [/^Export/, 'Export events'],
] as const;

for (const [width, height] of [
  [1280, 800],
  [1024, 768],
  [900, 800],
  [800, 800],
  [700, 800],
] as const) {
  test(`at ${width}x${height} in Europe/Berlin every toolbar menu opens inside the window`, async ({
    page,
    state,
  }) => {
    await page.setViewportSize({ width, height });
    await signIn(page, state.keys.member);
    for (const tz of ['local', 'utc']) {
      await page.goto(eventsUrl(state.orgId, `size=25&tz=${tz}`));
      await expect(rows(page).first()).toBeVisible();
      const toolbar = page.getByRole('search', { name: 'Filter events' });
      for (const [button, dialog] of MENUS) {
        await toolbar.getByRole('button', { name: button }).click();
        const popover = page.getByRole('dialog', { name: dialog });
        await expect(popover).toBeVisible();
        const box = (await popover.boundingBox())!;
        const where = `${dialog} (tz=${tz}): x ${box.x}, width ${box.width}`;
        expect(box.x, where).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, where).toBeLessThanOrEqual(width);
        await page.keyboard.press('Escape');
        await expect(popover).toBeHidden();
      }
      await toolbar.getByRole('button', { name: 'Custom…' }).click();
      const range = page.getByRole('form', { name: 'Custom date range' });
      const box = (await range.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await page.keyboard.press('Escape');
      await expect(range).toBeHidden();
    }
  });
}
