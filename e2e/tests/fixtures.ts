import { readFileSync } from 'node:fs';
import { expect, test as base, type FrameLocator, type Locator, type Page } from '@playwright/test';
import { PRODUCT_FILE } from '../support/global-setup.js';
import { METERED_VIEWS_FREQUENCY } from '../../billing-service/test/helpers/metered-catalog.js';

interface RunningProduct {
  demoUrl: string;
  billingUrl: string;
  captureUrl: string;
  apiKey: string;
  publicApiKey: string;
}
const running = JSON.parse(readFileSync(PRODUCT_FILE, 'utf8')) as RunningProduct & {
  google: RunningProduct & { recaptchaStandInUrl: string };
  portal: RunningProduct & { mailboxUrl: string; webhookReceiverUrl: string; brandName: string };
  stripe: RunningProduct & { standInUrl: string };
};

export interface ReceivedEmail {
  subject: string;
  text: string;
  html: string | null;
}

/** A webhook request as the receiver got it: the raw body and the Standard Webhooks headers. */
export interface ReceivedWebhook {
  body: string;
  webhookId: string;
  webhookTimestamp: string;
  webhookSignature: string;
}

/** A running product (started by global-setup.ts): its addresses, and its billing API as the merchant's back office sees it (private key). */
function productAt(p: RunningProduct) {
  return {
    demoUrl: p.demoUrl,
    captureUrl: p.captureUrl,
    async api<T = unknown>(path: string): Promise<T> {
      const res = await fetch(new URL(path, p.billingUrl), { headers: { authorization: `Basic ${p.apiKey}` } });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
  };
}

/** The product with the development CAPTCHA. */
export const product = productAt(running);
/**
 * The product the portal's tests use: test clocks, e-mail to the SMTP stand-in (read through `mailbox`),
 * and any API call of the merchant's back office (`call`, private key).
 */
export const portalProduct = {
  ...productAt(running.portal),
  publicApiKey: running.portal.publicApiKey,
  /** The merchant's name in its catalogue (`emails.brandName`): its e-mails and portal pages show it. */
  brandName: running.portal.brandName,
  async call<T = any>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const res = await fetch(new URL(path, running.portal.billingUrl), {
      method,
      headers: { authorization: `Basic ${running.portal.apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  },
  /** The e-mails the SMTP stand-in received for the address, oldest first: subject, text and HTML (null: plain text only). */
  async emailsTo(address: string): Promise<ReceivedEmail[]> {
    return (await fetch(`${running.portal.mailboxUrl}/emails?to=${encodeURIComponent(address)}`)).json() as Promise<ReceivedEmail[]>;
  },
  /** The webhook receiver's address (support/webhook-receiver.ts), for an endpoint registered through the API. */
  webhookReceiverUrl: running.portal.webhookReceiverUrl,
  /** The webhook requests the receiver got, oldest first. */
  async webhooksReceived(): Promise<ReceivedWebhook[]> {
    return (await fetch(`${running.portal.webhookReceiverUrl}/received`)).json() as Promise<ReceivedWebhook[]>;
  },
};

/** The product on the Stripe adapter, Stripe played by its local stand-in (billing-service/test/stand-ins/stripe). */
export const stripeProduct = { ...productAt(running.stripe), standInUrl: running.stripe.standInUrl };

/** The product with reCAPTCHA, Google played by a local stand-in (support/recaptcha-stand-in.ts). */
export const googleProduct = { ...productAt(running.google), recaptchaStandInUrl: running.google.recaptchaStandInUrl };

export interface Shopper {
  firstName: string;
  lastName: string;
  email: string;
}

// Unique across the parallel workers too (each its own process).
let shopperNumber = 0;
export function newShopper(): Shopper {
  shopperNumber += 1;
  return {
    firstName: 'Grace',
    lastName: `Hopper${shopperNumber}`,
    email: `grace.${Date.now()}.${process.pid}.${shopperNumber}@example.com`,
  };
}

export const test = base.extend<{ checkout: Locator; problems: string[] }>({
  // Console errors and CSP violations on the store page: a test fails on any.
  problems: async ({ page }, use) => {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await use(problems);
  },
  checkout: async ({ page, problems }, use) => {
    void problems;
    await page.goto(product.demoUrl);
    await use(page.locator('renew-checkout'));
  },
});
export { expect };

/** Steps 1-5 as a shopper does them: plan, details, New York address, review. */
export async function reachPayment(checkout: Locator, shopper: Shopper, plan: RegExp = /Basic.*per month/) {
  await reachAddress(checkout, shopper, plan);
  await checkout.getByRole('button', { name: 'Review order' }).click();
  await expect(checkout.getByRole('heading', { name: 'Your order' })).toBeVisible();
}

/** Steps 1-3, the New York address typed in, not yet sent. */
export async function reachAddress(checkout: Locator, shopper: Shopper, plan: RegExp = /Basic.*per month/) {
  await checkout.getByRole('radio', { name: plan }).check();
  await checkout.getByRole('button', { name: 'Continue' }).click();
  await checkout.getByLabel('First name').fill(shopper.firstName);
  await checkout.getByLabel('Last name').fill(shopper.lastName);
  await checkout.getByLabel('E-mail').fill(shopper.email);
  await checkout.getByRole('button', { name: 'Continue' }).click();
  await checkout.getByLabel('Address', { exact: true }).fill('1 Main Street');
  await checkout.getByLabel('City').fill('New York');
  await checkout.getByLabel('Postal code').fill('10001');
  await checkout.getByLabel('Country').selectOption('US');
  await checkout.getByLabel('State / province').selectOption('US-NY');
}

/** Steps 1-5 in French at 320 px (New York address), on to the payment step with the hosted card fields ready. */
export async function reachFrenchPayment(page: Page, shopper: Shopper): Promise<Locator> {
  await page.setViewportSize({ width: 320, height: 640 });
  await page.goto(`${product.demoUrl}/?lang=fr`);
  const checkout = page.locator('renew-checkout');
  await checkout.getByRole('radio', { name: /Basic.*par mois/ }).check();
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await checkout.getByLabel('Prénom').fill(shopper.firstName);
  await checkout.getByLabel('Nom', { exact: true }).fill(shopper.lastName);
  await checkout.getByLabel('Adresse e-mail').fill(shopper.email);
  await checkout.getByRole('button', { name: 'Continuer' }).click();
  await checkout.getByLabel('Adresse', { exact: true }).fill('1 Main Street');
  await checkout.getByLabel('Ville').fill('New York');
  await checkout.getByLabel('Code postal').fill('10001');
  await checkout.getByLabel('Pays').selectOption('US');
  await checkout.getByLabel('État / région').selectOption('US-NY');
  await checkout.getByRole('button', { name: 'Vérifier la commande' }).click();
  await checkout.getByRole('button', { name: 'Passer au paiement' }).click();
  await expect(checkout.getByRole('heading', { name: 'Paiement' })).toBeVisible();
  await expect(checkout.locator('renew-hosted-card-frame[ready]')).toBeAttached();
  return checkout;
}

/** The card typed into the hosted fields (in French), the CAPTCHA ticked, Pay pressed. */
export async function payInFrench(checkout: Locator, card: string) {
  const frame = checkout.locator('renew-hosted-card-frame iframe').contentFrame();
  await frame.getByLabel('Numéro de carte').fill(card);
  await frame.getByLabel("Date d'expiration (MM / AA)").fill('12 / 30');
  await frame.getByLabel('Cryptogramme (CVV)').fill('123');
  await checkout.getByLabel('Je ne suis pas un robot').check();
  await checkout.getByRole('button', { name: /^Payer / }).click();
  return frame;
}

/** The hosted card fields: the capture host's document inside the checkout's iframe. */
export function cardFrame(checkout: Locator): FrameLocator {
  return checkout.locator('renew-hosted-card-frame iframe').contentFrame();
}

/** The checkout with its card inputs in the widget itself (`card-fields="direct"`), as a merchant writes it in HTML. */
export async function useDirectCardFields(checkout: Locator) {
  await checkout.evaluate((element) => element.setAttribute('card-fields', 'direct'));
}

/** Fills the card where the checkout shows it: in the hosted frame (the default), or in the widget (direct mode). */
export async function fillCard(checkout: Locator, card: string, cvv = '123') {
  if ((await checkout.getAttribute('card-fields')) === 'direct') {
    await checkout.getByLabel('Card number').fill(card);
    await checkout.getByLabel('Expiry (MM / YY)').fill('12 / 30');
    await checkout.getByLabel('Security code (CVV)').fill(cvv);
    return;
  }
  // The frame answers once its script runs.
  await expect(checkout.locator('renew-hosted-card-frame[ready]')).toBeAttached();
  const frame = cardFrame(checkout);
  await frame.getByLabel('Card number').fill(card);
  await frame.getByLabel('Expiry date (MM / YY)').fill('12 / 30');
  await frame.getByLabel('Security code (CVV)').fill(cvv);
}

export async function payWith(checkout: Locator, card: string, cvv = '123') {
  await fillCard(checkout, card, cvv);
  await checkout.getByLabel("I'm not a robot").check();
  await checkout.getByRole('button', { name: /^Pay / }).click();
}

export async function customerByEmail(email: string, at: { api: typeof product.api } = product) {
  const list = await at.api<Array<{ id: number; status: string }>>(`/v1/customers?query=PrimaryEmail:${encodeURIComponent(email)}`);
  return list[0];
}

export function requestsTo(page: Page, origin: string): string[] {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(origin)) seen.push(`${request.method()} ${request.url()}`);
  });
  return seen;
}

type ApiCall = <T = any>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => Promise<T>;

/**
 * An Active customer on the metered plan the console's and the portal's products sell (issue 41,
 * billing-service/test/helpers/metered-catalog.ts), and `send`: usage events for it through POST /v1/usageEvents,
 * dated at the first second of its current period (in the period, and in the past whatever the account clock says).
 */
export async function meteredCustomer(call: ApiCall, body: Record<string, unknown>) {
  const customer = await call<{ id: number }>('POST', '/v1/customers', { currency: 'USD', ...body });
  const subscription = await call<{ id: number }>('POST', '/v1/subscriptions', {
    customerId: customer.id,
    planFrequencyId: METERED_VIEWS_FREQUENCY,
  });
  await call('POST', '/v1/customeractivation', {
    customerId: customer.id,
    activateAllSubscriptions: true,
    activateAllDraftPurchases: false,
    temporarilyDisableAutoPost: false,
  });
  const { periodStart } = await call<{ periodStart: string }>('GET', `/v1/subscriptions/${subscription.id}/usage`);
  let sent = 0;
  const send = async (metricCode: string, count: number, properties: Record<string, unknown> = {}) => {
    const events = Array.from({ length: count }, () => ({
      transactionId: `e2e-${customer.id}-${++sent}`,
      customerId: customer.id,
      metricCode,
      timestamp: `${periodStart}T00:00:01Z`,
      properties,
    }));
    const answer = await call<{ accepted: number }>('POST', '/v1/usageEvents', events);
    expect(answer).toEqual({ accepted: count, duplicates: 0, refused: [] });
  };
  return { id: customer.id, subscriptionId: subscription.id, send };
}
