import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { DEMO_CATALOG_PATH } from '@renew/billing-service';
import { startProduct } from '../../scripts/start-product.js';
import { startMailbox } from './mailbox.js';
import { startWebhookReceiver } from './webhook-receiver.js';
import { STAND_IN_SECRET, STAND_IN_SITE_KEY, startRecaptchaStandIn } from './recaptcha-stand-in.js';
import { startStripeStandIn } from '../../billing-service/test/stand-ins/stripe/index.js';
import { meteredCatalogChanges } from '../../billing-service/test/helpers/metered-catalog.js';

/** Marks the line with the addresses among the product's own log lines. */
export const PRODUCT_LINE_PREFIX = 'renew-e2e-product ';

/**
 * The whole product as `npm start` runs it (same launcher), on free ports and
 * fresh embedded databases, for the browser tests: once with the dev CAPTCHA,
 * once with reCAPTCHA against a local stand-in of Google. Prints one line with
 * the addresses and keys (JSON after PRODUCT_LINE_PREFIX), then runs until SIGTERM.
 */
const dataDirs: string[] = [];
async function start(env: Record<string, string>, catalogChanges: Record<string, unknown> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'renew-e2e-'));
  dataDirs.push(dataDir);
  const apiKey = `sk_e2e_${randomBytes(16).toString('hex')}`;
  const publicApiKey = `pk_e2e_${randomBytes(16).toString('hex')}`;
  // Every browser test shops from 127.0.0.1, and the proxy lets one address spend only 10 % of the
  // merchant's per-minute API budget: the demo catalogue with a budget the whole suite fits in.
  const catalogPath = path.join(dataDir, 'catalog.json');
  const demoCatalog = JSON.parse(readFileSync(DEMO_CATALOG_PATH, 'utf8')) as Record<string, unknown>;
  writeFileSync(catalogPath, JSON.stringify({ ...demoCatalog, rateLimits: { perMinute: 20_000, perDay: 1_000_000 }, ...catalogChanges }));
  const product = await startProduct({
    ...process.env,
    RENEW_DATA_DIR: dataDir,
    RENEW_API_PORT: '0',
    RENEW_CAPTURE_PORT: '0',
    RENEW_DEMO_PORT: '0',
    RENEW_LOG_LEVEL: process.env.RENEW_LOG_LEVEL ?? 'warn',
    RENEW_API_KEY: apiKey,
    RENEW_CATALOG: catalogPath,
    RENEW_PUBLIC_API_KEY: publicApiKey,
    RENEW_BILLING_CLOCK_MS: '0',
    DATABASE_URL: '',
    ...env,
  });
  if (!product.demo) throw new Error(`the demo store did not start:\n${product.banner}`);
  return {
    product,
    running: {
      demoUrl: product.demo.url,
      billingUrl: product.billing.url,
      captureUrl: product.captureUrl,
      apiKey,
      publicApiKey,
      // The console's first owner signs up through it (one use, 24 h).
      consoleFirstOwnerLink: product.billing.consoleFirstOwnerLink ?? null,
    },
  };
}

/** A port free now, so the demo store's origin is known before the product starts. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

/**
 * The dev product lists its demo store as the one shop domain (exact origin), so the browser
 * tests see the hosted card fields framed by it and refused to any other page; the google
 * product lists none (any site).
 */
const demoPort = await freePort();
const demoCatalog = JSON.parse(readFileSync(DEMO_CATALOG_PATH, 'utf8')) as {
  capture?: Record<string, unknown>;
  plans: unknown[];
  billableMetrics?: unknown[];
  currencies: { allowed: string[] };
};
const demoCapture = demoCatalog.capture;
/** The console's and the portal's products sell a metered plan too (issue 41): their usage views are tested on it. */
const metered = meteredCatalogChanges(demoCatalog, demoCatalog.currencies.allowed);

const recaptcha = await startRecaptchaStandIn();
const dev = await start(
  { RENEW_CAPTCHA: 'dev', RENEW_DEMO_PORT: String(demoPort) },
  { capture: { ...demoCapture, allowedShopDomains: [`http://127.0.0.1:${demoPort}`] } },
);
const google = await start({
  RENEW_CAPTCHA: 'google',
  RENEW_RECAPTCHA_SECRET: STAND_IN_SECRET,
  RENEW_RECAPTCHA_VERIFY_URL: `${recaptcha.url}/recaptcha/api/siteverify`,
  RENEW_RECAPTCHA_SITE_KEY: STAND_IN_SITE_KEY,
  RENEW_RECAPTCHA_SCRIPT_URL: `${recaptcha.url}/recaptcha/api.js`,
});
// The customer portal's tests: test clocks (a renewal that fails), e-mail to the SMTP stand-in (sign-in links),
// webhooks to a local receiver (plain HTTP on the loopback, allowed here only), and a catalogue that lets
// customers cancel either way and change two e-mail preferences, branded with a colour too light for white
// (the portal darkens it as an accent: see portal-branding.ts).
const PORTAL_BRAND_NAME = 'Inkwell Paper';
const mailbox = await startMailbox();
const webhookReceiver = await startWebhookReceiver();
const portal = await start(
  {
    RENEW_CAPTCHA: 'dev',
    RENEW_TEST_CLOCKS: 'true',
    RENEW_SMTP_URL: mailbox.smtpUrl,
    RENEW_EMAIL_FROM: 'billing@shop.example',
    RENEW_WEBHOOK_ALLOW_HTTP: 'true',
    RENEW_WEBHOOK_ALLOW_PRIVATE: 'true',
  },
  {
    portal: {
      cancelMode: 'either',
      editableEmailTypes: ['InvoicePost', 'PaymentReceived'],
      defaultReturnUrl: 'http://shop.example/account',
    },
    emails: { brandName: PORTAL_BRAND_NAME, brandColor: '#f0a830' },
    ...metered,
  },
);
// The console's tests, on a product of their own: the revenue page is compared with the sum of every Active
// subscription, which the shop's tests, run in parallel on the dev product, keep adding to.
// Test clocks and webhooks to the loopback too (issue 38): the console drives the account's clock and sends test events.
const consoleProduct = await start(
  {
    RENEW_CAPTCHA: 'dev',
    RENEW_TEST_CLOCKS: 'true',
    RENEW_WEBHOOK_ALLOW_HTTP: 'true',
    RENEW_WEBHOOK_ALLOW_PRIVATE: 'true',
  },
  metered,
);
// The checkout on the Stripe adapter (issue 37): the product talks to a local Stripe stand-in (its API, its 3-D Secure
// page, its signed webhooks to the capture host), switched on with the three settings a merchant sets.
const stripe = await startStripeStandIn();
// Stripe returns the shopper's browser to the capture host's public address: known before the product starts.
const stripeCapturePort = await freePort();
const stripeProduct = await start({
  RENEW_CAPTCHA: 'dev',
  RENEW_CAPTURE_PORT: String(stripeCapturePort),
  RENEW_CAPTURE_PUBLIC_URL: `http://127.0.0.1:${stripeCapturePort}`,
  RENEW_GATEWAY: 'stripe',
  RENEW_STRIPE_SECRET_KEY: stripe.secretKey,
  RENEW_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  RENEW_STRIPE_API_BASE: stripe.url,
});
stripe.setWebhookEndpoint(`${stripeProduct.running.captureUrl}/api/gateway/stripe/webhooks`);
console.log(
  PRODUCT_LINE_PREFIX +
    JSON.stringify({
      ...dev.running,
      google: { ...google.running, recaptchaStandInUrl: recaptcha.url },
      portal: { ...portal.running, mailboxUrl: mailbox.url, webhookReceiverUrl: webhookReceiver.url, brandName: PORTAL_BRAND_NAME },
      console: consoleProduct.running,
      stripe: { ...stripeProduct.running, standInUrl: stripe.url },
    }),
);

const stop = async () => {
  await stripeProduct.product.close();
  await stripe.close();
  await consoleProduct.product.close();
  await portal.product.close();
  await mailbox.close();
  await webhookReceiver.close();
  await google.product.close();
  await dev.product.close();
  await recaptcha.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
