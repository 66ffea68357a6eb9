import type { z } from 'zod';
import type {
  CaptureTokenResponse,
  CountryResponse,
  CustomerResponse,
  InvoiceResponse,
  LifecycleResponse,
  PlanChangeResponse,
  PlanResponse,
  SubscriptionResponse,
} from '@renew/billing-service/api-types';
import {
  addressBudgetKey,
  ApiError,
  API_ERROR_KEY,
  enforceRateLimit,
  errorBody,
  MemoryRateLimitStore,
  refuseDuplicateKeys,
  unstorableText,
  validationError,
  type RateLimitStore,
} from '@renew/billing-service/http';
import { minorUnits, money, roundToCurrency } from '@renew/billing-service/money';
import type {
  ChangedSubscription,
  CheckoutConfig,
  CompletedCheckout,
  CountryOption,
  OrderSummary,
  PlanChange,
  PlanOption,
  StartedCheckout,
} from '../checkout-contract.js';
import { SESSION_HEADER } from '../checkout-contract.js';
import { BillingApiClient } from './billing-api-client.js';
import { CheckoutSessions } from './checkout-session.js';
import { checkoutOpenApiDocument } from './openapi.js';
import type { SubscriptionParams } from './proxy-schemas.js';
import { PROXY_ROUTES, type ProxyAnswer, type ProxyFile, type ProxyRoute, type ProxyRouteName } from './proxy-routes.js';

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
  /** Requests per minute from one shopper address (an IPv6 one by its /64; default 120). */
  perIpPerMinute?: number;
  /**
   * The merchant's per-minute limit on the billing API (default 1,000, the account default): one
   * shopper address (an IPv6 one by its /64) may cause at most 10 % of it in billing API calls, and
   * all shoppers together `shoppersPerMinute`, so no visitor can lock the merchant's own back office out.
   */
  merchantPerMinute?: number;
  /** Billing API calls per minute all shoppers together may cause (default half of `merchantPerMinute`): the rest is the back office's. */
  shoppersPerMinute?: number;
  /** New checkouts (customers created) per minute from one shopper address (default 20: a household or an office behind one address). */
  perIpNewCustomersPerMinute?: number;
  rateLimitStore?: RateLimitStore;
  billingTimeoutMs?: number;
  /**
   * Who is signed in to the merchant's site, for the routes of a signed-in customer (plan changes): the billing
   * API's id of the customer the shop's own session (its cookie, read by the merchant's code) belongs to, or
   * null/undefined when nobody is signed in (401). The browser never names the customer. Unset: those routes answer 403.
   */
  signedInCustomer?: (request: Request) => number | null | undefined | Promise<number | null | undefined>;
}

export interface CheckoutHandlerOptions extends CheckoutProxyOptions {
  /** The path the proxy is mounted at, as the request URL shows it (default `/checkout`). */
  basePath?: string;
}

/** What the server knows about a request that a `Request` does not carry. */
export interface CheckoutRequestContext {
  /** The shopper's address (the socket's, or the one a trusted proxy forwarded): rate limits and a capture risk field. */
  clientIp?: string;
  /** Overrides the handler's `basePath` for this request (an Express router mounted somewhere). */
  basePath?: string;
}

export type CheckoutHandler = (request: Request, context?: CheckoutRequestContext) => Promise<Response>;

/**
 * The billing API's refusal of the shopper's order, in the checkout's terms: the billing API's
 * field keys name its own fields, while the shopper typed one coupon code. Branches on the
 * error codes only (never on the English words, which may change).
 */
export function shopperRefusal(error: ApiError): ApiError {
  if (error.hasCode('subscription_not_draft')) return ApiError.conflict(CHECKOUT_COMPLETE, 'customerId', 'checkout_complete');
  if (error.hasCode('coupon_unknown')) return ApiError.badRequest('this coupon code does not exist', 'couponCode', 'coupon_unknown');
  if (error.hasCode('coupon_inapplicable'))
    return ApiError.badRequest('this coupon cannot be used for this order', 'couponCode', 'coupon_inapplicable');
  return error;
}

const CHECKOUT_COMPLETE = 'this checkout is complete: its order can no longer change (start a new checkout for another order)';

type ServiceDates = { startServiceDate: string; endServiceDate: string };

/** Bodies the proxy accepts are small JSON objects; anything bigger is refused unread. */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * The thin server side of <renew-checkout>, on the standard Fetch API so that any
 * server can mount it (adapters: Fastify, Express/Connect, Next.js route handlers).
 * It holds the private API key and offers shoppers' browsers the checkout's steps
 * 1-5 and 8, and the PDF of its invoices, for the one customer their session created. Steps 6-7 (card and first
 * payment) go from the browser straight to the card-capture host, so card data
 * never passes through here. Every error is the spec's body; nothing a client
 * sends is a 500.
 */
export function createCheckoutHandler(options: CheckoutHandlerOptions): CheckoutHandler {
  const billing = new BillingApiClient(options.billingApiUrl, options.apiKey, options.billingTimeoutMs);
  const sessions = new CheckoutSessions(options.sessionSecret);
  const store = options.rateLimitStore ?? new MemoryRateLimitStore();
  const perMinute = options.perIpPerMinute ?? 120;
  const merchantPerMinute = options.merchantPerMinute ?? 1000;
  const callsPerMinute = Math.max(1, Math.floor(merchantPerMinute / 10));
  const shoppersPerMinute = Math.max(1, options.shoppersPerMinute ?? Math.floor(merchantPerMinute / 2));
  const newCustomersPerMinute = options.perIpNewCustomersPerMinute ?? 20;
  const places = minorUnits(options.currency);
  const amount = (value: number) => roundToCurrency(money(value), options.currency).toFixed(places);

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
  /**
   * The shoppers' total share of the merchant's budget. Its headers reach the shopper only with its refusal:
   * otherwise the answer shows the shopper's own (per-address) budget.
   */
  const spendShoppersShare = async (answerHeaders: Headers) => {
    const own = new Headers();
    try {
      await enforceRateLimit(store, headerSink(own), 'checkout-calls:all-shoppers', {
        perMinute: shoppersPerMinute,
        perDay: shoppersPerMinute * 60,
      });
    } catch (error) {
      for (const [name, value] of own) answerHeaders.set(name, value);
      throw error;
    }
  };
  const catalogPlans = (answerHeaders: Headers) =>
    sharedAnswer('plans', 60_000, async () => {
      await spendShoppersShare(answerHeaders);
      return billing.call<PlanResponse[]>('GET', '/v1/Plans?pageSize=1000');
    });

  /** One request being answered: its shopper address, the headers of the answer, its session. */
  interface Exchange {
    request: Request;
    /** The shopper's address (a risk signal for the capture host). */
    ip: string;
    /** What its per-address budgets count: the address, or its /64 for IPv6. */
    addressBudget: string;
    headers: Headers;
    params: Record<string, unknown>;
    body: unknown;
  }

  /**
   * The billing API on behalf of one shopper address: each call it causes counts against that
   * address's budget (10 % of the merchant's per minute), then against all shoppers' share, before it is made.
   */
  const billingFor = (exchange: Exchange) => {
    const spend = async () => {
      // An address refused its own budget stops here, so it spends nothing of the other shoppers' share.
      await enforceRateLimit(store, headerSink(exchange.headers), `checkout-calls:${exchange.addressBudget}`, {
        perMinute: callsPerMinute,
        perDay: callsPerMinute * 60,
      });
      await spendShoppersShare(exchange.headers);
    };
    return {
      call: async <T>(method: Parameters<BillingApiClient['call']>[0], path: string, body?: unknown): Promise<T> => {
        await spend();
        return billing.call<T>(method, path, body);
      },
      file: async (path: string, mediaType: string): Promise<Uint8Array<ArrayBuffer>> => {
        await spend();
        return billing.file(path, mediaType);
      },
    };
  };
  type BillingForShopper = ReturnType<typeof billingFor>;

  /** The session header must name the customer in the path. */
  const requireSession = (exchange: Exchange, customerId: number) => {
    const token = exchange.request.headers.get(SESSION_HEADER) ?? undefined;
    if (!sessions.allows(token, customerId)) {
      throw new ApiError(403, [
        { Key: API_ERROR_KEY, Value: 'this checkout session does not allow access to that customer (it may have expired: start again)' },
      ]);
    }
  };

  /**
   * The subscription of the path, when it belongs to the customer signed in to the merchant's site (the
   * `signedInCustomer` option); another customer's is "not found", like one that does not exist.
   */
  const signedInSubscription = async (exchange: Exchange, api: BillingForShopper): Promise<SubscriptionResponse> => {
    if (!options.signedInCustomer) {
      throw new ApiError(403, [
        { Key: API_ERROR_KEY, Value: "this shop's checkout proxy has no signed-in customers (its signedInCustomer option is not set)" },
      ]);
    }
    const customerId = await options.signedInCustomer(exchange.request);
    if (customerId === null || customerId === undefined) {
      throw new ApiError(401, [{ Key: API_ERROR_KEY, Value: 'sign in to the shop first' }]);
    }
    const { subscriptionId } = exchange.params as z.infer<typeof SubscriptionParams>;
    const subscription = await api.call<SubscriptionResponse>('GET', `/v1/subscriptions/${subscriptionId}`);
    if (subscription.customerId !== customerId) throw ApiError.notFound('subscription', subscriptionId);
    return subscription;
  };

  const handlers: { [K in ProxyRouteName]: (exchange: Exchange) => Promise<ProxyAnswer<(typeof PROXY_ROUTES)[K]>> } = {
    config: async (exchange): Promise<CheckoutConfig> => ({
      captureUrl: options.captureUrl,
      publicApiKey: options.publicApiKey,
      captcha: { mode: options.captcha.mode, siteKey: options.captcha.siteKey, scriptUrl: options.captcha.scriptUrl ?? null },
      currency: options.currency,
      clientIp: exchange.ip,
    }),

    // Step 1: the plans on sale, one option per plan frequency priced in the shop's currency.
    plans: async (exchange): Promise<PlanOption[]> => {
      const plans = await catalogPlans(exchange.headers);
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
              quantityChoosable: plan.planProducts.some((p) => p.maxQuantity !== undefined),
            })),
        );
    },

    countries: async (exchange): Promise<CountryOption[]> => {
      exchange.headers.set('cache-control', 'public, max-age=3600');
      return sharedAnswer('countries', 3_600_000, async () => {
        await spendShoppersShare(exchange.headers);
        return billing.call<CountryResponse[]>('GET', '/v1/countries');
      });
    },

    // Steps 2-3: the Draft customer with its billing address; the answer carries the session.
    startCheckout: async (exchange): Promise<StartedCheckout> => {
      // Each new checkout is a customer in the merchant's books: fewer per address than other calls.
      await enforceRateLimit(store, headerSink(exchange.headers), `checkout-customers:${exchange.addressBudget}`, {
        perMinute: newCustomersPerMinute,
        perDay: newCustomersPerMinute * 60,
      });
      const { firstName, lastName, email, address, language } = exchange.body as z.infer<typeof PROXY_ROUTES.startCheckout.body>;
      const customer = await billingFor(exchange).call<CustomerResponse>('POST', '/v1/customers', {
        ...(language ? { language } : {}),
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
    },

    // Step 4: the subscription as the shopper configured it, then step 5: the previewed first invoice.
    order: async (exchange): Promise<OrderSummary> => {
      const api = billingFor(exchange);
      const { customerId } = exchange.params as { customerId: number };
      requireSession(exchange, customerId);
      const { planFrequencyId, quantities = {}, couponCode } = exchange.body as z.infer<typeof PROXY_ROUTES.order.body>;
      const plan = (await catalogPlans(exchange.headers)).find((p) => p.planFrequencies.some((f) => f.id === planFrequencyId));
      const choosable = plan?.planProducts.filter((p) => p.maxQuantity !== undefined) ?? [];
      // The catalogue's bounds, checked here: the billing API lets the merchant's back office set any quantity.
      for (const [code, quantity] of Object.entries(quantities)) {
        const product = choosable.find((p) => p.code === code);
        if (!product) throw ApiError.badRequest('the quantity of this product cannot be chosen', `quantities.${code}`);
        const min = product.minQuantity ?? 1;
        if (quantity < min || quantity > product.maxQuantity!) {
          throw ApiError.badRequest(`must be between ${min} and ${product.maxQuantity}`, `quantities.${code}`, 'quantity_out_of_bounds');
        }
      }
      // Checked before anything is written: once activated, the session may only read its own invoice.
      const customer = await api.call<CustomerResponse>('GET', `/v1/customers/${customerId}`);
      // One plan per checkout; a repeated request (double click, retry) is answered like the first.
      const existing = await api.call<SubscriptionResponse[]>('GET', `/v1/customers/${customerId}/subscriptions`);
      if (customer.status !== 'Draft' || existing.some((s) => s.status !== 'Draft'))
        throw ApiError.conflict(CHECKOUT_COMPLETE, 'customerId', 'checkout_complete');
      if (existing.some((s) => s.planFrequency.id !== planFrequencyId)) {
        throw ApiError.conflict('this checkout already has another plan: start a new checkout to change it', 'planFrequencyId');
      }
      let subscription =
        existing[0] ?? (await api.call<SubscriptionResponse>('POST', '/v1/subscriptions', { customerId, planFrequencyId }));
      const wantedQuantity = (code: string) => quantities[code] ?? choosable.find((p) => p.code === code)?.quantity;
      const wantedCoupons = couponCode ? [couponCode.toUpperCase()] : [];
      const changed =
        subscription.subscriptionProducts.some(
          (p) => wantedQuantity(p.productCode) !== undefined && p.quantity !== wantedQuantity(p.productCode),
        ) || subscription.coupons.map((c) => c.code.toUpperCase()).join() !== wantedCoupons.join();
      if (changed) subscription = await applyChoice(api, subscription, wantedQuantity, couponCode);
      const summary = await previewFor(api, customerId, subscription, plan?.planProducts ?? []);
      // The capture host adds the shopper's card to this customer only with a token, for at most the total.
      const { token } = await api.call<CaptureTokenResponse>('POST', '/v1/captureTokens', {
        customerId,
        maxCollectionAmount: summary.total,
      });
      return { ...summary, captureToken: token };
    },

    // Step 8: activate, but only once the first payment covers the first invoice: a
    // shopper who changed the collection amount in the browser gets nothing for free. The billing
    // API checks it under the customer's lock (requireFullPayment), so nothing added meanwhile slips through.
    activate: async (exchange): Promise<CompletedCheckout> => {
      const api = billingFor(exchange);
      const { customerId } = exchange.params as { customerId: number };
      requireSession(exchange, customerId);
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
            throw new ApiError(402, [
              { Key: 'payment', Value: `the payment received does not cover the first invoice: ${error.errors[0]?.Value ?? ''}` },
            ]);
          }
          throw error;
        });
      return toCompleted(customerId, activated.status, activated.invoices?.[0]);
    },

    // After step 8: the invoice as a PDF, only if it is this customer's; another customer's is "not found" alike.
    invoicePdf: async (exchange): Promise<ProxyFile> => {
      const api = billingFor(exchange);
      const { customerId, invoiceId } = exchange.params as z.infer<typeof PROXY_ROUTES.invoicePdf.params>;
      requireSession(exchange, customerId);
      const invoice = await api.call<InvoiceResponse>('GET', `/v1/Invoices/${invoiceId}`);
      if (invoice.customerId !== customerId) throw ApiError.notFound('invoice', invoiceId);
      const bytes = await api.file(`/v1/Invoices/pdf/${invoiceId}`, PROXY_ROUTES.invoicePdf.binary);
      return { bytes, filename: `invoice-${invoice.invoiceNumber}.pdf` };
    },

    // A plan change of the signed-in customer's subscription: the billing API computes, checks and applies it.
    planChange: async (exchange): Promise<PlanChange> => {
      const api = billingFor(exchange);
      const { id } = await signedInSubscription(exchange, api);
      const body = exchange.body as z.infer<typeof PROXY_ROUTES.planChange.body>;
      const answer = await api.call<PlanChangeResponse>('POST', `/v1/subscriptions/${id}/changes`, body);
      return toPlanChange(answer, body.preview === true);
    },

    withdrawPlanChange: async (exchange): Promise<ChangedSubscription> => {
      const api = billingFor(exchange);
      const { id } = await signedInSubscription(exchange, api);
      return toChangedSubscription(await api.call<SubscriptionResponse>('DELETE', `/v1/subscriptions/${id}/changes/pending`));
    },
  };

  /** An amount in a currency's minor unit, as a decimal string. */
  const amountIn = (value: number, currency: string) => roundToCurrency(money(value), currency).toFixed(minorUnits(currency));

  const toChangedSubscription = (s: SubscriptionResponse): ChangedSubscription => ({
    subscriptionId: s.id,
    status: s.status,
    planFrequencyId: s.planFrequency.id,
    planCode: s.planCode,
    planName: s.planName,
    interval: s.planFrequency.interval,
    numberOfIntervals: s.planFrequency.numberOfIntervals,
    currency: s.currency,
    quantities: s.subscriptionProducts.map((p) => ({ code: p.productCode, name: p.productName, quantity: p.quantity })),
    amount: amountIn(s.amount, s.currency),
    nextPeriodStartDate: s.nextPeriodStartDate?.slice(0, 10) ?? null,
    pendingChange: s.pendingChange
      ? {
          planFrequencyId: s.pendingChange.planFrequencyId,
          quantities: s.pendingChange.quantities,
          effectiveDate: s.pendingChange.effectiveDate.slice(0, 10),
        }
      : null,
  });

  /** The billing API's answer in the proxy's terms: the posted invoice's shape or the preview's, as one shape. */
  const toPlanChange = (answer: PlanChangeResponse, preview: boolean): PlanChange => {
    const subscription = toChangedSubscription(answer.subscription);
    const currency = answer.invoice?.currency ?? subscription.currency;
    const price = (value: number) => amountIn(value, currency);
    const invoice = answer.invoice;
    const line = (
      c: { name: string; chargeType: 'Recurring' | 'SetupFee' | 'Credit'; quantity: number; amount: number } & ServiceDates,
    ) => ({
      name: c.name,
      kind: c.chargeType,
      quantity: c.quantity,
      amount: price(c.amount),
      startServiceDate: c.startServiceDate.slice(0, 10),
      endServiceDate: c.endServiceDate.slice(0, 10),
    });
    return {
      preview,
      timing: invoice ? 'now' : 'periodEnd',
      subscription,
      invoice: !invoice
        ? null
        : 'draftCharges' in invoice
          ? {
              id: null,
              number: null,
              lines: invoice.draftCharges.map(line),
              subtotal: price(invoice.subtotal),
              totalDiscount: price(invoice.totalDiscount),
              taxes: invoice.draftTaxes.map((t) => ({ name: t.name, amount: price(t.amount) })),
              totalTaxes: price(invoice.totalTaxes),
              total: price(invoice.total),
              outstandingBalance: null,
              status: null,
            }
          : {
              id: invoice.id,
              number: invoice.invoiceNumber,
              lines: invoice.charges.map(line),
              subtotal: price(invoice.subtotal),
              totalDiscount: price(invoice.totalDiscount),
              taxes: invoice.taxes.map((t) => ({ name: t.name, amount: price(t.amount) })),
              totalTaxes: price(invoice.totalTaxes),
              total: price(invoice.invoiceAmount),
              outstandingBalance: price(invoice.outstandingBalance),
              status: invoice.status,
            },
      nextRenewal: { date: answer.nextRenewal.date.slice(0, 10), amount: price(answer.nextRenewal.amount) },
    };
  };

  /** The chosen quantities and coupon, on the Draft subscription; a refused coupon is an error on the coupon field. */
  const applyChoice = async (
    api: BillingForShopper,
    subscription: SubscriptionResponse,
    quantity: (code: string) => number | undefined,
    couponCode: string | undefined,
  ) => {
    try {
      return await api.call<SubscriptionResponse>('PUT', '/v1/subscriptions', {
        id: subscription.id,
        // Draft, not whatever was read: the billing API refuses the change (under its lock) if an activation came in between.
        status: 'Draft',
        subscriptionProducts: subscription.subscriptionProducts
          .filter((p) => quantity(p.productCode) !== undefined)
          .map((p) => ({ id: p.id, quantity: String(quantity(p.productCode)) })),
        coupons: couponCode ? [{ code: couponCode }] : [],
      });
    } catch (error) {
      throw error instanceof ApiError ? shopperRefusal(error) : error;
    }
  };

  const previewFor = async (
    api: BillingForShopper,
    customerId: number,
    subscription: SubscriptionResponse,
    planProducts: PlanResponse['planProducts'],
  ): Promise<Omit<OrderSummary, 'captureToken'>> => {
    const choosable = planProducts.filter((p) => p.maxQuantity !== undefined);
    const preview = await api.call<LifecycleResponse>('POST', '/v1/customeractivation?preview=true', { customerId });
    const invoice = preview.invoicePreview;
    if (!invoice) throw ApiError.badRequest('there is nothing to pay: choose a plan first');
    // The first period's exclusive end is the next period's start: the day of the next charge.
    const firstPeriod = invoice.draftCharges.find((c) => c.chargeType === 'Recurring' && c.subscriptionId === subscription.id);
    const coupon = subscription.coupons[0];
    return {
      customerId,
      currency: invoice.currency,
      lines: invoice.draftCharges.map((c) => ({
        // The billing API names a setup fee line in English ("Seat (setup fee)"): the product's own name, and the kind, go to the browser.
        name: planProducts.find((p) => p.code === c.productCode)?.name ?? c.name,
        kind: c.chargeType,
        quantity: c.quantity,
        amount: amount(c.amount),
      })),
      subtotal: amount(invoice.subtotal),
      totalDiscount: amount(invoice.totalDiscount),
      taxes: invoice.draftTaxes.map((t) => ({ name: t.name, amount: amount(t.amount) })),
      totalTaxes: amount(invoice.totalTaxes),
      total: amount(invoice.total),
      quantities: choosable.map((p) => ({
        code: p.code,
        name: p.name,
        quantity: subscription.subscriptionProducts.find((s) => s.productCode === p.code)?.quantity ?? p.quantity,
        minQuantity: p.minQuantity ?? 1,
        maxQuantity: p.maxQuantity!,
      })),
      coupon: coupon ? { code: coupon.code, name: coupon.name } : null,
      renewal: {
        amount: amount(subscription.amount),
        interval: subscription.planFrequency.interval,
        numberOfIntervals: subscription.planFrequency.numberOfIntervals,
        nextChargeDate:
          firstPeriod?.endServiceDate ?? subscription.nextPeriodStartDate?.slice(0, 10) ?? invoice.effectiveTimestamp.slice(0, 10),
        plusTax: invoice.draftTaxes.length > 0,
        // remainingPeriods counts the first invoice too; null: a Forever coupon.
        discountContinues: subscription.coupons.some((c) => c.remainingPeriods === null || c.remainingPeriods > 1),
      },
    };
  };

  /** A repeated activation (a second click, a retried request) answers like the first. */
  const completed = async (api: BillingForShopper, customerId: number, status: string): Promise<CompletedCheckout> => {
    const invoices = await api.call<InvoiceResponse[]>(
      'GET',
      `/v1/Customers/${customerId}/Invoices?sortExpression=Id&sortOrder=Ascending&pageSize=1`,
    );
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

  const routes = Object.entries(PROXY_ROUTES).map(([name, route]) => ({
    name: name as ProxyRouteName,
    route: route as ProxyRoute,
    pattern: pathPattern(route.path),
  }));

  return async (request, context = {}) => {
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
    try {
      const url = new URL(request.url);
      const basePath = (context.basePath ?? options.basePath ?? '/checkout').replace(/\/$/, '');
      const path = url.pathname.replace(/\/$/, '');
      const ip = context.clientIp ?? 'unknown';
      // Every per-address budget counts an IPv6 address by its /64 (one subscriber's network).
      const addressBudget = addressBudgetKey(ip);
      // Anyone can reach these routes: each shopper address gets its own budget, so one
      // visitor cannot spend the merchant's API rate limit.
      await enforceRateLimit(store, headerSink(headers), `checkout-ip:${addressBudget}`, { perMinute, perDay: perMinute * 60 });
      const notFound = () => new ApiError(404, [{ Key: API_ERROR_KEY, Value: `endpoint ${request.method} ${url.pathname} not found` }]);
      if (!path.toLowerCase().startsWith(basePath.toLowerCase())) throw notFound();
      const subPath = path.slice(basePath.length) || '/';
      if (request.method === 'GET' && subPath === '/openapi.json') return json(200, checkoutOpenApiDocument(), headers);
      const match = routes
        .map((r) => ({ ...r, found: r.route.method === request.method ? r.pattern.exec(subPath) : null }))
        .find((r) => r.found);
      if (!match) throw notFound();
      const exchange: Exchange = { request, ip, addressBudget, headers, params: {}, body: undefined };
      if (match.route.params) exchange.params = parsed(match.route.params, match.found?.groups ?? {}) as Record<string, unknown>;
      if (match.route.body) exchange.body = parsed(match.route.body, await jsonBody(request));
      const answer = await handlers[match.name](exchange);
      if (match.route.binary) return file(match.route.binary, answer as ProxyFile, headers);
      return json(200, answer, headers);
    } catch (error) {
      if (error instanceof ApiError) return json(error.statusCode, errorBody(error.statusCode, error.errors), headers);
      // A bug, not the client's doing: logged here, never detailed to the browser.
      console.error('checkout proxy: unexpected error', error);
      return json(500, errorBody(500, [{ Key: API_ERROR_KEY, Value: 'something went wrong on the shop server' }]), headers);
    }
  };
}

/** `/customers/{customerId}/subscriptions` -> a regular expression with named groups, matched without regard to case. */
function pathPattern(path: string): RegExp {
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, '(?<$1>[^/]+)');
  return new RegExp(`^${source}$`, 'i');
}

function parsed(schema: z.ZodType, input: unknown): unknown {
  const unstorable = unstorableText(input);
  if (unstorable) throw validationError([{ code: 'custom', path: unstorable.path, message: unstorable.problem, input }]);
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

/** The body as JSON: none is `{}` (so every missing field is named); anything that is not a JSON object is a 400. */
async function jsonBody(request: Request): Promise<unknown> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES)
    throw new ApiError(413, [{ Key: API_ERROR_KEY, Value: 'request body too large' }]);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new ApiError(413, [{ Key: API_ERROR_KEY, Value: 'request body too large' }]);
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type))
    throw new ApiError(415, [{ Key: API_ERROR_KEY, Value: 'Content-Type must be application/json' }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw ApiError.badRequest('body is not valid JSON');
  }
  refuseDuplicateKeys(text, value);
  return value;
}

function json(status: number, body: unknown, headers: Headers): Response {
  return new Response(JSON.stringify(body), { status, headers });
}

/** A download: the bytes as they are, never kept by a shared cache (they are one shopper's). */
function file(mediaType: string, answer: ProxyFile, headers: Headers): Response {
  headers.set('content-type', mediaType);
  headers.set('content-disposition', `attachment; filename="${answer.filename}"`);
  headers.set('cache-control', 'private, no-store');
  return new Response(answer.bytes, { status: 200, headers });
}

function headerSink(headers: Headers) {
  return { header: (name: string, value: string | number) => headers.set(name, String(value)) };
}
