import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Features of Chromium turned off besides Playwright's own. Chromium 156
 * starts with every window (each Playwright context opens one) a renderer
 * for the address bar's popup, a WebUI page (chrome://omnibox-popup.top-chrome)
 * that a headless browser never shows: in the e2e suite it took about a
 * sixth of the browser's CPU on a machine whose two cores the suite keeps busy.
 */
const DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

/**
 * The `--disable-features` switch Playwright launches Chromium with. Chromium
 * reads only the last one on its command line, so a second would drop
 * Playwright's list (PaintHolding, RenderDocument, HttpsUpgrades...) for
 * ours: the one passed holds both, and Playwright's is left out. Its list
 * is internal to playwright-core, read from the installed version's file.
 */
function playwrightDisableFeatures(): string {
  const root = path.dirname(createRequire(__filename).resolve('playwright-core/package.json'));
  const { chromiumSwitches } = createRequire(__filename)(
    path.join(root, 'lib/server/chromium/chromiumSwitches.js'),
  ) as { chromiumSwitches: (assistantMode?: boolean) => string[] };
  const found = chromiumSwitches(false).find((arg) => arg.startsWith('--disable-features='));
  if (!found) throw new Error("playwright-core's Chromium switches hold no --disable-features");
  return found;
}

const playwrightDisabled = playwrightDisableFeatures();

/**
 * How every browser here is launched: Debian's Chromium (Playwright cannot
 * download its own on these machines), with the flags that keep it from
 * reaching for the closed network at start.
 */
export const CHROMIUM_LAUNCH_OPTIONS = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `${playwrightDisabled},${DISABLED_FEATURES.join(',')}`,
  ],
  ignoreDefaultArgs: [playwrightDisabled],
};
