import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type {
  CaptureTokenResponse,
  CountryResponse,
  CustomerResponse,
  InvoiceResponse,
  LifecycleResponse,
  PlanResponse,
  SubscriptionResponse,
} from '@renew/billing-service/api-types';
import { ApiError, API_ERROR_KEY, enforceRateLimit, jsonApi, MemoryRateLimitStore, type RateLimitStore } from '@renew/billing-service/http';
import { minorUnits, money, roundToCurrency } from '@renew/billing-service/money';
import type { CheckoutConfig, CompletedCheckout, CountryOption, OrderSummary, PlanOption, StartedCheckout } from '../checkout-contract.js';
import { SESSION_HEADER } from '../checkout-contract.js';
import { BillingApiClient } from './billing-api-client.js';
import { CheckoutSessions } from './checkout-session.js';
import { CustomerParams, ShopperDetailsBody, SubscriptionBody } from './proxy-schemas.js';

export interface CheckoutProxyOptions {
  /** The billing API, reached from this server with the private key. */
  billingApiUrl: string;
  apiKey: string;
  /** Given to browsers: the card-capture host and the account's public key. */
  captureUrl: string;
  publicApiKey: string;
  captcha: CheckoutConfig['captcha'];
  /** Currency of new customers and of the prices shown. */
  currency: string;
  /** Signs checkout sessions; instances behind one load balancer need the same one. Random when unset. */
  sessionSecret?: string;
  /** Requests per minute from one shopper address (default 120). */
  perIpPerMinute?: number;
  /**
   * The merchant's per-minute limit on the billing API (default 1,000, the account default): one
   * shopper address may cause at most 10 % of it in billing API calls, so no visitor can lock the
   * merchant's own back office out.
   */
  merchantPerMinute?: number;
  /** New checkouts (customers created) per minute from one shopper address (default 20: a household or an office behind one address). */
  perIpNewCustomersPerMinute?: number;
  rateLimitStore?: RateLimitStore;
  billingTimeoutMs?: number;
}

/**
 * The thin server side of <renew-checkout>: it holds the private API key and
 * offers shoppers' browsers the checkout's steps 1-5 and 8 for the one customer
 * their session created. Steps 6-7 (card and first payment) go from the browser
 * straight to the card-capture host, so card data never passes through here.
 * Register it under a prefix: `app.register(checkoutProxy, { prefix: '/checkout', ... })`.
 */
export async function checkoutProxy(fastify: FastifyInstance, options: CheckoutProxyOptions) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const billing = new BillingApiClient(options.billingApiUrl, options.apiKey, options.billingTimeoutMs);
  const sessions = new CheckoutSessions(options.sessionSecret);
  const store = options.rateLimitStore ?? new MemoryRateLimitStore();
  const perMinute = options.perIpPerMinute ?? 120;
  const callsPerMinute = Math.max(1, Math.floor((options.merchantPerMinute ?? 1000) / 10));
  const newCustomersPerMinute = options.perIpNewCustomersPerMinute ?? 20;
  /**
   * The billing API on behalf of one shopper address: each call it causes counts against that
   * address's budget (10 % of the merchant's per minute), before it is made.
   */
  const billingFor = (request: FastifyRequest, reply: FastifyReply) => ({
    call: async <T>(method: Parameters<BillingApiClient['call']>[0], path: string, body?: unknown): Promise<T> => {
      await enforceRateLimit(store, reply, `checkout-calls:${request.ip}`, { perMinute: callsPerMinute, perDay: callsPerMinute * 60 });
      return billing.call<T>(method, path, body);
    },
  });
  /** What every shopper sees alike (plans, countries) is fetched once per `ttlMs`, not per shopper. */
  const shared = new Map<string, { expires: number; value: Promise<unknown> }>();
  const sharedAnswer = <T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> => {
    const cached = shared.get(key);
    if (cached && cached.expires > Date.now()) return cached.value as Promise<T>;
    const value = load();
    shared.set(key, { expires: Date.now() + ttlMs, value });
    value.catch(() => shared.delete(key)); // a failure is not remembered
    return value;
  };
  const places = minorUnits(options.currency);
  const amount = (value: number) => roundToCurrency(money(value), options.currency).toFixed(places);

  // zod validation and the spec's error body for every answer under the prefix, whatever the host app
  // does; the host's body parsers are kept, and a wrong method is 404 as any unknown route.
  await app.register(jsonApi, { bodies: false, methodNotAllowed: false });
  // Anyone can reach these routes: each shopper address gets its own budget, so one
  // visitor cannot spend the merchant's API rate limit.
  app.addHook('onRequest', async (request, reply) => {
    await enforceRateLimit(store, reply, `checkout-ip:${request.ip}`, { perMinute, perDay: perMinute * 60 });
  });

  /** The session header must name the customer in the path. */
  const requireSession = (request: FastifyRequest, customerId: number) => {
    const token = request.headers[SESSION_HEADER];
    if (!sessions.allows(typeof token === 'string' ? token : undefined, customerId)) {
      throw new ApiError(403, [{ Key: API_ERROR_KEY, Value: 'this checkout session does not allow access to that customer (it may have expired: start again)' }]);
    }
  };

  const previewFor = async (api: ReturnType<typeof billingFor>, customerId: number): Promise<Omit<OrderSummary, 'captureToken'>> => {
    const preview = await api.call<LifecycleResponse>('POST', '/v1/customeractivation?preview=true', { customerId });
    const invoice = preview.invoicePreview;
    if (!invoice) throw ApiError.badRequest('there is nothing to pay: choose a plan first');
    return {
      customerId,
      currency: invoice.currency,
      lines: invoice.draftCharges.map((c) => ({ name: c.name, quantity: c.quantity, amount: amount(c.amount) })),
      subtotal: amount(invoice.subtotal),
      totalDiscount: amount(invoice.totalDiscount),
      taxes: invoice.draftTaxes.map((t) => ({ name: t.name, amount: amount(t.amount) })),
      totalTaxes: amount(invoice.totalTaxes),
      total: amount(invoice.total),
    };
  };

  app.get('/config', async (request): Promise<CheckoutConfig> => ({
    captureUrl: options.captureUrl,
    publicApiKey: options.publicApiKey,
    captcha: { mode: options.captcha.mode, siteKey: options.captcha.siteKey, scriptUrl: options.captcha.scriptUrl ?? null },
    currency: options.currency,
    clientIp: request.ip,
  }));

  // Step 1: the plans on sale, one option per plan frequency priced in the shop's currency.
  app.get('/plans', async (): Promise<PlanOption[]> => {
    const plans = await sharedAnswer('plans', 60_000, () => billing.call<PlanResponse[]>('GET', '/v1/Plans?pageSize=1000'));
    const inCurrency = (prices: Array<{ amount: number; currency: string }>) => prices.find((p) => p.currency === options.currency);
    return plans
      .filter((plan) => plan.status === 'Active')
      .flatMap((plan) =>
        plan.planFrequencies
          .filter((f) => f.status === 'Active' && inCurrency(f.charges))
          .map((f) => ({
            planFrequencyId: f.id,
            planCode: plan.code,
            planName: plan.name,
            description: plan.description,
            interval: f.interval,
            numberOfIntervals: f.numberOfIntervals,
            currency: options.currency,
            recurringPrice: amount(Number(inCurrency(f.charges)?.amount ?? 0)),
            setupFee: amount(Number(inCurrency(f.setupFees)?.amount ?? 0)),
          })),
      );
  });

  app.get('/countries', async (_request, reply): Promise<CountryOption[]> => {
    reply.header('cache-control', 'public, max-age=3600');
    return sharedAnswer('countries', 3_600_000, () => billing.call<CountryResponse[]>('GET', '/v1/countries'));
  });

  // Steps 2-3: the Draft customer with its billing address; the answer carries the session.
  app.post('/customers', { schema: { body: ShopperDetailsBody } }, async (request, reply): Promise<StartedCheckout> => {
    // Each new checkout is a customer in the merchant's books: fewer per address than other calls.
    await enforceRateLimit(store, reply, `checkout-customers:${request.ip}`, { perMinute: newCustomersPerMinute, perDay: newCustomersPerMinute * 60 });
    const { firstName, lastName, email, address } = request.body;
    const customer = await billingFor(request, reply).call<CustomerResponse>('POST', '/v1/customers', {
      firstName,
      lastName,
      primaryEmail: email,
      currency: options.currency,
      billing: {
        line1: address.line1,
        line2: address.line2 || null,
        city: address.city,
        postalZip: address.postalZip,
        country: address.country.toUpperCase(),
        state: address.state ? address.state.split('-')[1]!.toUpperCase() : null,
      },
    });
    return { customerId: customer.id, session: sessions.issue(customer.id) };
  });

  // Step 4: the subscription, then step 5: the previewed first invoice.
  app.post('/customers/:customerId/subscriptions', { schema: { params: CustomerParams, body: SubscriptionBody } }, async (request, reply): Promise<OrderSummary> => {
    const api = billingFor(request, reply);
    const { customerId } = request.params;
    requireSession(request, customerId);
    const { planFrequencyId } = request.body;
    // One plan per checkout; a repeated request (double click, retry) is answered like the first.
    const existing = await api.call<SubscriptionResponse[]>('GET', `/v1/customers/${customerId}/subscriptions`);
    if (existing.some((s) => s.planFrequency.id !== planFrequencyId)) {
      throw ApiError.conflict('this checkout already has another plan: start a new checkout to change it', 'planFrequencyId');
    }
    if (existing.length === 0) await api.call('POST', '/v1/subscriptions', { customerId, planFrequencyId });
    const summary = await previewFor(api, customerId);
    // The capture host adds the shopper's card to this customer only with a token, for at most the total.
    const { token } = await api.call<CaptureTokenResponse>('POST', '/v1/captureTokens', { customerId, maxCollectionAmount: summary.total });
    return { ...summary, captureToken: token };
  });

  // Step 8: activate, but only once the first payment covers the first invoice: a
  // shopper who changed the collection amount in the browser gets nothing for free. The billing
  // API checks it under the customer's lock (requireFullPayment), so nothing added meanwhile slips through.
  app.post('/customers/:customerId/activation', { schema: { params: CustomerParams } }, async (request, reply): Promise<CompletedCheckout> => {
    const api = billingFor(request, reply);
    const { customerId } = request.params;
    requireSession(request, customerId);
    const customer = await api.call<CustomerResponse>('GET', `/v1/customers/${customerId}`);
    if (customer.status !== 'Draft') return completed(api, customerId, customer.status);
    const activated = await api
      .call<LifecycleResponse>('POST', '/v1/customeractivation?view=sideeffects', {
        customerId,
        activateAllSubscriptions: true,
        activateAllDraftPurchases: true,
        temporarilyDisableAutoPost: false,
        requireFullPayment: true,
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.statusCode === 402) {
          throw new ApiError(402, [{ Key: 'payment', Value: `the payment received does not cover the first invoice: ${error.errors[0]?.Value ?? ''}` }]);
        }
        throw error;
      });
    return toCompleted(customerId, activated.status, activated.invoices?.[0]);
  });

  /** A repeated activation (a second click, a retried request) answers like the first. */
  const completed = async (api: ReturnType<typeof billingFor>, customerId: number, status: string): Promise<CompletedCheckout> => {
    const invoices = await api.call<InvoiceResponse[]>('GET', `/v1/Customers/${customerId}/Invoices?sortExpression=Id&sortOrder=Ascending&pageSize=1`);
    return toCompleted(customerId, status, invoices[0]);
  };

  const toCompleted = (customerId: number, status: string, invoice: InvoiceResponse | undefined): CompletedCheckout => ({
    customerId,
    status,
    invoice: invoice
      ? {
          id: invoice.id,
          number: invoice.invoiceNumber,
          total: amount(invoice.invoiceAmount),
          amountPaid: amount(invoice.totalPayments),
          outstandingBalance: amount(invoice.outstandingBalance),
          status: invoice.status,
        }
      : null,
  });
}
