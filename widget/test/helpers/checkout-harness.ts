import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { MemoryRateLimitStore } from '@renew/billing-service/http';
import { buildCaptureApp } from '@renew/capture-service/app';
import { DevCaptcha } from '@renew/capture-service/dev-captcha';
import { BASE_URL, startTestApp, type TestApp } from '../../../billing-service/test/helpers/test-app.js';
import { SESSION_HEADER } from '../../src/checkout-contract.js';
import { checkoutProxy, type CheckoutProxyOptions } from '../../src/proxy/checkout-proxy.js';

export { errorsOf } from '../../../billing-service/test/helpers/test-app.js';

/**
 * The checkout's real servers on real ports over one test database: the billing
 * API, the card-capture host (dev CAPTCHA, sandbox gateway) and a shop's server
 * with the checkout proxy mounted at /checkout.
 */
export interface CheckoutHarness {
  billing: TestApp;
  billingUrl: string;
  captureUrl: string;
  /** The shop's server with the proxy; `proxyUrl` is its /checkout base. */
  shop: FastifyInstance;
  proxyUrl: string;
  proxyOptions: CheckoutProxyOptions;
  /** Another shop server with other proxy options (another key, a dead billing API…), listening. */
  buildShop(overrides?: Partial<CheckoutProxyOptions>): Promise<{ app: FastifyInstance; url: string }>;
  /** A JSON request to the proxy, with a session when given. */
  proxy(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    session?: string,
    app?: FastifyInstance,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

/** `billing`: the billing API's test options (e-mail over an SMTP stand-in, another catalogue…). */
export async function startCheckoutHarness(options: { billing?: Parameters<typeof startTestApp>[0] } = {}): Promise<CheckoutHarness> {
  const billing = await startTestApp(options.billing);
  const billingUrl = await listen(billing.app);
  const capture = await buildCaptureApp({
    db: billing.database.db,
    catalog: billing.catalog,
    rateLimitStore: new MemoryRateLimitStore(),
    captcha: new DevCaptcha(),
    publicBaseUrl: BASE_URL,
    ipRateLimits: { perMinute: 100_000, perDay: 1_000_000 },
  });
  const captureUrl = await listen(capture);
  const proxyOptions: CheckoutProxyOptions = {
    billingApiUrl: billingUrl,
    apiKey: billing.account.apiKey,
    captureUrl,
    publicApiKey: billing.account.publicApiKey,
    captcha: { mode: 'dev', siteKey: null },
    currency: 'USD',
    // The tests come from one address: per-address budgets are tested on their own (checkout-proxy-budget.test.ts).
    perIpPerMinute: 100_000,
    perIpNewCustomersPerMinute: 100_000,
    merchantPerMinute: 1_000_000,
  };
  const shops: FastifyInstance[] = [];
  const buildShop = async (overrides: Partial<CheckoutProxyOptions> = {}) => {
    const app = Fastify();
    await app.register(checkoutProxy, { prefix: '/checkout', ...proxyOptions, ...overrides });
    shops.push(app);
    const url = await listen(app);
    return { app, url: `${url}/checkout` };
  };
  const shop = await buildShop();
  return {
    billing,
    billingUrl,
    captureUrl,
    shop: shop.app,
    proxyUrl: shop.url,
    proxyOptions,
    buildShop,
    proxy(method, path, body, session, app = shop.app, headers = {}) {
      return app.inject({
        method,
        url: `/checkout${path}`,
        headers: {
          ...headers,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(session ? { [SESSION_HEADER]: session } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    },
    async close() {
      for (const app of shops) await app.close();
      await capture.close();
      await billing.close();
    },
  };
}

/** A shopper's details that pass every check; New York has a 4 % sales tax in the test catalogue. */
export const SHOPPER = {
  firstName: 'Grace',
  lastName: 'Hopper',
  email: 'grace@example.com',
  address: { line1: '1 Main Street', city: 'New York', postalZip: '10001', country: 'US', state: 'US-NY' },
};

/**
 * A shopper's whole checkout through the proxy and the capture host: the order, the card with the first
 * payment (the capture token the order answered, the previewed total), the activation. Its session and paid first invoice.
 */
export async function completedCheckout(h: CheckoutHarness, order: Record<string, unknown> = { planFrequencyId: 11 }) {
  const { customerId, session } = (await h.proxy('POST', '/customers', SHOPPER)).json();
  const summary = (await h.proxy('POST', `/customers/${customerId}/subscriptions`, order, session)).json();
  const paid = await fetch(`${h.captureUrl}/api/paymentsv2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      customerId,
      publicApiKey: h.billing.account.publicApiKey,
      captureToken: summary.captureToken,
      cardNumber: '4242424242424242',
      firstName: 'Grace',
      lastName: 'Hopper',
      expirationMonth: 12,
      expirationYear: 30,
      cvv: '123',
      recaptcha: `dev-${Math.random()}`,
      riskToken: 'rt',
      clientIp: '203.0.113.9',
      email: 'grace@example.com',
      paymentCollectOptions: { collectionAmount: summary.total },
    }),
  });
  if (paid.status !== 200) throw new Error(`the first payment failed: ${await paid.text()}`);
  const done = await h.proxy('POST', `/customers/${customerId}/activation`, {}, session);
  if (done.statusCode !== 200) throw new Error(`activation failed: ${done.body}`);
  const invoice = done.json().invoice as { id: number; number: number };
  return { customerId: customerId as number, session: session as string, invoice };
}
