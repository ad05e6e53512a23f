import { objectIdAt } from '@/lib/domain/object-id';
import type { Page } from '@playwright/test';
import { eventsUrl, expect, rowIds, shownTotal, signIn, test } from './support/fixtures';
import { importedEvent, orgWithEvents, ownOrgsKey } from './support/orgs';
import type { E2eState } from './support/state';

/**
 * A value with a comma is one value (`\,` in the URL and the API): typing
 * `collection:"orders,2024"` or clicking the facet value `east,1` filters to
 * exactly that event, not to `orders` or `2024`, and reload keeps it. The
 * events go to an organization of their own, so the seeded ones stay what
 * the other suites expect.
 */
const EVENTS = [
  { collection: 'orders,2024', clusterName: 'east,1' },
  { collection: 'orders', clusterName: 'east' },
  { collection: '2024', clusterName: '1' },
];

async function orgWithCommas(state: E2eState): Promise<{ orgId: string; ids: string[] }> {
  const base = Date.UTC(2026, 0, 1);
  const ids = EVENTS.map((_, i) => objectIdAt(base + i * 1000, `c${i}`.padStart(16, '0')));
  const orgId = await orgWithEvents(state, 'Commas', (orgId) =>
    EVENTS.map((fields, i) =>
      importedEvent(
        orgId,
        JSON.stringify({
          id: ids[i],
          created: new Date(base + i * 1000).toISOString(),
          eventTypeName: 'DATA_EXPLORER',
          isGlobalAdmin: false,
          ...fields,
        }),
      ),
    ),
  );
  return { orgId, ids };
}

async function expectOnly(page: Page, id: string) {
  await expect.poll(() => shownTotal(page)).toBe(1);
  await expect.poll(() => rowIds(page)).toEqual([id]);
}

const RANGE = 'from=2025-12-31&to=2026-01-02';

test('a value with a comma filters on exactly itself: typed quoted, clicked in the facets, reloaded', async ({
  page,
  state,
}) => {
  const { orgId, ids } = await orgWithCommas(state);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, RANGE));
  await expect.poll(() => shownTotal(page)).toBe(3);

  // Typed, quoted: one value, escaped in the URL, shown as typed.
  const box = page.getByRole('combobox', { name: /Filter events/ });
  await box.fill('collection:"orders,2024"');
  await box.press('Enter');
  await expectOnly(page, ids[0]!);
  await expect(page.getByTestId('query-chip')).toHaveText(['collection:"orders,2024"✕']);
  await expect(page).toHaveURL(/[?&]collection=orders%5C,2024(&|$)/);
  await page.reload();
  await expectOnly(page, ids[0]!);
  await expect(page.getByTestId('query-chip')).toHaveText(['collection:"orders,2024"✕']);

  // A facet value with a comma can be clicked, and is exactly that value.
  await page.goto(eventsUrl(orgId, RANGE));
  await expect.poll(() => shownTotal(page)).toBe(3);
  const value = page
    .locator('.facet[data-field="clusterName"] .facet-value')
    .filter({ has: page.locator('.facet-label', { hasText: /^east,1$/ }) });
  await expect(value).toBeEnabled();
  await value.click();
  await expectOnly(page, ids[0]!);
  await expect(value).toHaveAttribute('aria-pressed', 'true');
  await expect(page).toHaveURL(/[?&]clusterName=east%5C,1(&|$)/);
  await page.goBack();
  await expect.poll(() => shownTotal(page)).toBe(3);
  await page.goForward();
  await expectOnly(page, ids[0]!);
});
