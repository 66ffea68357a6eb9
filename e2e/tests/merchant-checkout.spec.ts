import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import {
  customerByEmail,
  expect,
  fillCard,
  newShopper,
  payWith,
  product,
  reachAddress,
  reachPayment,
  test,
  useDirectCardFields,
} from './fixtures.js';

/** axe-core on the checkout as it is now (open shadow roots included): any violation fails. */
async function expectAccessible(page: Page, where: string) {
  const results = await new AxeBuilder({ page }).include('renew-checkout').analyze();
  expect(
    results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    where,
  ).toEqual([]);
}

/** Every text the shopper sees or hears in the checkout, through its shadow roots (labels, buttons, aria-labels, placeholders). */
function shownText(checkout: Locator): Promise<string> {
  return checkout.evaluate((root) => {
    const parts: string[] = [];
    const walk = (node: Node) => {
      if (node.nodeType === Node.TEXT_NODE) parts.push(node.textContent ?? '');
      if (node instanceof Element) {
        if (getComputedStyle(node).display === 'none') return;
        for (const attribute of ['aria-label', 'placeholder']) if (node.getAttribute(attribute)) parts.push(node.getAttribute(attribute)!);
        if (node.shadowRoot) node.shadowRoot.childNodes.forEach(walk);
      }
      node.childNodes.forEach(walk);
    };
    walk(root);
    return parts.join(' ').replace(/\s+/g, ' ');
  });
}

/** Words of the checkout's English that must not appear on a French screen (the catalogue's own names, such as "Basic", are the merchant's). */
const ENGLISH_WORDS =
  /\b(Continue|Back|Step|Plan|Details|Review|Payment|Done|Your|due|today|Pay|per month|Card|Expiry|Security|Thank|Address|City|Postal|Country|Coupon|Apply|Then|cancel|renews)\b/;

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth);

test('a French shopper checks out from plan to done with no English word on screen, amounts and dates in French', async ({
  page,
  problems,
}) => {
  await page.goto(`${product.demoUrl}/?lang=fr`);
  const checkout = page.locator('renew-checkout');
  // The widget's own card inputs (direct mode): their words, grouping and brand in French. The hosted frame's French: hosted-card-fields.spec.ts.
  await useDirectCardFields(checkout);
  const shopper = newShopper();
  await expect(checkout.getByRole('heading', { name: 'Choisissez votre offre' })).toBeVisible();
  expect(await shownText(checkout)).not.toMatch(ENGLISH_WORDS);
  await expectAccessible(page, 'plan, fr');
  await checkout.getByRole('radio', { name: /Basic.*19,99\s\$US par mois/ }).check();
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await checkout.getByLabel('Prénom').fill(shopper.firstName);
  await checkout.getByLabel('Nom', { exact: true }).fill(shopper.lastName);
  await checkout.getByLabel('Adresse e-mail').fill(shopper.email);
  expect(await shownText(checkout)).not.toMatch(ENGLISH_WORDS);
  await expectAccessible(page, 'customer, fr');
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await checkout.getByLabel('Adresse', { exact: true }).fill('1 Main Street');
  await checkout.getByLabel('Ville').fill('New York');
  await checkout.getByLabel('Code postal').fill('10001');
  await checkout.getByLabel('Pays').selectOption('US');
  // Country names in French, from Intl (the billing API's are English).
  await expect(checkout.getByLabel('Pays').locator('option[value="US"]')).toHaveText('États-Unis');
  await checkout.getByLabel('État / région').selectOption('US-NY');
  expect(await shownText(checkout)).not.toMatch(ENGLISH_WORDS);
  await checkout.getByRole('button', { name: 'Vérifier la commande' }).click();

  await expect(checkout.getByRole('heading', { name: 'Votre commande' })).toBeVisible();
  await expect(checkout.locator('[data-total]')).toHaveText('31,19\u00a0$US');
  await expect(checkout.getByText('Total à payer aujourd’hui')).toBeVisible();
  const renewal = await checkout.locator('[data-renewal]').first().innerText();
  expect(renewal).toMatch(/^Ensuite 19,99\s\$US hors taxes par mois, à partir du \d{1,2} \p{L}+ \d{4}\. .*résilier à tout moment\./u);
  expect(await shownText(checkout)).not.toMatch(ENGLISH_WORDS);
  await expectAccessible(page, 'summary, fr');
  await checkout.getByLabel('Code promo').fill('NOPE');
  await checkout.getByRole('button', { name: 'Appliquer' }).click();
  await expect(checkout.getByRole('alert')).toHaveText('Ce code promo n’existe pas.');
  await expectAccessible(page, 'summary with an error, fr');
  await checkout.getByRole('button', { name: 'Passer au paiement' }).click();

  await expect(checkout.getByRole('heading', { name: 'Paiement' })).toBeVisible();
  await checkout.getByRole('button', { name: /^Payer / }).click();
  await expect(checkout.getByText('numéro de carte non valide')).toBeVisible();
  expect(await shownText(checkout)).not.toMatch(ENGLISH_WORDS);
  await expectAccessible(page, 'payment with errors, fr');
  await checkout.getByLabel('Numéro de carte').fill('4242424242424242');
  await expect(checkout.getByLabel('Numéro de carte')).toHaveValue('4242 4242 4242 4242');
  await expect(checkout.getByText('Type de carte : Visa')).toBeVisible();
  await checkout.getByLabel('Date d’expiration (MM / AA)').fill('1230');
  await expect(checkout.getByLabel('Date d’expiration (MM / AA)')).toHaveValue('12 / 30');
  // The expiry complete: the focus is on the security code.
  await expect(checkout.getByLabel('Cryptogramme (CVV)')).toBeFocused();
  await checkout.getByLabel('Cryptogramme (CVV)').fill('123');
  await checkout.getByLabel('Je ne suis pas un robot').check();
  await checkout.getByRole('button', { name: 'Payer 31,19\u00a0$US' }).click();

  await expect(checkout.getByRole('heading', { name: 'Merci !' })).toBeVisible();
  await expect(checkout.locator('[data-invoice-status]')).toContainText('payée');
  expect(await shownText(checkout)).not.toMatch(ENGLISH_WORDS);
  await expectAccessible(page, 'done, fr');

  // The date promised is the billing API's next period.
  const customer = await customerByEmail(shopper.email);
  const [subscription] = await product.api<Array<{ nextPeriodStartDate: string }>>(`/v1/customers/${customer!.id}/subscriptions`);
  const promised = new Intl.DateTimeFormat('fr', { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(`${subscription!.nextPeriodStartDate.slice(0, 10)}T00:00:00Z`),
  );
  expect(renewal).toContain(`à partir du ${promised}`);
  // The refused coupon is a 400 answer, which the browser logs; nothing else may be.
  expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
});

test('a coupon lowers the total through a new preview; an unknown code is an error on the field', async ({ page, checkout }) => {
  await reachPayment(checkout, newShopper());
  await expectAccessible(page, 'summary, en');
  await expect(checkout.locator('[data-total]')).toHaveText('$31.19');
  await checkout.getByLabel('Coupon code').fill('welcome10');
  await checkout.getByRole('button', { name: 'Apply' }).click();
  await expect(checkout.locator('[data-total]')).toHaveText('$29.11');
  await expect(checkout.getByText('Coupon WELCOME10 (10% off the first period) applied.')).toBeVisible();
  await expect(checkout.getByRole('row', { name: /Discounts/ })).toContainText('−$2.00');

  await checkout.getByRole('button', { name: 'Remove coupon' }).click();
  await expect(checkout.locator('[data-total]')).toHaveText('$31.19');
  await checkout.getByLabel('Coupon code').fill('NOPE');
  await checkout.getByRole('button', { name: 'Apply' }).click();
  await expect(checkout.getByRole('alert')).toHaveText('This coupon code does not exist.');
  await expect(checkout.getByLabel('Coupon code')).toHaveAttribute('aria-invalid', 'true');
  await expect(checkout.locator('[data-total]')).toHaveText('$31.19');
  await expectAccessible(page, 'summary with a coupon error, en');
});

test('three seats on the per-seat plan: the preview follows, and the invoice is the total shown', async ({ checkout }) => {
  const shopper = newShopper();
  await reachPayment(checkout, shopper, /Pro.*per month/);
  await expect(checkout.locator('[data-total]')).toHaveText('$76.96');
  const seats = checkout.getByLabel(/Number of Seat/);
  await expect(seats).toHaveValue('5');
  await seats.fill('3');
  await seats.press('Enter');
  await seats.blur();
  await expect(checkout.getByRole('row', { name: /Seat × 3/ })).toBeVisible();
  const total = await checkout.locator('[data-total]').innerText();
  expect(total).not.toBe('$76.96');
  await checkout.getByRole('button', { name: 'One fewer' }).click();
  await expect(checkout.getByRole('row', { name: /Seat × 2/ })).toBeVisible();
  await checkout.getByRole('button', { name: 'One more' }).click();
  await expect(checkout.getByRole('row', { name: /Seat × 3/ })).toBeVisible();
  await expect(checkout.locator('[data-total]')).toHaveText(total);
  // The renewal states three seats' price: 3 × 8.00 + 9.00.
  await expect(checkout.locator('[data-renewal]')).toContainText('Then $33.00 plus tax per month');
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await payWith(checkout, '4242 4242 4242 4242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  const customer = await customerByEmail(shopper.email);
  const [invoice] = await product.api<Array<{ invoiceAmount: number; status: string }>>(`/v1/Customers/${customer!.id}/Invoices`);
  expect(`$${invoice!.invoiceAmount.toFixed(2)}`).toBe(total);
  expect(invoice!.status).toBe('Paid');
});

test('the review and payment steps state the renewal with the next charge date; the pay button the amount due today', async ({
  checkout,
}) => {
  const shopper = newShopper();
  await reachPayment(checkout, shopper);
  const renewal = checkout.locator('[data-renewal]');
  const shown = (await renewal.innerText()).trim();
  expect(shown).toMatch(
    /^Then \$19\.99 plus tax per month, from [A-Z][a-z]+ \d{1,2}, \d{4}\. Your subscription renews automatically until you cancel; you can cancel any time\.$/,
  );
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  expect((await checkout.locator('[data-renewal]').innerText()).trim()).toBe(shown);
  await expect(checkout.getByRole('button', { name: 'Pay $31.19' })).toBeVisible();
  await payWith(checkout, '4242 4242 4242 4242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  const customer = await customerByEmail(shopper.email);
  const [subscription] = await product.api<Array<{ nextPeriodStartDate: string }>>(`/v1/customers/${customer!.id}/subscriptions`);
  const date = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(`${subscription!.nextPeriodStartDate.slice(0, 10)}T00:00:00Z`),
  );
  expect(shown).toContain(`from ${date}.`);
});

test('at 320 × 640 nothing scrolls sideways, the step list reads "Step n of 6", and touch targets are 44 px', async ({ page }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  await page.goto(product.demoUrl);
  const checkout = page.locator('renew-checkout');
  await expect(checkout.getByText('Step 1 of 6: Plan')).toBeVisible();
  await expect(checkout.getByRole('list', { name: 'Checkout steps' })).toBeHidden();
  expect(await noHorizontalScroll(page)).toBe(true);
  await reachAddress(checkout, newShopper(), /Pro.*per month/);
  await expect(checkout.getByText('Step 3 of 6: Address')).toBeVisible();
  expect(await noHorizontalScroll(page)).toBe(true);
  await checkout.getByRole('button', { name: 'Review order' }).click();
  await expect(checkout.getByText('Step 4 of 6: Review')).toBeVisible();
  expect(await noHorizontalScroll(page)).toBe(true);
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await fillCard(checkout, '4242 4242 4242 4242');
  expect(await noHorizontalScroll(page)).toBe(true);
  const smallTargets = await checkout.evaluate((root) => {
    const small: string[] = [];
    const walk = (node: Element | ShadowRoot) => {
      for (const el of Array.from(node.querySelectorAll('*'))) {
        if (el.matches('button, input:not([type=checkbox]):not([type=radio]), select, label.inline')) {
          const box = el.getBoundingClientRect();
          if (box.height < 44 || box.width < 44) small.push(`${el.tagName} ${el.textContent?.trim()} ${box.width}×${box.height}`);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(root.shadowRoot!);
    return small;
  });
  expect(smallTargets).toEqual([]);
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(checkout.getByRole('list', { name: 'Checkout steps' })).toBeVisible();
});

test('with terms-url, paying needs the terms accepted (a checkbox linking to them)', async ({ page }) => {
  await page.goto(`${product.demoUrl}/?terms-url=/terms`);
  const checkout = page.locator('renew-checkout');
  await reachPayment(checkout, newShopper());
  await expect(checkout.getByRole('link', { name: 'terms of service' })).toHaveAttribute('href', '/terms');
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(checkout.getByRole('alert')).toHaveText('Please accept the terms to continue.');
  await expect(checkout.getByRole('heading', { name: 'Your order' })).toBeVisible();
  await expectAccessible(page, 'summary with the terms error, en');
  await checkout.getByLabel('I accept the terms of service').check();
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(checkout.getByRole('heading', { name: 'Payment' })).toBeVisible();
  await expectAccessible(page, 'payment, en');
});

test('every step passes axe-core in English, errors shown included', async ({ page, checkout }) => {
  // Direct mode: the widget's own card inputs and their errors (hosted mode is checked with the terms above and in hosted-card-fields.spec.ts).
  await useDirectCardFields(checkout);
  await expect(checkout.getByRole('heading', { name: 'Choose your plan' })).toBeVisible();
  await expectAccessible(page, 'plan, en');
  await reachAddress(checkout, newShopper());
  await checkout.getByLabel('Postal code').fill('');
  await expectAccessible(page, 'address, en');
  await checkout.getByLabel('Postal code').fill('10001');
  await checkout.getByRole('button', { name: 'Review order' }).click();
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await checkout.getByRole('button', { name: /^Pay / }).click();
  await expect(checkout.getByText('not a valid card number')).toBeVisible();
  await expectAccessible(page, 'payment with errors, en');
  await payWith(checkout, '4242 4242 4242 4242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  await expectAccessible(page, 'done, en');
});
