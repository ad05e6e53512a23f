import { type Page, test as base, expect } from '@playwright/test';
import { type E2eEvent, type E2eKey, type E2eState, readState } from './state';

/** `test` with the server's address as baseURL and the seeded state at hand. */
export const test = base.extend<{ state: E2eState }>({
  // Playwright reads a fixture's dependencies from this (empty) pattern.
  // eslint-disable-next-line no-empty-pattern
  baseURL: async ({}, provide) => provide(readState().baseUrl),
  // eslint-disable-next-line no-empty-pattern
  state: async ({}, provide) => provide(readState()),
  // A dashboard page is usable once React has hydrated it (app/providers.tsx
  // marks <html>); acting earlier loses the action. JSON answers have no mark.
  page: async ({ page }, provide) => {
    const hydrated = async (response: Awaited<ReturnType<Page['goto']>>) => {
      if (response?.headers()['content-type']?.includes('text/html')) {
        await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
      }
      return response;
    };
    const goto = page.goto.bind(page);
    const reload = page.reload.bind(page);
    const goBack = page.goBack.bind(page);
    const goForward = page.goForward.bind(page);
    page.goto = async (url, options) => hydrated(await goto(url, options));
    page.reload = async (options) => hydrated(await reload(options));
    // History moves that load a document anew (after a reload) hydrate it again too.
    page.goBack = async (options) => hydrated(await goBack(options));
    page.goForward = async (options) => hydrated(await goForward(options));
    await provide(page);
  },
});

export { expect };

export const DASHBOARD_HEADERS = { 'X-Org-Events-Client': 'dashboard' };

/** Signs in through the form, as a person would. */
export async function signInWithForm(page: Page, key: E2eKey): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Public key').fill(key.publicKey);
  await page.getByLabel('Private key').fill(key.privateKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs in through the session endpoint (same cookie, no form) for tests about other things. */
export async function signIn(page: Page, key: E2eKey): Promise<void> {
  const { baseUrl } = readState();
  const response = await page.request.post('/api/session', {
    data: { publicKey: key.publicKey, privateKey: key.privateKey },
    headers: { Origin: baseUrl },
  });
  expect(response.status()).toBe(200);
}

export function eventsUrl(orgId: string, query = ''): string {
  return `/orgs/${orgId}/events${query ? `?${query}` : ''}`;
}

/** Event rows rendered in the table body (long pages render those in view). */
export const rows = (page: Page) => page.locator('table.events tbody tr[data-index]');

/** The event type codes of the rows on screen. */
export async function rowTypes(page: Page): Promise<string[]> {
  return rows(page).locator('td.col-type .sub').allTextContents();
}

/** The `created` instants of the rows on screen, from their <time datetime>. */
export async function rowTimes(page: Page): Promise<number[]> {
  const values = await rows(page)
    .locator('td.col-time time')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('datetime') ?? ''));
  return values.map((value) => Date.parse(value));
}

export async function rowIds(page: Page): Promise<string[]> {
  return rows(page).evaluateAll((nodes) =>
    nodes.map((node) => node.getAttribute('data-event-id') ?? ''),
  );
}

/** The total the page shows above the table, as a number. */
export async function shownTotal(page: Page): Promise<number> {
  const text = await page.getByTestId('results-count').textContent();
  return Number((text ?? '').replace(/[^0-9]/g, ''));
}

/** The seeded events a filter should return, newest first. */
export function matching(
  events: readonly E2eEvent[],
  filter: { types?: readonly string[]; min?: number; max?: number },
): E2eEvent[] {
  return events.filter(
    (event) =>
      (!filter.types?.length || filter.types.includes(event.eventTypeName)) &&
      (filter.min === undefined || event.created >= filter.min) &&
      (filter.max === undefined || event.created <= filter.max),
  );
}

/** The n most frequent event types among the seeded events. */
export function frequentTypes(events: readonly E2eEvent[], n: number): string[] {
  const counts = new Map<string, number>();
  for (const event of events)
    counts.set(event.eventTypeName, (counts.get(event.eventTypeName) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([type]) => type);
}

/**
 * The last millisecond a "to" typed as utcInputValue writes it covers: a
 * whole minute (typed without seconds) its 59.999 s, another second its
 * 999 ms (the dashboard's inclusive "to").
 */
export function inclusiveTo(millis: number): number {
  if (millis % 60_000 === 0) return millis + 59_999;
  if (millis % 1000 === 0) return millis + 999;
  return millis;
}

/** No horizontal scroll on the page itself. */
export async function pageScrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    return root.scrollWidth > root.clientWidth;
  });
}

/** yyyy-MM-ddTHH:mm[:ss] in UTC (no ":00" seconds): a form the date inputs accept. */
export function utcInputValue(millis: number): string {
  return new Date(millis).toISOString().slice(0, 19).replace(/:00$/, '');
}

/**
 * Drags across the volume chart's bars `from`..`to` (indexes, oldest first)
 * with the mouse; onto one bar alone when they are equal (a pixel's move, so
 * the chart sees a drag rather than a click).
 */
export async function dragHistogram(page: Page, from: number, to: number): Promise<void> {
  const bars = page.getByTestId('histogram');
  const count = Number(await bars.getAttribute('data-buckets'));
  const box = (await bars.boundingBox())!;
  const x = (index: number) => box.x + ((index + 0.5) * box.width) / count;
  const y = box.y + box.height / 2;
  await page.mouse.move(x(from), y);
  await page.mouse.down();
  if (from === to) {
    await page.mouse.move(x(to) + 1, y, { steps: 2 });
  } else {
    await page.mouse.move((x(from) + x(to)) / 2, y, { steps: 3 });
    await page.mouse.move(x(to), y, { steps: 3 });
  }
  await page.mouse.up();
}
