import { createHmac } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import type { CustomerLanguage } from '../../billing-service/src/catalog/schema.js';
import { renderEmail } from '../../billing-service/src/notifications/email-templates.js';
import { cardFieldsText } from '../../capture-service/src/hosted/card-fields-text.js';
import { PORTAL_LANGUAGES, portalText, say, type PortalLanguage } from '../../capture-service/src/portal/browser/portal-text.js';
import {
  expect,
  meteredCustomer,
  newShopper,
  payWith,
  portalProduct as p,
  product,
  reachPayment,
  test,
  type ReceivedEmail,
} from './fixtures.js';

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

/** A customer Active on Basic monthly with a card, its first invoice posted (and paid when `pay`), its e-mails in `language` (else the default). */
async function activeCustomer(options: { email?: string; pay?: boolean; language?: CustomerLanguage } = {}) {
  const email = options.email ?? newEmail();
  const lastName = `Lovelace${customerNumber}`;
  const customer = await p.call<{ id: number }>('POST', '/v1/customers', {
    firstName: 'Ada',
    lastName,
    primaryEmail: email,
    currency: 'USD',
    ...(options.language ? { language: options.language } : {}),
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
  return { id: customer.id, email, lastName };
}

/**
 * A link opened in a browser that did not ask for it shows whose portal it opens and waits for the click
 * (login forgery); by then its script has taken the token out of the address bar.
 */
async function continueToPortal(page: Page) {
  await expect(page.locator('#confirm button')).toBeVisible();
  expect(page.url()).not.toContain('token');
  await page.locator('#confirm button').click();
}

/** What the merchant's server does: a portal session for the customer, its one-use link opened in the browser. */
async function openPortal(page: Page, customerId: number, body: Record<string, unknown> = {}) {
  const session = await p.call<{ url: string }>('POST', '/v1/portalSessions', { customerId, ...body });
  await page.goto(session.url);
  await continueToPortal(page);
  await expect(page).toHaveURL(/\/portal\/(\?.*)?(#.*)?$/);
  await expect(page.locator('renew-portal').getByRole('navigation')).toBeVisible();
}

const portal = (page: Page) => page.locator('renew-portal');

/** axe-core with every rule (best practices too: one banner, content in landmarks): no violation of any impact. */
async function axeClean(page: Page, where: string) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}
const cardFrame = (page: Page) => portal(page).locator('renew-hosted-card-frame iframe').contentFrame();

/** Every page of the portal, by its deep link. */
const VIEWS = ['overview', 'card', 'pay', 'invoices', 'details'] as const;

/** The text a person sees: the portal's shadow tree and the page around it. */
function visibleText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.querySelector('renew-portal');
    const parts = [...(element?.shadowRoot?.children ?? [])].map((child) => (child as HTMLElement).innerText ?? '');
    return [document.title, ...parts].join('\n');
  });
}

/** The English portal's words that the language has not in common with it (placeholders aside), each longer than 3 characters. */
function englishPiecesNotIn(language: PortalLanguage): string[] {
  const own = Object.values(portalText(language));
  return Object.values(portalText('en'))
    .filter((value) => !own.includes(value) && !value.includes('|') && value.length > 3)
    .flatMap((template) =>
      template
        .split(/\{\d\}/)
        .map((s) => s.trim())
        .filter((s) => s.length > 3),
    );
}

/** The page on screen is in the language: its title is, and no English template's words are (a view's heading must be up). */
async function expectNoEnglishOnScreen(page: Page, language: PortalLanguage, where: string) {
  await expect(portal(page).locator('main h2')).toBeVisible();
  await page.waitForTimeout(0);
  const text = await visibleText(page);
  // Not vacuous: the page's words are read, and they are the language's.
  expect(text).toContain(portalText(language).title);
  for (const piece of englishPiecesNotIn(language)) expect(text, `${where}: "${piece}"`).not.toContain(piece);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Lower-case words of letters only (URLs and one-letter words left out). */
function wordsOf(text: string): Set<string> {
  return new Set(
    (
      text
        .replace(/https?:\/\/\S+/g, ' ')
        .toLowerCase()
        .match(/\p{L}+/gu) ?? []
    ).filter((w) => w.length > 1),
  );
}

/** The words a person reads in an e-mail: subject, text, and the HTML's text (its style sheet and tags left out). */
const emailWords = (e: ReceivedEmail) =>
  wordsOf(`${e.subject} ${e.text} ${(e.html ?? '').replace(/<style[\s\S]*?<\/style>/g, ' ').replace(/<[^>]+>/g, ' ')}`);

/** The webhook events the receiver got, each checked against the endpoint's secret (Standard Webhooks: HMAC-SHA256 of id.timestamp.body). */
async function verifiedEvents(secret: string): Promise<Array<{ id: string; type: string; data: Record<string, any> }>> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return (await p.webhooksReceived()).map((request) => {
    const expected = createHmac('sha256', key).update(`${request.webhookId}.${request.webhookTimestamp}.${request.body}`).digest('base64');
    expect(request.webhookSignature.split(' ')).toContain(`v1,${expected}`);
    const event = JSON.parse(request.body) as { id: string; type: string; data: Record<string, any> };
    expect(event.id).toBe(request.webhookId);
    return event;
  });
}

/** The merchant's webhook endpoint, registered through the API once for the recovery tests; its secret checks the signatures. */
let webhookSecret: string | undefined;
async function webhookEndpoint(): Promise<string> {
  webhookSecret ??= (
    await p.call<{ secret: string }>('POST', '/v1/webhookEndpoints', {
      url: `${p.webhookReceiverUrl}/renew`,
      eventTypes: ['paymentMethod.created', 'payment.succeeded', 'customer.reactivated'],
      description: 'e2e: the merchant told of the portal recovery',
    })
  ).secret;
  return webhookSecret;
}

for (const language of PORTAL_LANGUAGES) {
  test(`${language}: a customer suspended after a failed renewal follows the PaymentFailed e-mail's link, enters a new card in the hosted fields, pays, and is Active, the payment allocated and the merchant told by webhooks`, async ({
    page,
  }) => {
    const secret = await webhookEndpoint();
    const t = portalText(language);
    // French on a phone, English on a desktop (the others at the browser's default).
    if (language === 'fr') await page.setViewportSize({ width: 320, height: 720 });
    if (language === 'en') await page.setViewportSize({ width: 1280, height: 800 });
    const cardLabels = cardFieldsText(language);
    // The account's test clock only moves forward (every test of this file shares it): start next month.
    const clock = new Date((await p.call<{ now: string }>('GET', '/v1/testclock')).now);
    const month = (n: number, plusDays = 0) =>
      new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth() + n, 10, 12) + plusDays * DAY).toISOString();
    await p.call('POST', '/v1/testclock/advance', { to: month(1) });
    const customer = await activeCustomer({ pay: true, language });
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
    await p.call('POST', '/v1/testclock/advance', { to: month(2, 6) });
    expect((await p.call<{ status: string }>('GET', `/v1/customers/${customer.id}`)).status).toBe('Suspended');
    const unpaid = (await p.call<Array<{ id: number; outstandingBalance: number }>>('GET', `/v1/customers/${customer.id}/invoices`)).filter(
      (i) => i.outstandingBalance > 0,
    );
    expect(unpaid).toHaveLength(1);

    // The PaymentFailed e-mail at the SMTP stand-in: the last one (each failed collection, one a day, sends one,
    // and each newer link supersedes the older; the outbox sends in order). Its button's link and the text
    // part's link are the same one.
    const paymentFailed = (inLanguage: CustomerLanguage) =>
      renderEmail({
        branding: { name: p.brandName, logoUrl: null, color: '#000000' },
        language: inLanguage,
        customerName: `Ada ${customer.lastName}`,
        event: { type: 'PaymentFailed', amount: String(unpaid[0]!.outstandingBalance), currency: 'USD', declineCode: null },
        actionUrl: 'https://portal.test/x',
      });
    const expected = await paymentFailed(language);
    const failedCollections = (await p.call<Array<{ status: string }>>('GET', `/v1/customers/${customer.id}/payments`)).filter(
      (payment) => payment.status === 'Failed',
    ).length;
    expect(failedCollections).toBeGreaterThan(1);
    let email: ReceivedEmail | undefined;
    await expect(async () => {
      const paymentFailedEmails = (await p.emailsTo(customer.email)).filter((e) => e.subject === expected.subject);
      expect(paymentFailedEmails.length, expected.subject).toBe(failedCollections);
      email = paymentFailedEmails.at(-1);
    }).toPass({ timeout: 20_000 });
    expect(email!.html).toContain(`lang="${language}"`);
    const hrefs = [...email!.html!.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const link = hrefs.find((href) => href.startsWith(`${p.captureUrl}/portal/open?`) && href.includes('#token=pl_'));
    expect(link, 'the HTML button leads into the portal').toBeDefined();
    expect(email!.text).toContain(link!);
    expect(new URL(link!).searchParams.get('lang')).toBe(language);
    // The e-mail speaks the customer's language: for fr, de and es not one word of the English e-mail.
    if (language !== 'en') {
      const names = wordsOf(`${p.brandName} Ada ${customer.lastName}`);
      // ("mail": German writes E-Mail too)
      const englishWords = [...emailWords(await paymentFailed('en'))].filter((w) => !names.has(w) && w !== 'mail');
      expect(englishWords.length).toBeGreaterThan(20);
      const words = emailWords(email!);
      expect(englishWords.filter((w) => words.has(w))).toEqual([]);
    }

    const seenByPortalScript: string[] = [];
    page.on('request', (request) => {
      // The card goes from the frame to the capture endpoint; the portal's own requests never carry it.
      if (request.frame() === page.mainFrame() && (request.postData() ?? '').includes('4242424242424242'))
        seenByPortalScript.push(request.url());
    });
    // The e-mail's link alone opens the portal, on the card, in the customer's language, under the merchant's name.
    await page.goto(link!);
    await expect(page.locator('html')).toHaveAttribute('lang', language);
    await expect(page.locator('main')).toContainText(`${customer.email.slice(0, 1)}•••@example.com`);
    await continueToPortal(page);
    await expect(page).toHaveURL(/\/portal\/(\?.*)?(#.*)?$/);
    await expect(portal(page).getByRole('heading', { name: t.cardTitle })).toBeVisible();
    await expect(page.getByRole('banner').filter({ hasText: p.brandName })).toBeVisible();
    if (language !== 'en') await expectNoEnglishOnScreen(page, language, 'card');
    await expect(portal(page).locator('renew-hosted-card-frame[ready]')).toBeAttached();
    await cardFrame(page).getByLabel(cardLabels.cardNumber).fill('4242 4242 4242 4242');
    await cardFrame(page).getByLabel(cardLabels.expiry).fill('12 / 30');
    await cardFrame(page).getByLabel(cardLabels.cvv).fill('123');
    // Something is overdue: the form offers to pay it with this card in the same step, checked (as Stripe does).
    const payDue = portal(page).getByRole('checkbox', {
      name: new RegExp(`^${escapeRegExp(say(t.payDueWithCard, '§')).replace('§', '.+')}$`),
    });
    await expect(payDue).toBeChecked();
    await portal(page).getByRole('button', { name: t.saveCard }).click();
    await expect(portal(page).getByRole('status')).toContainText(t.cardSaved);
    await expect(portal(page).getByRole('status')).toContainText(say(t.paid, '§').split('§')[0]!);
    await expect(portal(page).getByRole('checkbox')).toHaveCount(0);
    await axeClean(page, `${language}: card saved and paid`);

    // Nothing is left to pay.
    await portal(page).getByRole('link', { name: t.payInvoices }).first().click();
    await expect(portal(page).getByRole('heading', { name: t.payTitle })).toBeVisible();
    await expect(portal(page).getByText(t.nothingDue)).toBeVisible();
    if (language !== 'en') await expectNoEnglishOnScreen(page, language, 'pay');

    expect((await p.call<{ status: string }>('GET', `/v1/customers/${customer.id}`)).status).toBe('Active');
    expect((await p.call<{ outstandingBalance: number }>('GET', `/v1/Invoices/${unpaid[0]!.id}`)).outstandingBalance).toBe(0);
    const payments = await p.call<Array<{ id: number; source: string; status: string; invoiceAllocations: Array<{ invoiceId: number }> }>>(
      'GET',
      `/v1/customers/${customer.id}/payments`,
    );
    // Paid once: the billing clock, which tries a new default card at once, left the card the portal paid with alone.
    await p.call('POST', '/v1/testclock/advance', { to: new Date(Date.parse(month(2, 6)) + 3_600_000).toISOString() });
    expect(payments.filter((pay) => pay.status === 'Succeeded' && pay.source !== 'SelfServicePortal')).toHaveLength(1);
    expect(
      (await p.call<Array<{ status: string }>>('GET', `/v1/customers/${customer.id}/payments`)).filter((pay) => pay.status === 'Succeeded'),
    ).toHaveLength(2);
    const portalPayment = payments.find((pay) => pay.source === 'SelfServicePortal');
    expect(portalPayment).toMatchObject({
      status: 'Succeeded',
      invoiceAllocations: [expect.objectContaining({ invoiceId: unpaid[0]!.id })],
    });
    expect(seenByPortalScript).toEqual([]);

    // The card entered in the portal is the default now; the merchant's receiver got it, the payment and the reactivation, signed.
    const cards = await p.call<Array<{ id: number; isDefault: boolean; maskedCardNumber: string }>>(
      'GET',
      `/v1/customers/${customer.id}/paymentMethods/creditCard`,
    );
    const newCard = cards.find((card) => card.isDefault);
    expect(newCard?.maskedCardNumber).toMatch(/4242$/);
    await expect(async () => {
      const events = await verifiedEvents(secret);
      expect(events.find((e) => e.type === 'paymentMethod.created' && e.data.id === newCard!.id)).toMatchObject({
        data: { customerId: customer.id },
      });
      expect(events.find((e) => e.type === 'payment.succeeded' && e.data.id === portalPayment!.id)).toMatchObject({
        data: { customerId: customer.id },
      });
      expect(events.find((e) => e.type === 'customer.reactivated' && e.data.id === customer.id)).toMatchObject({
        data: { status: 'Active' },
      });
    }).toPass({ timeout: 20_000 });
  });
}

test('a customer signs in with a link sent by e-mail, from the sign-in page the shop links to (no key in its address)', async ({
  page,
}) => {
  const customer = await activeCustomer();
  await page.goto(`${p.captureUrl}/portal/sign-in`);
  await page.getByLabel('E-mail address').fill(customer.email.toUpperCase());
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await expect(page.getByRole('status')).toBeVisible();
  let link: string | undefined;
  await expect(async () => {
    const emails = await p.emailsTo(customer.email);
    // the sign-in e-mail (the activation's InvoicePost e-mail has a portal link too: to the invoices, 7 days)
    const signIn = emails.filter((e) => /sign-in link/.test(e.subject)).at(-1);
    link = /https?:\/\/\S+\/portal\/open\?lang=\w+#token=[\w-]+/.exec(signIn?.text ?? '')?.[0];
    expect(link).toBeDefined();
  }).toPass({ timeout: 20_000 });
  // This browser asked for the link (its cookie holds the nonce the link is bound to): it opens without a question.
  await page.goto(link!);
  await expect(portal(page).getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(portal(page).getByText(/Basic/).first()).toBeVisible();
  // The link opened once: a second opening is refused.
  const token = new URLSearchParams(new URL(link!).hash.slice(1)).get('token');
  const again = await page.request.post(`${p.captureUrl}/portal/open`, { data: { token } });
  expect(again.status()).toBe(410);
});

test('French at 320 px: a used link answers a French page under the brand, axe-clean, whose one button sends a new link that opens the portal', async ({
  page,
}) => {
  const customer = await activeCustomer({ language: 'fr' });
  await page.setViewportSize({ width: 320, height: 720 });
  const session = await p.call<{ url: string }>('POST', '/v1/portalSessions', { customerId: customer.id, locale: 'fr' });
  await page.goto(session.url);
  await expect(page.locator('main')).toContainText(p.brandName);
  await continueToPortal(page);
  await expect(portal(page).getByRole('navigation')).toBeVisible();
  // The same link again (the e-mail clicked twice, the back button): no JSON, no dead end.
  await page.goto(session.url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Ce lien a déjà servi');
  await expect(page.locator('header.merchant')).toContainText(p.brandName);
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
  const axeClean = async (where: string) => {
    const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(results.violations.map((v) => `${where}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(320);
  };
  await axeClean('used link');
  const before = (await p.emailsTo(customer.email)).filter((e) => /lien de connexion/.test(e.subject)).length;
  await page.getByRole('button', { name: 'M’envoyer un nouveau lien' }).click();
  await expect(page.getByRole('status')).toContainText('un nouveau lien de connexion est en route');
  await axeClean('sent');
  let link: string | undefined;
  await expect(async () => {
    const signIns = (await p.emailsTo(customer.email)).filter((e) => /lien de connexion/.test(e.subject));
    expect(signIns.length).toBeGreaterThan(before);
    link = /https?:\/\/\S+\/portal\/open\?lang=fr#token=[\w-]+/.exec(signIns.at(-1)?.text ?? '')?.[0];
    expect(link).toBeDefined();
  }).toPass({ timeout: 20_000 });
  // Asked for by this browser: it opens the portal at once, in French.
  await page.goto(link!);
  await expect(portal(page).getByRole('navigation')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
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
  // Set to end: no plan change is offered for a period that is not coming.
  await expect(portal(page).getByRole('link', { name: /^Change plan/ })).toHaveCount(0);

  await portal(page).getByRole('button', { name: 'Keep subscription' }).click();
  await expect(portal(page).getByRole('status')).toHaveText('Your subscription continues.');
  await expect(portal(page).getByRole('link', { name: 'Cancel subscription' })).toBeVisible();
  await expect(portal(page).getByRole('link', { name: /^Change plan/ })).toBeVisible();
});

test('a customer changes Basic monthly to yearly: the preview, the confirmation, the invoice it showed; the page stays axe-clean (every rule)', async ({
  page,
}) => {
  const customer = await activeCustomer({ pay: true });
  await openPortal(page, customer.id);
  await portal(page)
    .getByRole('link', { name: /^Change plan/ })
    .click();
  await expect(portal(page).getByRole('heading', { name: /^Change plan: / })).toBeFocused();
  // The demo catalogue lets Basic and Pro switch: Pro is offered beside Basic's yearly frequency.
  await expect(portal(page).getByRole('radio', { name: /^Pro, monthly: / })).toBeVisible();
  await portal(page).getByRole('radio', { name: 'Basic, yearly: $199.00' }).check();
  await portal(page).getByRole('button', { name: 'Show what it costs' }).click();
  await expect(portal(page).getByRole('heading', { name: 'What the change costs' })).toBeFocused();
  const totalCell = portal(page).locator('tfoot td.number');
  const shownTotal = (await totalCell.innerText()).trim();
  expect(shownTotal).toMatch(/^\$\d/);
  await expect(portal(page).getByRole('cell', { name: /^Unused time: / })).toBeVisible();
  await axeClean(page, 'change plan preview');

  await portal(page).getByRole('button', { name: 'Confirm change' }).click();
  await expect(portal(page).getByRole('status')).toHaveText(`Your subscription is changed. Invoice total: ${shownTotal}.`);
  await expect(portal(page).getByRole('status')).toBeFocused();
  const [subscription] = await p.call<Array<{ planFrequency: { id: number } }>>('GET', `/v1/customers/${customer.id}/subscriptions`);
  expect(subscription!.planFrequency.id).toBe(12);
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

test("the overview shows a metered subscription's usage so far and its running total after more events; axe-clean", async ({ page }) => {
  const metered = await meteredCustomer(p.call, { firstName: 'Ada', lastName: `Metered${Date.now()}`, primaryEmail: newEmail() });
  await metered.send('views_calls', 5);
  await metered.send('views_data', 1, { gb: 1.5 });
  await metered.send('views_data', 1, { gb: 2.25 });
  await openPortal(page, metered.id);
  const block = portal(page).getByRole('region', { name: 'Used so far this period' });
  const usage = await p.call<{ periodStart: string; periodEnd: string }>('GET', `/v1/subscriptions/${metered.subscriptionId}/usage`);
  const day = (iso: string) => new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));
  await expect(block.getByText(`${day(usage.periodStart)} – ${day(usage.periodEnd)}`)).toBeVisible();
  // 5 calls, the first 3 free, then 0.25 each; 3.75 GB at 0.5 = 1.875, rounded once to 1.88.
  await expect(block.locator('tbody tr').first().locator('td')).toHaveText(['API calls', '5', '$0.50']);
  await expect(block.locator('tbody tr').nth(1).locator('td')).toHaveText(['Data transfer', '3.75', '$1.88']);
  await expect(block.locator('tfoot')).toHaveText(/Total so far\s*\$2\.38/);
  await axeClean(page, 'overview with usage');
  await metered.send('views_calls', 4);
  await page.reload();
  await expect(block.locator('tbody tr').first().locator('td')).toHaveText(['API calls', '9', '$1.50']);
  await expect(block.locator('tfoot')).toHaveText(/Total so far\s*\$3\.38/);
  expect((await p.call<{ amount: number }>('GET', `/v1/subscriptions/${metered.subscriptionId}/usage`)).amount).toBe(3.38);
  // In French: the block's words and amounts the French way, no English word of the portal's on screen.
  await openPortal(page, metered.id, { locale: 'fr' });
  const fr = portal(page).getByRole('region', { name: portalText('fr').usedSoFar });
  await expect(fr.locator('tfoot')).toHaveText(/Total à ce jour\s*3,38\s*\$US/);
  await expectNoEnglishOnScreen(page, 'fr', 'overview with usage');
});

test('the French portal shows no English', async ({ page }) => {
  const customer = await activeCustomer();
  await openPortal(page, customer.id, { locale: 'fr' });
  for (const view of VIEWS) {
    await page.evaluate((hash) => (location.hash = hash), view);
    await expectNoEnglishOnScreen(page, 'fr', view);
  }
  // The card fields in the frame speak French too.
  await page.evaluate(() => (location.hash = 'card'));
  await expect(cardFrame(page).getByLabel('Numéro de carte')).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.lang)).toBe('fr');
  // Its frame's accessible name as well (a screen reader announces it).
  await expect(portal(page).locator('renew-hosted-card-frame iframe')).toHaveAttribute('title', 'Coordonnées de la carte');
});

test('French at 320 px: a refusal of the server and an empty field are told in French, never in the English of the server or the browser', async ({
  page,
}) => {
  await page.setViewportSize({ width: 320, height: 800 });
  const customer = await activeCustomer();
  await openPortal(page, customer.id, { locale: 'fr' });
  await page.evaluate(() => (location.hash = 'pay'));
  const payButton = portal(page).getByRole('button', { name: /^Payer / });
  await expect(payButton).toBeVisible();
  // Paid behind the page's back: the portal's payment is refused (nothing owed, state_conflict).
  await p.call('POST', '/v1/payments', {
    customerId: customer.id,
    amount: 29.99,
    paymentMethod: 'CreditCard',
    useDefaultPaymentMethod: true,
  });
  await payButton.click();
  await expect(portal(page).getByRole('alert')).toHaveText(
    'Ce n’est plus possible en l’état. Rechargez la page pour voir la situation à jour.',
  );

  await page.evaluate(() => (location.hash = 'card'));
  const firstName = portal(page).locator('input[name="firstName"]');
  await firstName.fill('');
  await portal(page).locator('form button[type="submit"]').first().click();
  expect(await firstName.evaluate((input: HTMLInputElement) => input.validationMessage)).toBe('Veuillez renseigner ce champ.');
  await firstName.fill('Ada');
  expect(await firstName.evaluate((input: HTMLInputElement) => input.validationMessage)).toBe('');
});

for (const width of [320, 768, 1280]) {
  test(`every portal page is axe-clean (every rule, one banner) and fits ${width} px without sideways scrolling`, async ({ page }) => {
    // Owing: the card form offers to pay with the card, and the pay view its form.
    const customer = await activeCustomer();
    await page.setViewportSize({ width, height: 800 });
    const fits = async (where: string) =>
      expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(width);

    await page.goto(`${p.captureUrl}/portal/sign-in?account=${encodeURIComponent(p.publicApiKey)}`);
    await axeClean(page, 'sign-in');
    await fits('sign-in');

    await openPortal(page, customer.id);
    await expect(page.getByRole('banner')).toHaveCount(1);
    const subscriptions = await p.call<Array<{ id: number }>>('GET', `/v1/customers/${customer.id}/subscriptions`);
    const id = subscriptions[0]!.id;
    for (const view of [...VIEWS, `cancel-${id}`, `change-${id}`]) {
      await page.evaluate((hash) => (location.hash = hash), view);
      await expect(portal(page).locator('main h2')).toBeVisible();
      if (view === 'card' || view === 'pay')
        await expect(
          portal(page)
            .locator('renew-hosted-card-frame[ready]')
            .or(portal(page).getByRole('button', { name: /^Pay / })),
        ).toBeAttached();
      if (view === 'details') await expect(portal(page).getByLabel('Country')).toBeVisible();
      await axeClean(page, view);
      await fits(view);
    }
  });
}

test("the demo store's Account page opens the portal for the shopper its checkout signed in", async ({ page, checkout }) => {
  await reachPayment(checkout, newShopper());
  await checkout.getByRole('button', { name: 'Continue to payment' }).click();
  await payWith(checkout, '4242 4242 4242 4242');
  await expect(checkout.getByRole('heading', { name: 'Thank you!' })).toBeVisible();
  await page.getByRole('link', { name: 'Account' }).click();
  await continueToPortal(page);
  await expect(page).toHaveURL(new RegExp(`^${product.captureUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/portal/`));
  await expect(portal(page).getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(portal(page).getByText(/Basic/).first()).toBeVisible();
  // "Back to the shop" leads to the store that sent the customer.
  await expect(portal(page).getByRole('link', { name: 'Back to the shop' })).toHaveAttribute('href', `${product.demoUrl}/`);
  // The demo store lets Basic and Pro switch: "Change plan" is offered.
  await expect(portal(page).getByRole('link', { name: /^Change plan/ })).toBeVisible();

  // The billing address the checkout stored, prefilled, its country and state chosen; another one saved from the form.
  await portal(page).getByRole('link', { name: 'Contact and address' }).click();
  await expect(portal(page).getByLabel('Address', { exact: true })).toHaveValue('1 Main Street');
  await expect(portal(page).getByLabel('City')).toHaveValue('New York');
  await expect(portal(page).getByLabel('Postal code')).toHaveValue('10001');
  await expect(portal(page).getByLabel('Country')).toHaveValue('840');
  await expect(portal(page).getByLabel('State, province or region')).toHaveValue('US-NY');
  await axeClean(page, 'details');
  await portal(page).getByLabel('Country').selectOption({ label: 'Canada' });
  await portal(page).getByLabel('State, province or region').selectOption('CA-ON');
  await portal(page).getByLabel('City').fill('Toronto');
  await portal(page).getByLabel('Postal code').fill('M5V 2T6');
  await portal(page).locator('form[aria-labelledby="address-heading"]').getByRole('button', { name: 'Save' }).click();
  await expect(portal(page).getByRole('status')).toHaveText('Saved.');
  await page.reload();
  await expect(portal(page).getByLabel('Country')).toHaveValue('124');
  await expect(portal(page).getByLabel('State, province or region')).toHaveValue('CA-ON');
  await expect(portal(page).getByLabel('City')).toHaveValue('Toronto');
});

test("the demo store's Account page offers a signed-out customer the portal's sign-in", async ({ page }) => {
  await page.goto(`${product.demoUrl}/account`);
  await page.getByRole('link', { name: 'Sign in with your e-mail address' }).click();
  await expect(page).toHaveURL(/\/portal\/sign-in\?account=pk_e2e_[0-9a-f]+$/);
  await expect(page.getByRole('heading', { name: 'Sign in to your account' })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Inkwell');
});

test("3-D Secure: a customer saves a card through its bank, pays the open invoice through it again; the renewal waits for the bank, and the AuthenticationRequired e-mail's link pays it", async ({
  page,
}) => {
  const t = portalText('en');
  // The sandbox's card that asks for 3-D Secure on every save and payment.
  const ALWAYS = '4000002760003184';
  const clock = new Date((await p.call<{ now: string }>('GET', '/v1/testclock')).now);
  const month = (n: number, plusDays = 0) =>
    new Date(Date.UTC(clock.getUTCFullYear(), clock.getUTCMonth() + n, 10, 12) + plusDays * DAY).toISOString();
  await p.call('POST', '/v1/testclock/advance', { to: month(1) });
  const email = `three-d-secure.${Date.now()}@example.com`;
  const customer = await p.call<{ id: number }>('POST', '/v1/customers', {
    firstName: 'Ada',
    lastName: 'Secure',
    primaryEmail: email,
    currency: 'USD',
  });
  await p.call('POST', '/v1/subscriptions', { customerId: customer.id, planFrequencyId: 11 });
  await p.call('POST', '/v1/customeractivation', {
    customerId: customer.id,
    activateAllSubscriptions: true,
    activateAllDraftPurchases: false,
    temporarilyDisableAutoPost: false,
  });
  const session = await p.call<{ url: string }>('POST', '/v1/portalSessions', { customerId: customer.id });
  await page.goto(session.url);
  await continueToPortal(page);
  // The one-use link leads on to /portal/ (the session in its cookie): the portal's own page from then on.
  await expect(page).toHaveURL(/\/portal\/(\?.*)?(#.*)?$/);
  const portal = page.locator('renew-portal');
  await expect(portal.getByRole('heading', { name: t.overview })).toBeVisible();

  // The card: typed in the hosted fields, confirmed at the bank in the fields' own dialog.
  await portal.getByRole('link', { name: t.updateCard }).first().click();
  await expect(portal.getByRole('heading', { name: t.cardTitle })).toBeVisible();
  await expect(portal.locator('renew-hosted-card-frame[ready]')).toBeAttached();
  const frame = portal.locator('renew-hosted-card-frame iframe').contentFrame();
  await frame.getByLabel('Card number').fill(ALWAYS);
  await frame.getByLabel('Expiry date (MM / YY)').fill('12 / 30');
  await frame.getByLabel('Security code (CVV)').fill('123');
  // The invoice is due: the form offers to pay it with this card; this customer pays in the pay view instead.
  await portal.getByRole('checkbox', { name: /^Pay the .* due now with this card$/ }).uncheck();
  await portal.getByRole('button', { name: t.saveCard }).click();
  await frame.locator('#challenge-frame').contentFrame().getByRole('button', { name: 'Complete' }).click();
  await expect(portal.getByRole('status')).toHaveText(t.cardSaved);

  // The payment: the bank asks again (this card always does); its page in the portal's dialog.
  await portal.getByRole('link', { name: t.payInvoices }).first().click();
  await expect(portal.getByRole('heading', { name: t.payTitle })).toBeVisible();
  await portal.getByRole('button', { name: /^Pay / }).click();
  const dialog = portal.getByRole('dialog', { name: t.bankTitle });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('heading', { name: t.bankTitle })).toBeFocused();
  await portal.locator('#bank-challenge').contentFrame().getByRole('button', { name: 'Complete' }).click();
  await expect(portal.getByRole('status')).toContainText('Thank you');
  const invoices = await p.call<Array<{ outstandingBalance: number }>>('GET', `/v1/customers/${customer.id}/invoices`);
  expect(invoices.map((i) => i.outstandingBalance)).toEqual([0]);
  const payments = await p.call<Array<{ status: string; source: string }>>('GET', `/v1/customers/${customer.id}/payments`);
  expect(payments).toEqual([expect.objectContaining({ status: 'Succeeded', source: 'SelfServicePortal' })]);

  // A month on, the renewal is collected off-session: the bank asks again, so the payment waits for the customer.
  const setting = await p.call<Record<string, unknown>>('GET', `/v1/customerbillingsetting/${customer.id}`);
  await p.call('PUT', '/v1/customerbillingsetting', { ...setting, autoCollect: true });
  await p.call('POST', '/v1/testclock/advance', { to: month(2, 1) });
  const waiting = (
    await p.call<Array<{ paymentActivityId: number; status: string }>>('GET', `/v1/customers/${customer.id}/payments`)
  ).filter((payment) => payment.status === 'RequiresAction');
  expect(waiting).toHaveLength(1);
  let link: string | undefined;
  // The newest e-mail's link (a newer one supersedes the older): the count is read until two reads a second apart agree,
  // so an e-mail the outbox has yet to send is not missed.
  let seen = -1;
  await expect(async () => {
    const asked = (await p.emailsTo(email)).filter((e) => /confirm your payment/.test(e.subject));
    expect(asked.length).toBeGreaterThan(0);
    const before = seen;
    seen = asked.length;
    expect(seen).toBe(before);
    link = /https?:\/\/\S+token=[^\s)]+/.exec(asked.at(-1)?.text ?? '')?.[0];
  }).toPass({ timeout: 20_000, intervals: [1_000] });
  await page.goto(link ?? 'about:blank');
  await continueToPortal(page);
  await expect(portal.getByRole('heading', { name: t.confirmTitle })).toBeVisible();
  await portal.getByRole('button', { name: /^Confirm the payment of / }).click();
  await expect(portal.getByRole('dialog', { name: t.bankTitle })).toBeVisible();
  await portal.locator('#bank-challenge').contentFrame().getByRole('button', { name: 'Complete' }).click();
  await expect(portal.getByRole('status')).toContainText('Thank you');
  const renewed = await p.call<Array<{ outstandingBalance: number }>>('GET', `/v1/customers/${customer.id}/invoices`);
  expect(renewed.map((i) => i.outstandingBalance)).toEqual([0, 0]);
  // The waiting payment itself was paid: no second charge.
  const after = await p.call<Array<{ paymentActivityId: number; status: string }>>('GET', `/v1/customers/${customer.id}/payments`);
  expect(after.filter((payment) => payment.status === 'Succeeded').map((payment) => payment.paymentActivityId)).toEqual(
    expect.arrayContaining([waiting[0]?.paymentActivityId]),
  );
  expect(after.filter((payment) => payment.status === 'Succeeded')).toHaveLength(2);
  expect((await p.call<{ status: string }>('GET', `/v1/customers/${customer.id}`)).status).toBe('Active');
});

test('card testing: after a declined card the French card form at 320 px asks for the CAPTCHA, says why, and saves a card once it is solved', async ({
  page,
}) => {
  await page.setViewportSize({ width: 320, height: 900 });
  const t = portalText('fr');
  const labels = cardFieldsText('fr');
  const customer = await activeCustomer({ language: 'fr' });
  await openPortal(page, customer.id, { locale: 'fr' });
  await portal(page).getByRole('link', { name: t.updateCard }).first().click();
  await expect(portal(page).getByRole('heading', { name: t.cardTitle })).toBeVisible();
  // The first attempt needs no CAPTCHA: none is shown.
  await expect(portal(page).getByText(t.captchaWhy)).toBeHidden();
  const tryCard = async (number: string) => {
    await expect(portal(page).locator('renew-hosted-card-frame[ready]')).toBeAttached();
    await cardFrame(page).getByLabel(labels.cardNumber).fill(number);
    await cardFrame(page).getByLabel(labels.expiry).fill('12 / 30');
    await cardFrame(page).getByLabel(labels.cvv).fill('123');
    await portal(page).getByRole('button', { name: t.saveCard }).click();
  };
  await tryCard('4000 0000 0000 0002');
  await expect(portal(page).getByRole('alert')).toBeVisible();
  // Declined: the reCAPTCHA (here the dev mode's box) appears with the line that says why.
  await expect(portal(page).getByText(t.captchaWhy)).toBeVisible();
  const robot = portal(page).getByLabel(t.captchaDevLabel);
  await expect(robot).toBeVisible();
  // Not solved: nothing is sent, the customer is told to solve it.
  await tryCard('5555 5555 5555 4444');
  await expect(portal(page).getByRole('alert')).toContainText(t.captchaNeeded);
  await robot.check();
  await tryCard('5555 5555 5555 4444');
  // Saved, and (the card form's "pay now" box checked by default) what was due paid with it.
  await expect(portal(page).getByRole('status')).toContainText(t.cardSaved);
  const cards = await p.call<Array<{ maskedCardNumber: string; isDefault: boolean }>>(
    'GET',
    `/v1/customers/${customer.id}/paymentMethods/creditCard`,
  );
  expect(cards.find((c) => c.isDefault)?.maskedCardNumber).toMatch(/4444$/);
  // Fits 320 px without sideways scrolling, CAPTCHA shown.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
});
