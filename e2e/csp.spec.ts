import type { Page, Response } from '@playwright/test';
import { eventsUrl, expect, rows, signInWithForm, test } from './support/fixtures';

/**
 * The dashboard's Content-Security-Policy is a strict, nonce-based one
 * (lib/http/content-security-policy.ts): scripts run only with this
 * response's nonce, or loaded by one that has it ('strict-dynamic'); no
 * inline script without it. Every page must still load and hydrate with it
 * and report no violation.
 */

type Violation = { directive: string; blocked: string };

/** Every CSP violation the page reports, as events and as console errors. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const console: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) console.push(message.text());
  });
  // Playwright's init scripts run whatever the page's policy (it adds them itself).
  await page.addInitScript(() => {
    const seen: Violation[] = [];
    (window as unknown as { cspViolations: Violation[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push({ directive: event.violatedDirective, blocked: event.blockedURI }),
    );
  });
  return async () => {
    const events = await page.evaluate(
      () => (window as unknown as { cspViolations?: Violation[] }).cspViolations ?? [],
    );
    return [...console, ...events.map((v) => `${v.directive} blocked ${v.blocked}`)];
  };
}

/** The script-src directive of a response's policy, and its nonce. */
function scriptPolicy(response: Response | null): { scriptSrc: string; nonce: string } {
  const policy = response?.headers()['content-security-policy'] ?? '';
  const scriptSrc = policy.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
  const nonce = /'nonce-([A-Za-z0-9+/_=-]+)'/.exec(scriptSrc)?.[1] ?? '';
  return { scriptSrc: scriptSrc.trim(), nonce };
}

/** Every <script> of the document carries the response's nonce. */
async function expectScriptsCarry(page: Page, nonce: string): Promise<void> {
  const nonces = await page.evaluate(() => [...document.scripts].map((script) => script.nonce));
  expect(nonces.length).toBeGreaterThan(0);
  expect(nonces.filter((each) => each !== nonce)).toEqual([]);
}

test('sign-in, the organizations, events and event pages load and hydrate under a nonce-based policy with no violation; each response has its own nonce', async ({
  page,
  state,
}) => {
  const violations = await watchViolations(page);

  const signInPage = await page.goto('/sign-in');
  const first = scriptPolicy(signInPage);
  expect(first.scriptSrc).toMatch(
    /^script-src 'self' 'nonce-[A-Za-z0-9+/_=-]{16,}' 'strict-dynamic'$/,
  );
  expect(first.scriptSrc).not.toContain('unsafe-inline');
  await expectScriptsCarry(page, first.nonce);
  const again = scriptPolicy(await page.reload());
  expect(again.nonce).not.toBe('');
  expect(again.nonce).not.toBe(first.nonce);

  // The form, through the page's own script, to the events page.
  await signInWithForm(page, state.keys.member);
  await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events$`));
  await expect(rows(page).first()).toBeVisible();

  const list = await page.goto(eventsUrl(state.orgId));
  await expectScriptsCarry(page, scriptPolicy(list).nonce);
  await expect(rows(page).first()).toBeVisible();
  // The list's script works: a row opens its details beside the list.
  const event = state.events[0]!;
  await rows(page).first().click();
  await expect(page.getByRole('dialog').getByText(event.id, { exact: true })).toBeVisible();

  const detail = await page.goto(`/orgs/${state.orgId}/events/${event.id}`);
  await expectScriptsCarry(page, scriptPolicy(detail).nonce);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

  const orgs = await page.goto('/orgs');
  await expectScriptsCarry(page, scriptPolicy(orgs).nonce);

  // A path of no page: the not-found page is rendered per request too.
  const missing = await page.goto('/no-such-page');
  expect(missing?.status()).toBe(404);
  await expectScriptsCarry(page, scriptPolicy(missing).nonce);

  expect(await violations()).toEqual([]);
});
