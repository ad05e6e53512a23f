import fs from 'node:fs';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import {
  eventsUrl,
  expect,
  frequentTypes,
  matching,
  rowIds,
  shownTotal,
  signIn,
  test,
} from './support/fixtures';
import { orgOfItsOwn, ownOrgsKey } from './support/orgs';

const NUMBER = new Intl.NumberFormat('en-US');

test.describe('the Export control', () => {
  test.beforeEach(async ({ page, state }) => {
    await signIn(page, state.keys.member);
  });

  test('a filter matching nothing offers nothing to export, not an empty file', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId, 'q=zzzqqxnothingmatchesthis'));
    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    await expect(dialog.getByTestId('export-count')).toHaveText(
      '0 events under the current filters.',
    );
    await expect(dialog.getByRole('button', { name: 'Nothing to export' })).toBeDisabled();
  });

  test('while the server streams all the exports it allows, the count says so and comes once one ends', async ({
    page,
    state,
  }) => {
    // The first count (a HEAD, then the GET that reads the refusal) meets a
    // server at its limit; later requests go through.
    let refused = 0;
    await page.route('**/api/public/v1.0/orgs/*/events/export?*', (route) => {
      if (refused >= 2) return route.continue();
      refused++;
      return route.fulfill({
        status: 429,
        headers: { 'Retry-After': '1', 'Content-Type': 'application/json' },
        body: '{"detail":"4 exports are under way; retry in 5 seconds.","error":429,"errorCode":"TOO_MANY_EXPORTS","parameters":[],"reason":"Too Many Requests"}',
      });
    });
    await page.goto(eventsUrl(state.orgId));
    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    await expect(dialog.getByTestId('export-count')).toHaveText(
      'The server is streaming as many exports as it allows: counting again in 1 s…',
    );
    await expect(dialog.getByTestId('export-count')).toHaveText(
      `${NUMBER.format(state.events.length)} events under the current filters.`,
    );
    expect(refused).toBe(2);
  });

  test('shows the count first, then the browser downloads exactly the filtered events as NDJSON from the API', async ({
    page,
    state,
  }) => {
    const types = frequentTypes(state.events, 2);
    const expected = matching(state.events, { types });
    await page.goto(eventsUrl(state.orgId, `types=${types.join(',')}`));
    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    await expect(dialog.getByTestId('export-count')).toHaveText(
      `${NUMBER.format(expected.length)} events under the current filters.`,
    );
    await dialog.getByLabel('Include raw documents').check();
    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: /^Export [\d,]+ events$/ }).click();
    const download = await downloading;
    // The browser's own download of the export URL (streamed to disk), not a file built in the page.
    expect(new URL(download.url()).pathname).toBe(
      `/api/public/v1.0/orgs/${state.orgId}/events/export`,
    );
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^events-.*${state.orgId}-beginning--\\d{8}T\\d{6}Z\\.ndjson$`),
    );
    const text = fs.readFileSync(await download.path(), 'utf8');
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((event) => event.id)).toEqual(expected.map((event) => event.id));
    expect(lines.every((event) => types.includes(event.eventTypeName as string))).toBe(true);
    const withRaw = expected.filter((event) => event.rawKeys !== null).length;
    expect(lines.filter((event) => event.raw !== undefined)).toHaveLength(withRaw);
    await expect(dialog.getByTestId('export-status')).toHaveText(
      `Downloading ${NUMBER.format(expected.length)} events as ${download.suggestedFilename()}: your browser's downloads show its progress and can cancel it.`,
    );
  });

  test('Cancel export before the download starts says so in the status line, not a blank one', async ({
    page,
    state,
  }) => {
    await page.goto(eventsUrl(state.orgId));
    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    await expect(dialog.getByTestId('export-count')).toHaveText(
      `${NUMBER.format(state.events.length)} events under the current filters.`,
    );
    // The export's check (its HEAD) gets no answer, so it is still under way when cancelled.
    await page.route('**/api/public/v1.0/orgs/*/events/export?*', () => {});
    let downloads = 0;
    page.on('download', () => downloads++);
    await dialog.getByRole('button', { name: /^Export [\d,]+ events$/ }).click();
    const status = dialog.getByTestId('export-status');
    await expect(status).toHaveText('Starting the export…');
    await dialog.getByRole('button', { name: 'Cancel export' }).click();
    await expect(status).toHaveText(
      'Export cancelled before the download started: nothing was written.',
    );
    await expect(status).toHaveAttribute('role', 'status');
    await expect(dialog.getByRole('button', { name: /^Export [\d,]+ events$/ })).toBeEnabled();
    expect(downloads).toBe(0);
  });

  test('CSV: a header and one record per filtered event', async ({ page, state }) => {
    const types = frequentTypes(state.events, 1);
    const expected = matching(state.events, { types });
    await page.goto(eventsUrl(state.orgId, `types=${types.join(',')}`));
    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    await dialog.getByRole('radio', { name: /^CSV/ }).check();
    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: /^Export [\d,]+ events$/ }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/\.csv$/);
    expect(new URL(download.url()).searchParams.get('format')).toBe('csv');
    const records = fs.readFileSync(await download.path(), 'utf8').split('\r\n');
    expect(records[0]).toMatch(/^id,created,eventTypeName,/);
    // Seeded fields hold no line breaks: a record is a line here.
    const ids = records.slice(1, -1).map((record) => record.split(',')[0]);
    expect(ids).toEqual(expected.map((event) => event.id));
  });
});

test('an event dated in the future is in the table, so in the export count and file', async ({
  page,
  state,
}) => {
  // An org of its own: the seeded ones stay as the other specs (live.spec
  // adds events to the second one) expect while this one counts.
  const store = await openStore(state.databaseUrl);
  try {
    const orgId = await orgOfItsOwn(store, state, 'Future export');
    const created = Date.parse('2027-06-01T00:00:00Z');
    const past = encodeEvent(orgId, {
      id: objectIdAt(Date.UTC(2026, 0, 1), 'e0e0e0e0e0e0e0e1'),
      created: new Date(Date.UTC(2026, 0, 1)).toISOString(),
      eventTypeName: 'JOINED_ORG',
      username: 'export-past@example.com',
    });
    const future = encodeEvent(orgId, {
      id: objectIdAt(created, 'e0e0e0e0e0e0e0e0'),
      created: new Date(created).toISOString(),
      eventTypeName: 'JOINED_ORG',
      username: 'export-future@example.com',
    });
    await store.insertEvents(orgId, [past, future]);
    await signIn(page, ownOrgsKey(state));
    await page.goto(eventsUrl(orgId));
    await expect.poll(async () => (await rowIds(page))[0]).toBe(future.id);
    const total = await shownTotal(page);

    await page.getByRole('button', { name: 'Export ▾' }).click();
    const dialog = page.getByRole('dialog', { name: 'Export events' });
    await expect(dialog.getByTestId('export-count')).toHaveText(
      `${NUMBER.format(total)} events under the current filters.`,
    );
    await page.screenshot({ path: 'test-results/e2e/export-future-row.png' });
    const downloading = page.waitForEvent('download');
    await dialog.getByRole('button', { name: /^Export [\d,]+ events$/ }).click();
    const download = await downloading;
    const ids = fs
      .readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { id: string }).id);
    expect(total).toBe(2);
    expect(ids).toEqual([future.id, past.id]);
  } finally {
    await store.close();
  }
});
