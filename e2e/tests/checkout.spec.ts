import { readFile } from 'node:fs/promises';
import {
  cardFrame,
  customerByEmail,
  expect,
  newShopper,
  payWith,
  product,
  reachPayment,
  requestsTo,
  test,
  useDirectCardFields,
} from './fixtures.js';

// The checkout as merchants get it by default: the card in the capture host's frame (card-fields="hosted").

test('a shopper subscribes to Pro, pays the previewed total with a test card, and the subscription is active', async ({
  page,
  checkout,
  problems,
}) => {
  const shopper = newShopper();
  await reachPayment(checkout, shopper, /Pro.*per month/);
  // 5 seats × 8.00 + support 9.00 + setup 25.00 = 74.00; New York sales tax 4 % = 2.96.
  await expect(checkout.locator('[data-total]')).toHaveText('$76.96');
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await expect(checkout.getByLabel('First name on card')).toHaveValue(shopper.firstName);

  await payWith(checkout, '4242 4242 4242 4242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  await expect(checkout.locator('[data-invoice-status]')).toHaveAttribute('data-invoice-status', 'Paid');
  await expect(checkout.locator('[data-invoice-status]')).toHaveText(/^Invoice #\d+: \$76\.96, Paid\.$/);
  // The merchant's page heard the completion event.
  await expect(page.locator('#welcome')).toBeVisible();

  const customer = await customerByEmail(shopper.email);
  expect(customer?.status).toBe('Active');
  const cards = await product.api<Array<{ maskedCardNumber: string; isDefault: boolean }>>(
    `/v1/customers/${customer!.id}/paymentMethods/creditCard`,
  );
  expect(cards).toEqual([expect.objectContaining({ maskedCardNumber: '************4242', isDefault: true })]);
  const invoices = await product.api<Array<{ invoiceAmount: number; outstandingBalance: number; status: string }>>(
    `/v1/Customers/${customer!.id}/Invoices`,
  );
  expect(invoices).toEqual([expect.objectContaining({ invoiceAmount: 76.96, outstandingBalance: 0, status: 'Paid' })]);

  // The done step offers the invoice as a PDF, through the merchant's proxy with this checkout's session.
  const invoiceNumber = await checkout.locator('[data-invoice-number]').getAttribute('data-invoice-number');
  const downloading = page.waitForEvent('download');
  await checkout.getByRole('button', { name: 'Download your invoice (PDF)' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/\.pdf$/);
  expect(download.suggestedFilename()).toBe(`invoice-${invoiceNumber}.pdf`);
  expect((await readFile(await download.path())).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(problems).toEqual([]);
});

test('the plan step offers the demo’s metered plan with its usage price beside its base price (issue 41)', async ({ checkout }) => {
  await expect(checkout.getByRole('radio', { name: /Metered · \$0\.00 per month/ })).toBeVisible();
  await expect(checkout.locator('renew-plan-step')).toContainText('+ API calls: 1,000 free, then $0.002 each');
});

test('a declined card shows one generic message, is not kept, and another card then completes the order', async ({ checkout }) => {
  const shopper = newShopper();
  await reachPayment(checkout, shopper);
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await payWith(checkout, '4000 0000 0000 0341');
  await expect(checkout.getByRole('alert')).toHaveText('This card could not be used. Check the details or use another card.');
  const customer = await customerByEmail(shopper.email);
  expect(await product.api(`/v1/customers/${customer!.id}/paymentMethods/creditCard`)).toEqual([]);
  expect(customer?.status).toBe('Draft');
  // The CAPTCHA must be solved again for the next attempt (tokens work once).
  await expect(checkout.getByLabel("I'm not a robot")).not.toBeChecked();

  await payWith(checkout, '5555 5555 5555 4444');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  expect((await customerByEmail(shopper.email))?.status).toBe('Active');
});

test('a mistyped card number is caught inside the frame and never sent', async ({ page, checkout }) => {
  const sent = requestsTo(page, `${product.captureUrl}/api/paymentsv2`);
  await reachPayment(checkout, newShopper());
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await payWith(checkout, '4242 4242 4242 4241');
  const frame = cardFrame(checkout);
  await expect(frame.getByText('Enter a valid card number.')).toBeVisible();
  await expect(frame.getByLabel('Card number')).toHaveAttribute('aria-invalid', 'true');
  // The frame moved the focus to the field to fix.
  await expect(frame.getByLabel('Card number')).toBeFocused();
  expect(sent).toEqual([]);
});

test('after three refused cards the form locks', async ({ checkout }) => {
  await reachPayment(checkout, newShopper());
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  for (let attempt = 1; attempt <= 3; attempt++) {
    await payWith(checkout, '4000 0000 0000 9995');
    // The decline's reason (insufficient_funds) until the last attempt, which locks the form.
    await expect(checkout.getByRole('alert')).toContainText(
      attempt < 3 ? 'The card has insufficient funds.' : 'This card could not be used',
    );
  }
  await expect(checkout.getByRole('alert')).toHaveText(
    'This card could not be used, and no more attempts are allowed. Please contact the shop.',
  );
  await expect(checkout.getByRole('button', { name: /^Pay / })).toBeDisabled();
  // The fields in the frame are locked too.
  await expect(cardFrame(checkout).getByLabel('Card number')).toBeDisabled();
});

test('the shopper can go back and change the address; the summary follows it', async ({ checkout }) => {
  await reachPayment(checkout, newShopper());
  await expect(checkout.locator('[data-total]')).toHaveText('$31.19');
  await checkout.getByRole('button', { name: 'Back' }).click();
  await checkout.getByLabel('City').fill('Buffalo');
  await checkout.getByLabel('State / province').selectOption('US-CA');
  await checkout.getByRole('button', { name: 'Review order' }).click();
  // No sales tax configured for California.
  await expect(checkout.locator('[data-total]')).toHaveText('$29.99');
});

test.describe('with card-fields="direct" (the inputs in the widget, posted from the page)', () => {
  test('a shopper pays with a test card and the subscription is active', async ({ checkout, problems }) => {
    await useDirectCardFields(checkout);
    const shopper = newShopper();
    await reachPayment(checkout, shopper);
    await checkout.getByRole('button', { name: 'Continue to payment' }).click();
    await expect(checkout.locator('iframe')).toHaveCount(0);
    await payWith(checkout, '4242 4242 4242 4242');
    await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
    expect((await customerByEmail(shopper.email))?.status).toBe('Active');
    expect(problems).toEqual([]);
  });

  test('a mistyped card number is caught in the widget and never sent', async ({ page, checkout }) => {
    await useDirectCardFields(checkout);
    const sent = requestsTo(page, product.captureUrl);
    await reachPayment(checkout, newShopper());
    await checkout.getByRole('button', { name: 'Continue to payment' }).click();
    await payWith(checkout, '4242 4242 4242 4241');
    await expect(checkout.getByText('not a valid card number')).toBeVisible();
    await expect(checkout.getByLabel('Card number')).toHaveAttribute('aria-invalid', 'true');
    expect(sent).toEqual([]);
  });
});
