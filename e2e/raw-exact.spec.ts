import { objectIdAt } from '@/lib/domain/object-id';
import type { Locator } from '@playwright/test';
import { eventsUrl, expect, rows, signIn, test } from './support/fixtures';
import { importedEvent, orgWithEvents, ownOrgsKey } from './support/orgs';
import type { E2eState } from './support/state';

/**
 * Raw documents as recorded, in the Raw tab and in Compare: numbers that
 * JSON.parse changes (9007199254740993 became ...992, 1.0 became 1, 1e400
 * Infinity), and key order (integer-like keys moved to the front). The two
 * events go to an organization of their own, so the seeded ones stay what
 * the other suites expect.
 */
const RAWS = [
  '{"z":1,"2":"two","accountId":9007199254740993,"one":1.0,"neg":-0.0,"huge":1e400,"name":"\\u00e9"}',
  '{"z":1,"2":"two","accountId":9007199254740992,"one":1.0,"neg":-0.0,"huge":1e400,"name":"é"}',
];

function orgWithExactRaws(state: E2eState): Promise<string> {
  const base = Date.UTC(2026, 0, 1);
  return orgWithEvents(state, 'Exact raw', (orgId) =>
    RAWS.map((raw, i) => {
      const id = objectIdAt(base + i * 1000, `e${i}`.padStart(16, '0'));
      return importedEvent(
        orgId,
        `{"created":"${new Date(base + i * 1000).toISOString()}","eventTypeName":"JOINED_ORG","id":"${id}","isGlobalAdmin":false,"raw":${raw}}`,
      );
    }),
  );
}

test('the Raw tab and Compare show raw documents exactly as recorded', async ({
  page,
  state,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const orgId = await orgWithExactRaws(state);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId, 'from=2025-12-31&to=2026-01-02'));
  await expect(rows(page)).toHaveCount(2);

  // The older event (…993), newest first in the table.
  await rows(page).nth(1).click();
  const panel = page.getByRole('dialog');
  await panel.getByRole('tab', { name: 'Raw' }).click();
  const tree = panel.getByRole('group', { name: 'Raw document' });
  await expect(tree).toBeVisible();
  const leaves = tree.locator('.json-leaf');
  await expect(leaves).toHaveText([
    '"z": 1,',
    '"2": "two",',
    '"accountId": 9007199254740993,',
    '"one": 1.0,',
    '"neg": -0.0,',
    '"huge": 1e400,',
    '"name": "\\u00e9"',
  ]);
  await panel.getByRole('button', { name: 'Copy raw JSON' }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(
    [
      '{',
      '  "z": 1,',
      '  "2": "two",',
      '  "accountId": 9007199254740993,',
      '  "one": 1.0,',
      '  "neg": -0.0,',
      '  "huge": 1e400,',
      '  "name": "\\u00e9"',
      '}',
    ].join('\n'),
  );
  await panel.getByRole('button', { name: 'Close event details' }).click();

  // Compare: the ids differ by one in the last digit, which JSON.parse loses.
  for (const index of [0, 1]) await rows(page).nth(index).locator('input.pick').check();
  await page.getByTestId('compare-bar').getByRole('button', { name: 'Compare' }).click();
  const dialog = page.getByRole('dialog', { name: 'Compare two events' });
  const raw = dialog.getByRole('table', { name: 'Raw documents' });
  const row = (path: string) => raw.locator(`tbody tr[data-path="${path}"]`);
  await expect(row('raw.accountId')).toHaveAttribute('data-differs', 'true');
  await expect(row('raw.accountId')).toContainText('9007199254740993');
  await expect(row('raw.accountId')).toContainText('9007199254740992');
  // The same string written two ways is the same value.
  await expect(row('raw.name')).not.toHaveAttribute('data-differs', 'true');
  await expect(row('raw.one')).toContainText('1.0');
});

/** A top-level field named "__proto__", as an import keeps it, with one in its raw document too. */
async function orgWithProtoField(state: E2eState): Promise<{ orgId: string; eventId: string }> {
  const created = Date.UTC(2026, 0, 1);
  const eventId = objectIdAt(created, '0000000000000001');
  const orgId = await orgWithEvents(state, 'Proto field', (orgId) => [
    importedEvent(
      orgId,
      `{"__proto__":{"username":"ceo@example.com"},"created":"${new Date(created).toISOString()}","eventTypeName":"JOINED_ORG","id":"${eventId}","raw":{"__proto__":{"isAdmin":true}}}`,
    ),
  ]);
  return { orgId, eventId };
}

test('a field named "__proto__" shows as served, on the event\'s page and in the panel', async ({
  page,
  state,
}) => {
  const { orgId, eventId } = await orgWithProtoField(state);
  await signIn(page, ownOrgsKey(state));
  const shownAsServed = async (detail: Locator) => {
    const others = detail.locator('section', {
      has: page.getByRole('heading', { name: 'Other fields' }),
    });
    await expect(others.locator('dt')).toHaveText(['__proto__']);
    await expect(others.locator('dd')).toHaveText(['{"username":"ceo@example.com"}']);
    // Its fields are not the event's: no actor.
    await expect(detail.getByText('ceo@example.com (user)')).toHaveCount(0);
    await detail.getByRole('tab', { name: 'Raw' }).click();
    const tree = detail.getByRole('group', { name: 'Raw document' });
    await expect(tree.locator('.json-leaf')).toHaveText(['"isAdmin": true']);
    await expect(tree).toContainText('"__proto__"');
  };

  // Rendered on the server, then hydrated.
  await page.goto(`/orgs/${orgId}/events/${eventId}`);
  await shownAsServed(page.locator('main'));

  await page.goto(eventsUrl(orgId, 'from=2025-12-31&to=2026-01-02'));
  await expect(rows(page)).toHaveCount(1);
  await rows(page).first().click();
  await shownAsServed(page.getByRole('dialog'));
});

test('a raw document nested 95 levels, all expanded, keeps its text readable: the tree scrolls sideways', async ({
  page,
  state,
}) => {
  let raw = '{"leaf":"bottom"}';
  for (let i = 0; i < 95; i++) raw = `{"level${i}":${raw},"arr":[1,[2,[3]]]}`;
  const created = Date.UTC(2026, 0, 1);
  const id = objectIdAt(created, '0000000000000d95');
  const orgId = await orgWithEvents(state, 'Deep raw', (orgId) => [
    importedEvent(
      orgId,
      `{"created":"${new Date(created).toISOString()}","eventTypeName":"JOINED_ORG","id":"${id}","raw":${raw}}`,
    ),
  ]);
  await signIn(page, ownOrgsKey(state));
  await page.goto(eventsUrl(orgId));
  await rows(page).first().click();
  const panel = page.getByRole('dialog');
  await panel.getByRole('tab', { name: 'Raw' }).click();
  await panel.getByRole('button', { name: 'Expand all' }).click();
  const tree = panel.getByRole('group', { name: 'Raw document' });
  const leaf = tree.locator('.json-leaf', { hasText: '"leaf"' });
  await leaf.scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'test-results/e2e/raw-deep-expanded.png' });
  // One line, not a character a line; the deepest key's summary too.
  const box = (await leaf.boundingBox())!;
  expect(box.height).toBeLessThan(25);
  const summary = tree.locator('summary', { hasText: '"level0"' });
  expect((await summary.boundingBox())!.height).toBeLessThan(25);
  expect(await tree.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
});
