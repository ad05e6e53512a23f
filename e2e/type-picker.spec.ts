import { categoryOf, eventCategories } from '../lib/domain/catalog';
import { TYPES_PER_CATEGORY_CHIP } from '../lib/client/query-syntax';
import { PINNED_VALUES_SHOWN } from '../components/events/facet-sidebar';
import { eventsUrl, expect, frequentTypes, shownTotal, signIn, test } from './support/fixtures';

/**
 * "Exclude" on a category of the type picker leaves its types out with
 * `-type:` chips (the API's excludeEventType), as the type facet's "−"
 * does; it listed every other type instead, some 300 include chips.
 */
test('excluding a category in the type picker leaves its types out, and taking one back', async ({
  page,
  state,
}) => {
  const [top] = frequentTypes(state.events, 1);
  const category = categoryOf(top!)!.name;
  const inCategory = [
    ...new Set(
      state.events
        .map((event) => event.eventTypeName)
        .filter((type) => categoryOf(type)?.name === category),
    ),
  ].sort();
  const others = state.events.filter((event) => !inCategory.includes(event.eventTypeName));
  expect(others.length).toBeGreaterThan(0);

  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId));
  await page.getByRole('button', { name: /^Event types:/ }).click();
  const picker = page.getByRole('dialog', { name: 'Filter by event type' });
  await picker.getByRole('button', { name: `Exclude ${category}`, exact: true }).click();
  await picker.getByRole('button', { name: 'Apply' }).click();
  await expect(picker).toBeHidden();

  await expect.poll(() => shownTotal(page)).toBe(others.length);
  const url = new URL(page.url());
  expect(url.searchParams.get('types')).toBeNull();
  expect(url.searchParams.get('excludeTypes')?.split(',').sort()).toEqual(inCategory);
  // Fewer than TYPES_PER_CATEGORY_CHIP types: a chip each (more share one, below).
  expect(inCategory.length).toBeLessThan(TYPES_PER_CATEGORY_CHIP);
  await expect(page.getByTestId('query-chip')).toHaveText(inCategory.map((t) => `-type:${t}✕`));
  await expect(page.getByRole('button', { name: /^Event types:/ })).toHaveAccessibleName(
    `Event types: All but ${inCategory.length} event ${inCategory.length === 1 ? 'type' : 'types'}`,
  );

  // The picker shows what is left out; ticking one takes it back in.
  await page.getByRole('button', { name: /^Event types:/ }).click();
  const excluded = picker.getByTestId('picker-excluded');
  await expect(excluded).toContainText(`Left out (${inCategory.length})`);
  await expect(excluded.getByRole('checkbox')).toHaveCount(inCategory.length);
  // Unticked, it leaves the list (so click, not uncheck, which would wait for it unticked).
  await excluded.getByRole('checkbox', { name: new RegExp(`\\b${top}$`) }).click();
  await expect(excluded.getByRole('checkbox')).toHaveCount(inCategory.length - 1);
  await picker.getByRole('button', { name: 'Apply' }).click();
  await expect
    .poll(() => shownTotal(page))
    .toBe(
      state.events.filter((e) => !inCategory.includes(e.eventTypeName) || e.eventTypeName === top)
        .length,
    );
  expect(new URL(page.url()).searchParams.get('excludeTypes')?.split(',').sort()).toEqual(
    inCategory.filter((type) => type !== top),
  );
});

/**
 * A whole category left out (80 Billing types) shows as one chip, whose ✕
 * takes them all back; the bar had a chip per type, filling the page.
 */
test('a category left out shows as one chip, removed whole', async ({ page, state }) => {
  const billing = eventCategories('hosted').find((category) => category.name === 'Billing')!;
  expect(billing.types.length).toBeGreaterThanOrEqual(TYPES_PER_CATEGORY_CHIP);
  const kept = state.events.filter((event) => !billing.types.includes(event.eventTypeName));
  expect(kept.length).toBeLessThan(state.events.length);

  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, `excludeTypes=${billing.types.join(',')}`));
  const chip = page.getByTestId('query-chip');
  await expect(chip).toHaveText([`-type:Billing (${billing.types.length} types)✕`]);
  await expect(chip).toHaveAttribute(
    'title',
    /^Account downgraded, Account modified, .*, Wire transfer payment received$/,
  );
  await expect.poll(() => shownTotal(page)).toBe(kept.length);
  // The type facet lists the first few left out, not all 80 above its counts.
  const typeFacet = page.locator('section.facet[data-field="eventTypeName"]');
  await expect(typeFacet.getByTestId('facet-not-shown')).toHaveText(
    `${billing.types.length - PINNED_VALUES_SHOWN} more chosen or left out: see the filter bar`,
  );
  await expect(typeFacet.locator('li.facet-row[data-excluded]')).toHaveCount(PINNED_VALUES_SHOWN);

  await page
    .getByRole('button', { name: `Remove excluded ${billing.types.length} Billing event types` })
    .click();
  await expect(chip).toHaveCount(0);
  await expect.poll(() => shownTotal(page)).toBe(state.events.length);
  expect(new URL(page.url()).searchParams.get('excludeTypes')).toBeNull();
});

/**
 * The picker's counts are those of the page's filters (its types apart), as
 * the facets beside it are; they were all-time counts.
 */
test("the type picker counts the page's filters", async ({ page, state }) => {
  const actor = 'ada@example.com';
  const mine = state.events.filter((event) =>
    ['username', 'userId', 'publicKey', 'apiKeyId'].some((field) => event.fields[field] === actor),
  );
  const [top] = frequentTypes(mine, 1);
  const count = (events: typeof state.events) =>
    events.filter((event) => event.eventTypeName === top).length;
  expect(count(mine)).toBeLessThan(count(state.events));

  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId, `actor=${actor}`));
  await page.getByRole('button', { name: /^Event types:/ }).click();
  const picker = page.getByRole('dialog', { name: 'Filter by event type' });
  const option = picker.locator('label.type-option', {
    has: page.locator('.type-code', { hasText: new RegExp(`^${top}$`) }),
  });
  await expect(option.locator('.type-count')).toHaveText(count(mine).toLocaleString('en-US'));
});

/**
 * Under a search, a category's "Exclude" leaves out the types the category
 * lists, as its "All" chooses them: it left out the category's other types
 * too, which the search hid (searching "API key deleted" and excluding its
 * category left "API key created" out as well).
 */
test('under a search, Exclude on a category leaves out the types it lists', async ({
  page,
  state,
}) => {
  const type = 'API_KEY_DELETED';
  const category = categoryOf(type)!.name;
  const hidden = [
    ...new Set(
      state.events
        .map((event) => event.eventTypeName)
        .filter((other) => other !== type && categoryOf(other)?.name === category),
    ),
  ];
  // The category holds other seeded types, which the search hides.
  expect(hidden.length).toBeGreaterThan(0);

  await signIn(page, state.keys.member);
  await page.goto(eventsUrl(state.orgId));
  await page.getByRole('button', { name: /^Event types:/ }).click();
  const picker = page.getByRole('dialog', { name: 'Filter by event type' });
  await picker.getByLabel('Search event types').fill('API key deleted');
  await expect(picker.getByRole('checkbox', { name: new RegExp(`\\b${type}$`) })).toBeVisible();
  for (const other of hidden) {
    await expect(picker.getByRole('checkbox', { name: new RegExp(`\\b${other}$`) })).toHaveCount(0);
  }
  await picker.getByRole('button', { name: `Exclude ${category}`, exact: true }).click();
  await picker.getByRole('button', { name: 'Apply' }).click();
  await expect(picker).toBeHidden();

  expect(new URL(page.url()).searchParams.get('excludeTypes')).toBe(type);
  await expect
    .poll(() => shownTotal(page))
    .toBe(state.events.filter((event) => event.eventTypeName !== type).length);
});
