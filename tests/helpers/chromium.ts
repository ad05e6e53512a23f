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
  ],
};
