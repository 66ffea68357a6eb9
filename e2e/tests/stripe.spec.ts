import type { Page } from '@playwright/test';
import { customerByEmail, expect, newShopper, payWith, reachPayment, stripeProduct as stripe, test } from './fixtures.js';

/**
 * The checkout on the Stripe adapter (issue 37): RENEW_GATEWAY=stripe with its three settings, against the
 * local Stripe stand-in. The card goes from the hosted card fields to the capture host, which tokenizes it at
 * Stripe server to server; a card that asks for 3-D Secure shows Stripe's challenge pages inside the fields,
 * which return to the capture host (its disputes, as signed webhooks at the capture host: capture-service/test/stripe-disputes.test.ts).
 */

/** The demo store on the Stripe product, a new shopper at the card step. */
async function atPayment(page: Page) {
  await page.goto(stripe.demoUrl);
  const shopper = newShopper();
  const checkout = page.locator('renew-checkout');
  await reachPayment(checkout, shopper);
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  return { shopper, checkout };
}

test('a shopper pays with 4242 4242 4242 4242 through Stripe: Active, the invoice paid, the card a Stripe payment method', async ({
  page,
}) => {
  const { shopper, checkout } = await atPayment(page);
  await payWith(checkout, '4242424242424242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  const customer = await customerByEmail(shopper.email, stripe);
  expect(customer?.status).toBe('Active');
  const payments = await stripe.api<Array<{ status: string; amount: number }>>(`/v1/customers/${customer?.id}/payments`);
  expect(payments).toEqual([expect.objectContaining({ status: 'Succeeded' })]);
  const cards = await stripe.api<Array<{ maskedCardNumber: string }>>(`/v1/customers/${customer?.id}/paymentMethods/creditCard`);
  expect(cards.map((c) => c.maskedCardNumber.slice(-4))).toEqual(['4242']);
});

test("a card that asks for 3-D Secure (4000 0027 6000 3184) shows Stripe's challenges (the card's, then the payment's) in the card fields; Complete pays once, Active", async ({
  page,
}) => {
  const { shopper, checkout } = await atPayment(page);
  await payWith(checkout, '4000002760003184');
  const frame = checkout.locator('renew-hosted-card-frame iframe').contentFrame();
  await expect(frame.getByRole('dialog')).toBeVisible();
  const bank = frame.locator('#challenge-frame').contentFrame();
  // Stripe's 3184 asks for the card, then for the first payment itself: two challenges, one after the other.
  await expect(bank.getByText(/^Save your card for later payments\. /)).toBeVisible();
  await bank.getByRole('button', { name: 'Complete' }).click();
  await expect(bank.getByText(/^Pay 31\.19 usd\. /i)).toBeVisible();
  await bank.getByRole('button', { name: 'Complete' }).click();
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  const customer = await customerByEmail(shopper.email, stripe);
  expect(customer?.status).toBe('Active');
  const payments = await stripe.api<Array<{ status: string }>>(`/v1/customers/${customer?.id}/payments`);
  expect(payments.map((p) => p.status)).toEqual(['Succeeded']);
});
