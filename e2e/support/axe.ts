import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';
import type * as Axe from 'axe-core';

/**
 * What the dashboard is held to: the WCAG 2.1 A and AA rules, and axe's best
 * practices (one h1 a page, landmarks holding all content, heading order),
 * which are how screen-reader users find their way around a page.
 */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

const AXE_SOURCE = createRequire(__filename).resolve('axe-core/axe.min.js');

/**
 * axe-core's findings on the page as it is now, one line each:
 * `rule (impact) selector: what is wrong` (empty when there are none), so a
 * failing assertion names every node to fix. axe is injected into the page
 * itself, the way its own integrations do it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) {
    await page.addScriptTag({ path: AXE_SOURCE });
  }
  const options: Axe.RunOptions = {
    runOnly: { type: 'tag', values: AXE_TAGS },
    resultTypes: ['violations'],
  };
  // Only the violations cross back: the whole result holds every rule's passes.
  const violations = await page.evaluate(
    (options) =>
      (window as unknown as { axe: typeof Axe }).axe
        .run(document, options)
        .then((results) => results.violations),
    options,
  );
  return violations.flatMap((violation) =>
    violation.nodes.map(
      (node) =>
        `${violation.id} (${violation.impact}) ${node.target.join(' ')}: ${
          node.failureSummary?.replace(/\s+/g, ' ') ?? violation.help
        }`,
    ),
  );
}
