import { AxeBuilder } from '@axe-core/playwright';
import {
  customerByEmail,
  expect,
  newShopper,
  payInFrench,
  payWith,
  product,
  reachFrenchPayment,
  reachPayment,
  test,
  useDirectCardFields,
} from './fixtures.js';

/**
 * 3-D Secure in the checkout (issue 37): the bank's challenge opens inside the hosted card fields, and
 * the capture, its first payment and the activation complete once the shopper has answered it.
 * A French shopper at 320 px, with the sandbox's test card that always asks (4000 0027 6000 3184).
 * The portal's case is in portal.spec.ts (its tests share the portal product's test clock, one at a time).
 */
const ALWAYS = '4000002760003184';

test('a French shopper at 320 px pays with a card that asks for 3-D Secure: the challenge in the card fields, then Active and paid', async ({
  page,
}) => {
  const shopper = newShopper();
  const checkout = await reachFrenchPayment(page, shopper);
  const authentication = page.evaluate(
    () =>
      new Promise<unknown>((resolve) =>
        document.addEventListener('renew-checkout-authentication', (e) => resolve((e as CustomEvent).detail)),
      ),
  );
  const frame = await payInFrench(checkout, ALWAYS);
  // The bank's page, in a dialog of the card fields, named in French.
  const dialog = frame.getByRole('dialog', { name: 'Confirmez auprès de votre banque' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { name: 'Confirmez auprès de votre banque' })).toBeFocused();
  expect(await authentication).toEqual({ state: 'challenge' });
  const bank = frame.locator('#challenge-frame').contentFrame();
  await expect(bank.getByText('3184')).toBeVisible();
  expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= document.scrollingElement!.clientWidth)).toBe(true);
  // axe, into the card fields' frame and the bank's page inside it, while the challenge is open.
  const results = await new AxeBuilder({ page }).include('renew-checkout').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)).toEqual([]);
  expect(JSON.stringify(results.passes)).toContain('challenge-cancel');
  await bank.getByRole('button', { name: 'Complete' }).click();

  await expect(checkout.getByRole('heading', { name: 'Merci !' })).toBeVisible();
  await expect(checkout.locator('[data-invoice-status]')).toContainText('payée');
  const customer = await customerByEmail(shopper.email);
  expect(customer?.status).toBe('Active');
  const payments = await product.api<Array<{ status: string }>>(`/v1/customers/${customer!.id}/payments`);
  expect(payments.map((p) => p.status)).toEqual(['Succeeded']);
});

test('a failed challenge is a French error with nothing charged; another card then pays', async ({ page }) => {
  const shopper = newShopper();
  const checkout = await reachFrenchPayment(page, shopper);
  const frame = await payInFrench(checkout, ALWAYS);
  const bank = frame.locator('#challenge-frame').contentFrame();
  await bank.getByRole('button', { name: 'Fail' }).click();
  await expect(checkout.getByRole('alert')).toContainText('Votre banque n’a pas confirmé cette carte');
  // The fields are back; nothing was charged or kept.
  await expect(frame.getByLabel('Numéro de carte')).toBeVisible();
  const customer = await customerByEmail(shopper.email);
  expect(await product.api(`/v1/customers/${customer!.id}/payments`)).toEqual([]);
  expect(await product.api(`/v1/customers/${customer!.id}/paymentMethods/creditCard`)).toEqual([]);

  await payInFrench(checkout, '4242424242424242');
  await expect(checkout.getByRole('heading', { name: 'Merci !' })).toBeVisible();
  expect((await customerByEmail(shopper.email))?.status).toBe('Active');
});

test("with the checkout's own card inputs (direct mode) the bank's challenge opens in the card step: Complete, then Active and paid", async ({
  page,
}) => {
  const shopper = newShopper();
  await page.goto(product.demoUrl);
  const checkout = page.locator('renew-checkout');
  await useDirectCardFields(checkout);
  await reachPayment(checkout, shopper);
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  const authentication = page.evaluate(
    () =>
      new Promise<unknown>((resolve) =>
        document.addEventListener('renew-checkout-authentication', (e) => resolve((e as CustomEvent).detail)),
      ),
  );
  await payWith(checkout, ALWAYS);
  const dialog = checkout.getByRole('dialog', { name: 'Confirm with your bank' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { name: 'Confirm with your bank' })).toBeFocused();
  expect(await authentication).toEqual({ state: 'challenge' });
  await checkout.locator('#challenge-frame').contentFrame().getByRole('button', { name: 'Complete' }).click();
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  const customer = await customerByEmail(shopper.email);
  expect(customer?.status).toBe('Active');
  expect((await product.api<Array<{ status: string }>>(`/v1/customers/${customer?.id}/payments`)).map((p) => p.status)).toEqual([
    'Succeeded',
  ]);
});
