import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH_OPTIONS } from './tests/helpers/chromium';

/**
 * The dashboard's browser suite: Debian's Chromium against the production
 * build (`npm run build` first), served by the real server on a fresh
 * database that e2e/global-setup.ts creates and seeds.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results/e2e',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  // Two workers (files side by side, a file's tests in order): with one,
  // the suite kept half a core busy (199 s wall, 106 CPU-seconds), waiting
  // on the browser and the server in turn. A spec that adds events does so
  // in an org of its own (e2e/support/orgs.ts) or in the second org, which
  // only live.spec counts.
  workers: 2,
  // A flaky test is a bug to fix at its cause, not to retry away.
  retries: 0,
  forbidOnly: Boolean(process.env.CI),
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    timezoneId: 'UTC',
    locale: 'en-US',
    // A failed test keeps its trace: the page's DOM at every step, enough to
    // see what it showed. Not the screencast: recording every frame of every
    // test, passing or not, was a sixth of the suite's time on two cores
    // (e2e/events.spec.ts 127 s with it, 107 s without, 90 s with no trace).
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: true, sources: false },
    launchOptions: CHROMIUM_LAUNCH_OPTIONS,
  },
  projects: [{ name: 'chromium' }],
});
