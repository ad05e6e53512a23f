import { newObjectId, objectIdAt } from '@/lib/domain/object-id';
import { toNewEvent } from '@/lib/ingest/import';
import { openStore } from '@/lib/store';
import { eventsUrl, expect, rows, signIn, test } from './support/fixtures';
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

async function orgWithExactRaws(state: E2eState): Promise<string> {
  const store = await openStore(state.databaseUrl);
  try {
    const orgId = newObjectId();
    await store.createOrg({ id: orgId, name: 'Exact raw', created: Date.now() });
    const member = await store.getApiKeyByPublicKey(state.keys.member.publicKey);
    await store.grantRole({
      orgId,
      apiKeyId: member!.id,
      role: 'ORG_MEMBER',
      created: Date.now(),
    });
    const base = Date.UTC(2026, 0, 1);
    const events = RAWS.map((raw, i) => {
      const id = objectIdAt(base + i * 1000, `e${i}`.padStart(16, '0'));
      const text = `{"created":"${new Date(base + i * 1000).toISOString()}","eventTypeName":"JOINED_ORG","id":"${id}","isGlobalAdmin":false,"raw":${raw}}`;
      const event = toNewEvent(JSON.parse(text), orgId, false, text);
      if (typeof event === 'string') throw new Error(event);
      return event;
    });
    await store.insertEvents(orgId, events);
    return orgId;
  } finally {
    await store.close();
  }
}

test('the Raw tab and Compare show raw documents exactly as recorded', async ({
  page,
  state,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const orgId = await orgWithExactRaws(state);
  await signIn(page, state.keys.member);
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
