import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { portalText } from '../../capture-service/src/portal/browser/portal-text.js';
import { expect, newShopper, payWith, portalProduct as p, product, reachPayment, test } from './fixtures.js';

/**
 * The customer portal in a real browser, on the product started for it (test clocks, e-mail to the
 * SMTP stand-in): recovery of a suspended customer through the hosted card fields, sign-in by e-mail
 * link, cancel and uncancel, invoice PDFs, the French portal, axe, and 320 px.
 */

const TEST_CARD = {
  cardNumber: '4242424242424242',
  firstName: 'Ada',
  lastName: 'Lovelace',
  expirationMonth: 12,
  expirationYear: 30,
  cvv: '123',
};
const BASIC_MONTHLY = 11;
const DAY = 86_400_000;

let customerNumber = 0;
function newEmail(): string {
  customerNumber += 1;
  return `portal.${Date.now()}.${customerNumber}@example.com`;
}

/** A customer Active on Basic monthly with a card, its first invoice posted (and paid when `pay`). */
async function activeCustomer(options: { email?: string; pay?: boolean } = {}) {
  const email = options.email ?? newEmail();
  const customer = await p.call<{ id: number }>('POST', '/v1/customers', {
    firstName: 'Ada',
    lastName: `Lovelace${customerNumber}`,
    primaryEmail: email,
    currency: 'USD',
  });
  await p.call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: BASIC_MONTHLY });
  await p.call('POST', '/v1/paymentmethods/creditcard', { customerId: customer.id, ...TEST_CARD });
  await p.call('POST', '/v1/customeractivation', {
    customerId: customer.id,
    activateAllSubscriptions: true,
    activateAllDraftPurchases: false,
    temporarilyDisableAutoPost: false,
  });
  if (options.pay)
    await p.call('POST', '/v1/payments', {
      customerId: customer.id,
      amount: 29.99,
      paymentMethod: 'CreditCard',
      useDefaultPaymentMethod: true,
    });
  return { id: customer.id, email };
}

/** What the merchant's server does: a portal session for the customer, its one-use link opened in the browser. */
async function openPortal(page: Page, customerId: number, body: Record<string, unknown> = {}) {
  const session = await p.call<{ url: string }>('POST', '/v1/portalSessions', { customerId, ...body });
  await page.goto(session.url);
  await expect(page).toHaveURL(/\/portal\/(\?.*)?(#.*)?$/);
  await expect(page.locator('renew-portal').getByRole('navigation')).toBeVisible();
}

const portal = (page: Page) => page.locator('renew-portal');
const cardFrame = (page: Page) => portal(page).locator('iframe[title="Card details"]').contentFrame();

async function fillCard(
  page: Page,
  number: string,
  labels = { number: 'Card number', expiry: 'Expiry date (MM / YY)', cvv: 'Security code (CVV)' },
) {
  await expect(portal(page).locator('renew-hosted-card-frame[ready]')).toBeAttached();
  await cardFrame(page).getByLabel(labels.number).fill(number);
  await cardFrame(page).getByLabel(labels.expiry).fill('12 / 30');
  await cardFrame(page).getByLabel(labels.cvv).fill('123');
}

/** Every page of the portal, by its deep link. */
const VIEWS = ['overview', 'card', 'pay', 'invoices', 'details'] as const;

test('a customer suspended after a failed renewal opens a portal link, enters a new card in the hosted fields, pays, and is Active with the payment allocated', async ({
  page,
}) => {
  const now = new Date();
  await p.call('POST', '/v1/testclock/advance', {
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 10, 12)).toISOString(),
  });
  const customer = await activeCustomer({ pay: true });
  const setting = await p.call<Record<string, unknown>>('GET', `/v1/customerbillingsetting/${customer.id}`);
  await p.call('PUT', '/v1/customerbillingsetting', {
    ...setting,
    autoCollect: true,
    customerGracePeriod: 3,
    gracePeriodExtension: 0,
    customerAutoCancel: 30,
  });
  // The card starts declining; the renewal fails and, past the grace period, the customer is suspended.
  await p.call('POST', '/v1/paymentmethods/creditcard', {
    customerId: customer.id,
    ...TEST_CARD,
    cardNumber: '4000000000000341',
    isDefault: true,
  });
  await p.call('POST', '/v1/testclock/advance', {
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 3, 10, 12) + 6 * DAY).toISOString(),
  });
  expect((await p.call<{ status: string }>('GET', `/v1/customers/${customer.id}`)).status).toBe('Suspended');
  const unpaid = (await p.call<Array<{ id: number; outstandingBalance: number }>>('GET', `/v1/customers/${customer.id}/invoices`)).filter(
    (i) => i.outstandingBalance > 0,
  );
  expect(unpaid).toHaveLength(1);

  const seenByPortalScript: string[] = [];
  page.on('request', (request) => {
    // The card goes from the frame to the capture endpoint; the portal's own requests never carry it.
    if (request.frame() === page.mainFrame() && (request.postData() ?? '').includes('4242424242424242'))
      seenByPortalScript.push(request.url());
  });
  await openPortal(page, customer.id, { flow: 'paymentMethodUpdate' });
  await expect(portal(page).getByRole('heading', { name: 'Update your card' })).toBeVisible();
  await fillCard(page, '4242 4242 4242 4242');
  await portal(page).getByRole('button', { name: 'Save card' }).click();
  await expect(portal(page).getByRole('status')).toHaveText('Your new card is saved and will be used for future payments.');

  await portal(page).getByRole('link', { name: 'Pay open invoices' }).first().click();
  await expect(portal(page).getByRole('radio', { name: /My card: .*4242/ })).toBeChecked();
  await portal(page).getByRole('button', { name: /^Pay / }).click();
  await expect(portal(page).getByRole('status')).toContainText('Thank you: your payment of');

  expect((await p.call<{ status: string }>('GET', `/v1/customers/${customer.id}`)).status).toBe('Active');
  expect((await p.call<{ outstandingBalance: number }>('GET', `/v1/Invoices/${unpaid[0]!.id}`)).outstandingBalance).toBe(0);
  const payments = await p.call<Array<{ source: string; status: string; invoiceAllocations: Array<{ invoiceId: number }> }>>(
    'GET',
    `/v1/customers/${customer.id}/payments`,
  );
  expect(payments.find((pay) => pay.source === 'SelfServicePortal')).toMatchObject({
    status: 'Succeeded',
    invoiceAllocations: [expect.objectContaining({ invoiceId: unpaid[0]!.id })],
  });
  expect(seenByPortalScript).toEqual([]);
});

test('a customer signs in with a link sent by e-mail', async ({ page }) => {
  const customer = await activeCustomer();
  await page.goto(`${p.captureUrl}/portal/sign-in?account=${encodeURIComponent(p.publicApiKey)}`);
  await page.getByLabel('E-mail address').fill(customer.email.toUpperCase());
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await expect(page.getByRole('status')).toBeVisible();
  let link: string | undefined;
  await expect(async () => {
    const emails = await p.emailsTo(customer.email);
    // the sign-in e-mail (the activation's InvoicePost e-mail has a portal link too: to the invoices, 7 days)
    const signIn = emails.filter((e) => /sign-in link/.test(e.subject)).at(-1);
    link = /https?:\/\/\S+\/portal\/open\?token=[\w-]+/.exec(signIn?.text ?? '')?.[0];
    expect(link).toBeDefined();
  }).toPass({ timeout: 20_000 });
  await page.goto(link!);
  await expect(portal(page).getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(portal(page).getByText(/Basic/).first()).toBeVisible();
  // The link opened once: a second opening is refused.
  const again = await page.request.post(`${p.captureUrl}/portal/open`, { data: { token: new URL(link!).searchParams.get('token') } });
  expect(again.status()).toBe(410);
});

test('a customer cancels at the end of the period, then keeps the subscription', async ({ page }) => {
  const customer = await activeCustomer();
  await openPortal(page, customer.id);
  await portal(page).getByRole('link', { name: 'Cancel subscription' }).click();
  await expect(portal(page).getByRole('radio', { name: /At the end of the current period/ })).toBeChecked();
  await portal(page).getByLabel('Reason (optional)').fill('Too expensive');
  await portal(page).getByRole('button', { name: 'Confirm cancellation' }).click();
  await expect(portal(page).getByRole('status')).toContainText('Your subscription will end on');
  await expect(portal(page).getByText(/^Ends on /)).toBeVisible();
  const [subscription] = await p.call<Array<{ status: string }>>('GET', `/v1/customers/${customer.id}/subscriptions`);
  expect(subscription!.status).toBe('Active');

  await portal(page).getByRole('button', { name: 'Keep subscription' }).click();
  await expect(portal(page).getByRole('status')).toHaveText('Your subscription continues.');
  await expect(portal(page).getByRole('link', { name: 'Cancel subscription' })).toBeVisible();
});

test('a customer downloads an invoice as a PDF', async ({ page }) => {
  const customer = await activeCustomer();
  await openPortal(page, customer.id, { flow: 'invoices' });
  await expect(portal(page).getByRole('heading', { name: 'Invoices' })).toBeVisible();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    portal(page)
      .getByRole('link', { name: /^Download invoice .* \(PDF\)$/ })
      .first()
      .click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/\.pdf$/);
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).subarray(0, 5).toString('latin1')).toBe('%PDF-');
});

/** The text a person sees: the portal's shadow tree and the page around it. */
function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.querySelector('renew-portal');
    const parts = [...(element?.shadowRoot?.children ?? [])].map((child) => (child as HTMLElement).innerText ?? '');
    return [document.title, ...parts].join('\n');
  });
}

test('the French portal shows no English', async ({ page }) => {
  const customer = await activeCustomer();
  await openPortal(page, customer.id, { locale: 'fr' });
  const english = Object.values(portalText('en')).filter(
    (value) => !Object.values(portalText('fr')).includes(value) && !value.includes('|') && value.length > 3,
  );
  for (const view of VIEWS) {
    await page.evaluate((hash) => (location.hash = hash), view);
    await expect(portal(page).locator('main h2')).toBeVisible();
    await page.waitForTimeout(0);
    const text = await visibleText(page);
    // Not vacuous: the page's words are read, and they are French.
    expect(text).toContain('Votre compte');
    for (const template of english) {
      // A template's words, its placeholders aside, must not be on screen.
      for (const piece of template
        .split(/\{\d\}/)
        .map((s) => s.trim())
        .filter((s) => s.length > 3))
        expect(text, `${view}: "${piece}"`).not.toContain(piece);
    }
  }
  // The card fields in the frame speak French too.
  await page.evaluate(() => (location.hash = 'card'));
  await expect(cardFrame(page).getByLabel('Numéro de carte')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
});

test('every portal page is axe-clean and fits 320 px without sideways scrolling', async ({ page }) => {
  const customer = await activeCustomer();
  await page.setViewportSize({ width: 320, height: 720 });
  const axe = async (where: string) => {
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  };
  const fits = async (where: string) =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(320);

  await page.goto(`${p.captureUrl}/portal/sign-in?account=${encodeURIComponent(p.publicApiKey)}`);
  await axe('sign-in');
  await fits('sign-in');

  await openPortal(page, customer.id);
  const subscriptions = await p.call<Array<{ id: number }>>('GET', `/v1/customers/${customer.id}/subscriptions`);
  for (const view of [...VIEWS, `cancel-${subscriptions[0]!.id}`]) {
    await page.evaluate((hash) => (location.hash = hash), view);
    await expect(portal(page).locator('main h2')).toBeVisible();
    if (view === 'card' || view === 'pay')
      await expect(
        portal(page)
          .locator('renew-hosted-card-frame[ready]')
          .or(portal(page).getByRole('button', { name: /^Pay / })),
      ).toBeAttached();
    await axe(view);
    await fits(view);
  }
});

test("the demo store's Account page opens the portal for the shopper its checkout signed in", async ({ page, checkout }) => {
  await reachPayment(checkout, newShopper());
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await payWith(checkout, '4242 4242 4242 4242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  await page.getByRole('link', { name: 'Account' }).click();
  await expect(page).toHaveURL(new RegExp(`^${product.captureUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/portal/`));
  await expect(portal(page).getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(portal(page).getByText(/Basic/).first()).toBeVisible();
  // "Back to the shop" leads to the store that sent the customer.
  await expect(portal(page).getByRole('link', { name: 'Back to the shop' })).toHaveAttribute('href', `${product.demoUrl}/`);
});
