/**
 * UI benchmark (a script, not a test; nothing is asserted on time).
 *
 * With 1,000,000 events in one organization, drives the dashboard in Debian's
 * Chromium against the production server and measures, inside the page, the
 * time from a user's change to the new rows being rendered and painted:
 *
 *   filter      apply an event-type filter
 *   next page   "Next" after the page has been read (the next page is prefetched)
 *   jump        "Go to page N" for a random deep page (never prefetched)
 *   page size   switching rows per page (to sizes up to 500)
 *   facet click an event type in the facet sidebar        ┐ to rows, facets and
 *   chip        `type:X` + Enter in the query bar          │ histogram all painted
 *   histogram   the last two bars by keyboard, then Enter  ┘ for the new filters
 *
 * Every iteration first moves to a view never asked for before (a new `to`
 * bound), so no measured request is answered from the browser's cache unless
 * the design prefetched it. Two modes: within one page session (the usual
 * case: JIT and caches warm), and the first change right after a page load.
 * Prints p50/p95/max and writes bench/results/ui.json.
 *
 *   npm run build && npm run bench:ui [-- --repeat 20 --events 1000000 --only "facet click,chip"]
 *
 * The store is bench/data/store-<events>.db, reused when present (the store
 * benchmark makes the same file), otherwise seeded here once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Page, chromium } from '@playwright/test';
import { issueApiKey } from '@/lib/auth/api-keys';
import { getConfig } from '@/lib/config';
import { newObjectId } from '@/lib/domain/object-id';
import { generateEventBatches } from '@/lib/ingest/seed';
import { openStore } from '@/lib/store';
import { CHROMIUM_LAUNCH_OPTIONS } from '@/tests/helpers/chromium';
import { startOurServer } from './lib/servers';
import { machineInfo } from './lib/machine';

const ROOT = path.resolve(__dirname, '..');

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`--${name} must be a positive integer`);
  return value;
}

const EVENTS = option('events', 1_000_000);
const REPEAT = option('repeat', 20);
/** `--only "facet click,chip"`: run just these scenarios. */
const ONLY = (() => {
  const index = process.argv.indexOf('--only');
  return index >= 0 ? new Set(process.argv[index + 1]!.split(',').map((s) => s.trim())) : null;
})();
const WARMUP = 2;

type Target = {
  orgId: string;
  publicKey: string;
  privateKey: string;
  events: number;
  /** The newest event's time (ms): views end just after it, so their last bars hold events. */
  newest: number;
};

/** Reuses (or creates and seeds) the benchmark store and issues a key for this run. */
async function prepareStore(file: string): Promise<Target> {
  const existed = fs.existsSync(file);
  const store = await openStore(`file:${file}`);
  try {
    let orgId: string;
    if (existed) {
      // The org holding the events (the store benchmark names it its own way).
      const orgs = await store.listOrgs();
      const sized = await Promise.all(
        orgs.map(async (org) => ({ org, n: await store.countEvents({ orgId: org.id }) })),
      );
      const biggest = sized.sort((a, b) => b.n - a.n)[0];
      if (!biggest || biggest.n === 0)
        throw new Error(`${file} holds no events; delete it to reseed`);
      orgId = biggest.org.id;
    } else {
      orgId = newObjectId();
      await store.createOrg({ id: orgId, name: 'Benchmark Org', created: Date.now() });
      const started = Date.now();
      let inserted = 0;
      for (const batch of generateEventBatches({ orgId, count: EVENTS, seed: 1 }, 10_000)) {
        inserted += (await store.insertEvents(orgId, batch)).inserted;
        if (inserted % 100_000 < batch.length) {
          console.log(`  seeded ${inserted.toLocaleString('en-US')} events`);
        }
      }
      console.log(`  seeding took ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const key = await issueApiKey(store, {
      orgId,
      role: 'ORG_MEMBER',
      description: 'bench:ui',
      realm: getConfig().DIGEST_REALM,
    });
    const newest = await store.listEvents({
      orgId,
      offset: 0,
      limit: 1,
      includeCount: false,
      includeRaw: false,
    });
    return {
      orgId,
      publicKey: key.record.publicKey,
      privateKey: key.privateKey,
      events: await store.countEvents({ orgId }),
      newest: newest.events[0]?.created ?? Date.now(),
    };
  } finally {
    await store.close();
  }
}

type Expectation =
  | { kind: 'types'; types: string[] }
  | { kind: 'firstRowIndex'; ariaRowIndex: number }
  | { kind: 'rowCount'; count: number }
  /** The URL changed and rows, facets and histogram all show the new filters' answers. */
  | { kind: 'settled'; before: string };

type Trigger =
  | { action: 'click'; selector: string }
  | { action: 'submit'; selector: string }
  | { action: 'select'; selector: string; value: string }
  | { action: 'key'; selector: string; key: string };

type Sample = { paintedMs: number; renderedMs: number; apiMs: number | null };

/**
 * Runs in the page: fires the trigger, watches the DOM until the expected
 * rows are there (and the table is no longer busy), then waits for the next
 * frame so the time includes paint. Kept as plain JavaScript text: tsx would
 * wrap named functions in helpers the page does not have.
 */
const MEASURE_IN_PAGE = `({ trigger, expectation }) => new Promise((resolve, reject) => {
  const main = document.querySelector('main');
  const isDone = () => {
    const table = document.querySelector('table.events');
    if (!table || table.getAttribute('aria-busy') === 'true') return false;
    const rows = [...table.querySelectorAll('tbody tr[data-index]')];
    if (rows.length === 0) return false;
    if (expectation.kind === 'types') {
      return rows.every((row) => expectation.types.includes(row.querySelector('td.col-type .sub')?.textContent ?? ''));
    }
    if (expectation.kind === 'settled') {
      if (location.search === expectation.before) return false;
      const facets = document.querySelector('aside.facets');
      const histogram = document.querySelector('section.histogram');
      if (!facets || facets.getAttribute('aria-busy') === 'true') return false;
      if (!histogram || histogram.hasAttribute('data-stale')) return false;
      const total = document.querySelector('[data-testid="results-count"]')?.textContent ?? '';
      const head = histogram.querySelector('.histogram-head span')?.textContent ?? '';
      return rows[0].getAttribute('aria-rowindex') === '2' && total !== '' && head.startsWith(total + ' event');
    }
    if (expectation.kind === 'firstRowIndex') {
      return rows[0].getAttribute('aria-rowindex') === String(expectation.ariaRowIndex);
    }
    // Long pages render only the rows in view: the page's row count is on tbody.
    return table.querySelector('tbody').getAttribute('data-rows') === String(expectation.count)
      && rows[0].getAttribute('aria-rowindex') === '2';
  };
  let start = 0;
  const observer = new MutationObserver(() => {
    if (!isDone()) return;
    const rendered = performance.now();
    observer.disconnect();
    clearTimeout(timer);
    requestAnimationFrame(() => setTimeout(() => {
      const api = performance.getEntriesByType('resource')
        .filter((entry) => entry.name.includes('/api/public/') && entry.startTime >= start)
        .map((entry) => entry.duration);
      resolve({
        renderedMs: rendered - start,
        paintedMs: performance.now() - start,
        apiMs: api.length ? Math.max(...api) : null,
      });
    }, 0));
  });
  const timer = setTimeout(() => {
    observer.disconnect();
    reject(new Error('no expected rows within 15 s: ' + JSON.stringify(expectation)));
  }, 15000);
  observer.observe(main, { subtree: true, childList: true, attributes: true, characterData: true });
  const element = document.querySelector(trigger.selector);
  if (!element) { reject(new Error('no element ' + trigger.selector)); return; }
  start = performance.now();
  if (trigger.action === 'click') element.click();
  else if (trigger.action === 'submit') element.requestSubmit();
  else if (trigger.action === 'key') {
    element.dispatchEvent(new KeyboardEvent('keydown', { key: trigger.key, bubbles: true, cancelable: true }));
  }
  else {
    element.value = trigger.value;
    element.dispatchEvent(new Event('change', { bubbles: true }));
  }
})`;

async function measure(page: Page, trigger: Trigger, expectation: Expectation): Promise<Sample> {
  return page.evaluate<Sample>(`(${MEASURE_IN_PAGE})(${JSON.stringify({ trigger, expectation })})`);
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

function summarize(samples: Sample[]) {
  const painted = samples.map((s) => s.paintedMs).sort((a, b) => a - b);
  const api = samples
    .map((s) => s.apiMs)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    n: samples.length,
    p50: round(percentile(painted, 50)),
    p95: round(percentile(painted, 95)),
    max: round(painted[painted.length - 1] ?? NaN),
    apiP50: api.length ? round(percentile(api, 50)) : null,
    fetched: api.length,
    samplesMs: painted.map(round),
  };
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    throw new Error('No production build: run `npm run build` first.');
  }
  const dataDir = path.join(ROOT, 'bench', 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, `store-${EVENTS}.db`);
  console.log(
    `Store: ${path.relative(ROOT, file)}${fs.existsSync(file) ? ' (reused)' : ' (seeding…)'}`,
  );
  const target = await prepareStore(file);
  console.log(`Org ${target.orgId}: ${target.events.toLocaleString('en-US')} events`);

  const server = await startOurServer({
    DATABASE_URL: `file:${file}`,
    NEXT_TELEMETRY_DISABLED: '1',
  });
  const browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
  try {
    const context = await browser.newContext({
      baseURL: server.baseUrl,
      viewport: { width: 1440, height: 900 },
    });
    const signIn = await context.request.post('/api/session', {
      data: { publicKey: target.publicKey, privateKey: target.privateKey },
      headers: { Origin: server.baseUrl },
    });
    if (signIn.status() !== 200) throw new Error(`sign-in failed: ${signIn.status()}`);
    const typesResponse = await context.request.get(
      `/api/public/v1.0/orgs/${target.orgId}/eventTypes`,
      { headers: { 'X-Org-Events-Client': 'dashboard' } },
    );
    const types = (
      (await typesResponse.json()) as { results: { eventTypeName: string; count: number }[] }
    ).results
      .filter((t) => t.count > 0)
      .sort((a, b) => b.count - a.count)
      .map((t) => t.eventTypeName);

    const page = await context.newPage();
    const eventsUrl = `/orgs/${target.orgId}/events`;
    const settled = async () => {
      await page
        .locator('table.events[aria-busy="false"] tbody tr[data-index="0"][aria-rowindex="2"]')
        .waitFor();
      // Idle time: the next page gets prefetched, as it would while someone reads.
      await page.waitForTimeout(700);
    };

    // Every measured change must reach the server, so each iteration first
    // moves to a view nobody asked for yet: its `to` bound is one minute
    // earlier than the last one's.
    let unique = 0;
    const nextTo = () => {
      unique += 1;
      // Anchored at the newest event (a store seeded long ago ends long before now).
      return new Date(target.newest + 60_000 - unique * 60_000).toISOString().slice(0, 16);
    };
    /** In the open page, through the date filter, as a user would. */
    const uniqueViewInSession = async () => {
      const to = nextTo();
      await page.getByRole('button', { name: 'Custom…' }).click();
      await page.getByLabel('To (UTC)').fill(to);
      await page.getByRole('button', { name: 'Apply dates' }).click();
      await page.waitForURL((url) => url.search.includes(`to=${to}`));
      await settled();
    };
    /** A full page load: the change measured next is the page's first. */
    const uniqueViewAfterLoad = async () => {
      await page.goto(`${eventsUrl}?to=${nextTo()}Z`);
      await settled();
    };

    /** Rows, facets and histogram all answered for the current view. */
    const settledAll = async () => {
      await settled();
      await page.locator('aside.facets[aria-busy="false"] .facet-value').first().waitFor();
      await page.locator('section.histogram:not([data-stale]) .histogram-bar').first().waitFor();
    };
    /** Back to no field filters (keeping the view's unique dates), all answered. */
    const clearFilters = async () => {
      const clear = page.locator('.query-bar').getByRole('button', { name: 'Clear' });
      if (await clear.count()) await clear.click();
      await settledAll();
    };
    const search = () => page.evaluate(() => window.location.search);

    type Scenario = { name: string; act: (i: number) => Promise<Sample> };
    const scenarios: Scenario[] = [
      {
        name: 'filter',
        act: async (i) => {
          const type = types[i % Math.min(types.length, 24)]!;
          await page.getByRole('button', { name: /^Event types:/ }).click();
          const picker = page.getByRole('dialog', { name: 'Filter by event type' });
          await picker.getByRole('button', { name: 'Clear' }).click();
          await picker.getByLabel('Search event types').fill(type);
          await picker.getByRole('checkbox', { name: new RegExp(`\\b${type}\\b`) }).check();
          return measure(
            page,
            { action: 'click', selector: '.popover footer .button.primary' },
            { kind: 'types', types: [type] },
          );
        },
      },
      {
        name: 'next page',
        act: () =>
          measure(
            page,
            { action: 'click', selector: 'button[aria-label="Next page"]' },
            { kind: 'firstRowIndex', ariaRowIndex: 50 + 2 },
          ),
      },
      {
        name: 'jump',
        act: async (i) => {
          const lastPage = Math.ceil((target.events * 0.9) / 50);
          const pageNumber = 2 + ((i * 7919 + unique * 104_729) % (lastPage - 1));
          await page.getByLabel('Go to page').fill(String(pageNumber));
          return measure(
            page,
            { action: 'submit', selector: 'nav.pagination form' },
            { kind: 'firstRowIndex', ariaRowIndex: (pageNumber - 1) * 50 + 2 },
          );
        },
      },
      {
        name: 'page size',
        act: async (i) => {
          const size = ['500', '100', '200', '25'][i % 4]!;
          return measure(
            page,
            { action: 'select', selector: 'nav.pagination select', value: size },
            { kind: 'rowCount', count: Number(size) },
          );
        },
      },
      {
        name: 'facet click',
        act: async (i) => {
          await clearFilters();
          const before = await search();
          return measure(
            page,
            {
              action: 'click',
              selector: `.facet[data-field="eventTypeName"] li:nth-child(${1 + (i % 5)}) .facet-value`,
            },
            { kind: 'settled', before },
          );
        },
      },
      {
        name: 'chip',
        act: async (i) => {
          await clearFilters();
          const type = types[(i * 5) % Math.min(types.length, 24)]!;
          await page.getByRole('combobox', { name: /Filter events/ }).fill(`type:${type}`);
          const before = await search();
          return measure(
            page,
            { action: 'key', selector: '.query-input', key: 'Enter' },
            { kind: 'settled', before },
          );
        },
      },
      {
        name: 'histogram',
        act: async (i) => {
          // The bars' boundaries do not move with the unique `to`, so in a
          // session the view to select from is made unique another way: one
          // rare type left out (a change the history API makes, as back does).
          if (inSession) {
            const rare = types[types.length - 1 - (i % types.length)]!;
            await page.evaluate(
              ([to, type]) => {
                window.history.pushState(
                  window.history.state,
                  '',
                  `?to=${to}Z&excludeTypes=${type}`,
                );
                window.dispatchEvent(new PopStateEvent('popstate'));
              },
              [nextTo(), rare] as const,
            );
          }
          await settledAll();
          await page.getByTestId('histogram').focus();
          await page.keyboard.press('ArrowLeft');
          await page.keyboard.press('Shift+ArrowLeft');
          const before = await search();
          return measure(
            page,
            { action: 'key', selector: '[data-testid="histogram"]', key: 'Enter' },
            { kind: 'settled', before },
          );
        },
      },
    ];

    const results: Record<string, Record<string, ReturnType<typeof summarize>>> = {
      session: {},
      afterLoad: {},
    };
    const modes = [
      {
        key: 'session',
        title: 'In a session (one page load, then change after change)',
        prepare: uniqueViewInSession,
      },
      {
        key: 'afterLoad',
        title: 'First change after a page load (cold JIT and caches)',
        prepare: uniqueViewAfterLoad,
      },
    ] as const;
    let inSession = false;
    for (const mode of modes) {
      inSession = mode.key === 'session';
      console.log(`\n${mode.title}`);
      for (const scenario of scenarios.filter((s) => !ONLY || ONLY.has(s.name))) {
        // Each scenario starts from the plain list (50 rows, no filter).
        await page.goto(eventsUrl);
        await settled();
        const samples: Sample[] = [];
        for (let i = 0; i < WARMUP + REPEAT; i++) {
          await mode.prepare();
          const sample = await scenario.act(i);
          if (i >= WARMUP) samples.push(sample);
        }
        const r = summarize(samples);
        results[mode.key]![scenario.name] = r;
        console.log(
          `  ${scenario.name.padEnd(10)} p50 ${String(r.p50).padStart(6)} ms   p95 ${String(r.p95).padStart(6)} ms   max ${String(r.max).padStart(6)} ms   (API p50 ${r.apiP50 ?? '—'} ms, ${r.fetched}/${r.n} fetched)`,
        );
      }
    }

    const report = {
      benchmark: 'ui',
      date: new Date().toISOString(),
      events: target.events,
      repeat: REPEAT,
      goalMs: 150,
      machine: machineInfo(),
      measure:
        'change (click/submit/select) to the expected rows rendered and the next frame painted, in the page; each change asks for a view not seen before',
      results,
    };
    const out = path.join(ROOT, 'bench', 'results', 'ui.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`Wrote ${path.relative(ROOT, out)}`);
  } finally {
    await browser.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
