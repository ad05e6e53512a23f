import type { Page } from '@playwright/test';
import { axeViolations } from './support/axe';
import {
  eventsUrl,
  expect,
  frequentTypes,
  rows,
  shownTotal,
  signIn,
  test,
} from './support/fixtures';
import type { E2eState } from './support/state';

/**
 * axe-core's WCAG 2.1 A and AA rules (contrast, names and labels, landmarks,
 * ids, ARIA) and its best practices (one h1, heading order) on every screen
 * of the dashboard with the seeded data, in the light and the dark theme (the
 * dashboard follows the system's), and on a phone. Each test waits for the screen's data first, so what is checked is
 * what a reader sees, not a loading state.
 */

const ACTOR = 'ada@example.com';

/** The events page with its rows, its histogram and (wide screens) its facet counts in. */
async function openEvents(page: Page, state: E2eState, query = '') {
  await page.goto(eventsUrl(state.orgId, query));
  await expect(page.getByTestId('results-count')).toBeVisible();
  await expect(page.locator('.histogram-head')).toContainText('events');
  if ((page.viewportSize()?.width ?? 0) >= 760) {
    const facets = page.getByRole('complementary', { name: 'Facets' });
    await expect(facets.locator('.facet-value').first()).toBeVisible();
    await expect(facets).not.toHaveAttribute('aria-busy', 'true');
  }
}

/** A seeded event with a raw document of some size, so the JSON tree has nesting to show. */
function eventWithRaw(state: E2eState) {
  return state.events.slice(0, 50).find((event) => (event.rawKeys?.length ?? 0) > 3)!;
}

/**
 * No findings on the screen as it is now. Soft, so one run lists the
 * findings of every screen a test walks through, not only the first.
 */
async function expectNoViolations(page: Page, screen: string) {
  expect.soft(await axeViolations(page), screen).toEqual([]);
}

for (const colorScheme of ['light', 'dark'] as const) {
  test.describe(`axe, WCAG 2.1 AA and best practices, ${colorScheme} theme`, () => {
    test.beforeEach(async ({ page }) => {
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
    });

    test('the sign-in page, empty and with a validation error', async ({ page }) => {
      await page.goto('/sign-in');
      await expect(page.getByLabel('Public key')).toBeFocused();
      await expectNoViolations(page, 'sign-in, empty');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('main').getByRole('alert')).not.toBeEmpty();
      await expectNoViolations(page, 'sign-in, with an error');
    });

    test.describe('signed in', () => {
      test.beforeEach(async ({ page, state }) => {
        await signIn(page, state.keys.member);
      });

      test('the organizations list', async ({ page }) => {
        await page.goto('/orgs');
        await expect(page.getByRole('list', { name: 'Organizations' })).toBeVisible();
        await expectNoViolations(page, 'organizations');
      });

      test('the events list with its results, facets and histogram, a row focused', async ({
        page,
        state,
      }) => {
        await openEvents(page, state);
        await expect(rows(page)).toHaveCount(50);
        await expectNoViolations(page, 'events list');
        // A focused row shows its filter buttons and its cut-off cells whole.
        await rows(page).nth(1).focus();
        await expectNoViolations(page, 'events list, a row focused');
      });

      test('the events list with filters applied, shown as chips', async ({ page, state }) => {
        const [type, , excluded] = frequentTypes(state.events, 3);
        await openEvents(
          page,
          state,
          `actor=${encodeURIComponent(ACTOR)}&excludeTypes=${excluded}&q=ada&tz=utc`,
        );
        const chips = page.getByRole('list', { name: 'Filters' }).getByRole('listitem');
        await expect(chips).toHaveCount(3);
        expect(await shownTotal(page)).toBeGreaterThan(0);
        await expectNoViolations(page, 'chips');
        await openEvents(page, state, `types=${type}&remoteAddress=10.0.0.0%2F99`);
        await expect(page.getByTestId('not-applied')).toBeVisible();
        await expectNoViolations(page, 'chips and a link not applied');
      });

      test('the empty state', async ({ page, state }) => {
        await page.goto(eventsUrl(state.orgId, 'q=zzzqqxnothingmatchesthis'));
        await expect(page.getByTestId('empty-state')).toBeVisible();
        await expectNoViolations(page, 'empty state');
      });

      test('the event panel, details and raw document', async ({ page, state }) => {
        const event = eventWithRaw(state);
        await openEvents(page, state, `event=${event.id}`);
        const panel = page.getByTestId('event-panel');
        await expect(panel.getByRole('tab', { name: 'Details' })).toBeVisible();
        await expectNoViolations(page, 'panel, details');
        await panel.getByRole('tab', { name: 'Raw' }).click();
        await expect(panel.getByRole('group', { name: 'Raw document' })).toBeVisible();
        await expectNoViolations(page, 'panel, raw');
      });

      test("the event's own page, details and raw document", async ({ page, state }) => {
        const event = eventWithRaw(state);
        await page.goto(`/orgs/${state.orgId}/events/${event.id}`);
        await expect(page.getByRole('tab', { name: 'Details' })).toBeVisible();
        await expectNoViolations(page, 'own page, details');
        await page.goto(`/orgs/${state.orgId}/events/${event.id}?tab=raw`);
        await expect(page.getByRole('group', { name: 'Raw document' })).toBeVisible();
        await expectNoViolations(page, 'own page, raw');
      });

      test('the toolbar menus: event types, custom dates, saved views, columns, export', async ({
        page,
        state,
      }) => {
        await openEvents(page, state);
        const toolbar = page.getByRole('search', { name: 'Filter events' });
        for (const [button, dialog] of [
          [/^Event types:/, 'Filter by event type'],
          ['Custom…', 'Custom date range'],
          ['Views ▾', 'Saved views'],
          ['Columns ▾', 'Table columns'],
          ['Export ▾', 'Export events'],
        ] as const) {
          await toolbar.getByRole('button', { name: button }).click();
          const popover = page.getByRole(dialog === 'Custom date range' ? 'form' : 'dialog', {
            name: dialog,
          });
          await expect(popover).toBeVisible();
          // What each one loads is in before it is checked.
          if (dialog === 'Saved views') await expect(popover.getByRole('status')).toBeHidden();
          if (dialog === 'Export events') {
            await expect(popover.getByTestId('export-count')).toContainText('events under');
          }
          if (dialog === 'Filter by event type') {
            await expect(popover.getByRole('checkbox').first()).toBeVisible();
          }
          await expectNoViolations(page, dialog);
          await page.keyboard.press('Escape');
          await expect(popover).toBeHidden();
        }
      });

      test('two events compared', async ({ page, state }) => {
        await openEvents(page, state);
        await rows(page).nth(0).locator('input.pick').check();
        await rows(page).nth(1).locator('input.pick').check();
        await page.getByTestId('compare-bar').getByRole('button', { name: 'Compare' }).click();
        const dialog = page.getByRole('dialog', { name: 'Compare two events' });
        await expect(dialog.getByRole('table', { name: 'Fields' })).toBeVisible();
        await expectNoViolations(page, 'compare');
      });

      test('the page for an organization the key cannot read', async ({ page, state }) => {
        await page.goto(eventsUrl(state.otherOrgId));
        await expect(
          page.getByRole('heading', { name: 'You don’t have access to this organization' }),
        ).toBeVisible();
        await expectNoViolations(page, 'no access');
      });

      test('a page that does not exist', async ({ page }) => {
        await page.goto('/no/such/page');
        await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
        await expectNoViolations(page, 'not found');
      });

      test('an event that does not exist, on its own page and in the panel', async ({
        page,
        state,
      }) => {
        // A well-formed id no event has.
        const missing = 'ffffffffffffffffffffffff';
        await page.goto(`/orgs/${state.orgId}/events/${missing}`);
        await expect(page.getByRole('heading', { name: 'Event not found' })).toBeVisible();
        await expectNoViolations(page, 'event not found, own page');
        await openEvents(page, state, `event=${missing}`);
        await expect(page.getByRole('heading', { name: 'Event not found' })).toBeVisible();
        await expectNoViolations(page, 'event not found, panel');
      });

      test('on a 390 px phone: the list, the facet sheet and the event sheet', async ({
        page,
        state,
      }) => {
        await page.setViewportSize({ width: 390, height: 844 });
        await openEvents(page, state, `actor=${encodeURIComponent(ACTOR)}`);
        await expectNoViolations(page, 'phone, events list');
        await page.getByRole('button', { name: 'Facets' }).click();
        const sheet = page.getByRole('dialog', { name: 'Facets' });
        await expect(sheet.locator('.facet-value').first()).toBeVisible();
        await expectNoViolations(page, 'phone, facet sheet');
        await sheet.getByRole('button', { name: 'Done' }).click();
        await rows(page).nth(0).click();
        await expect(page.getByTestId('event-panel')).toBeVisible();
        await expectNoViolations(page, 'phone, event sheet');
      });
    });
  });
}
