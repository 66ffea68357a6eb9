import { expect, newShopper, reachPayment, test } from './fixtures.js';
import type { Locator } from '@playwright/test';

// widget/README.md documents CSS parts a page may style: each must be reachable with ::part() from the
// page, even where it sits in a step's own shadow root (exported with `exportparts`).
const COLOURS = { panel: 'rgb(1, 2, 3)', plan: 'rgb(4, 5, 6)', summary: 'rgb(7, 8, 9)', renewal: 'rgb(10, 11, 12)' } as const;

async function outlineOf(part: Locator) {
  return part.evaluate((element) => getComputedStyle(element).outlineColor);
}

test('the page styles every documented part: panel, plan, summary and renewal', async ({ page, checkout, problems }) => {
  // A constructed style sheet, as a merchant's own CSS would be (the demo's CSP forbids inline <style>).
  await page.evaluate((colours) => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(
      Object.entries(colours)
        .map(([part, colour]) => `renew-checkout::part(${part}) { outline: 3px solid ${colour}; }`)
        .join('\n'),
    );
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }, COLOURS);

  await expect(checkout.locator('[part="plan"]').first()).toBeVisible();
  expect(await outlineOf(checkout.locator('[part="panel"]'))).toBe(COLOURS.panel);
  expect(await outlineOf(checkout.locator('[part="plan"]').first())).toBe(COLOURS.plan);

  await reachPayment(checkout, newShopper());
  expect(await outlineOf(checkout.locator('[part="summary"]'))).toBe(COLOURS.summary);
  expect(await outlineOf(checkout.locator('[part="renewal"]'))).toBe(COLOURS.renewal);

  // The payment step shows the renewal terms again, and they take the page's style there too.
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(checkout.getByRole('button', { name: /^Pay / })).toBeVisible();
  expect(await outlineOf(checkout.locator('[part="renewal"]'))).toBe(COLOURS.renewal);
  expect(problems).toEqual([]);
});
