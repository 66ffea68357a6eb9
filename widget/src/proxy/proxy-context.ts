import type { z } from 'zod';
import type { PlanResponse, SubscriptionResponse, UsageChargeResponse } from '@renew/billing-service/api-types';
import { enforceRateLimit, MemoryRateLimitStore, type RateLimitStore } from '@renew/billing-service/http';
import { minorUnits, money, roundToCurrency } from '@renew/billing-service/money';
import type { CheckoutConfig } from '../checkout-contract.js';
import { SESSION_HEADER } from '../checkout-contract.js';
import { BillingApiClient } from './billing-api-client.js';
import { CheckoutSessions } from './checkout-session.js';
import { notFound, requestError } from './proxy-errors.js';
import { headerSink } from './proxy-io.js';
import type { SubscriptionParams } from './proxy-schemas.js';

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

/** One request being answered: its shopper address, the headers of the answer, its session. */
export interface Exchange {
  request: Request;
  /** The shopper's address (a risk signal for the capture host). */
  ip: string;
  /** What its per-address budgets count: the address, or its /64 for IPv6. */
  addressBudget: string;
  headers: Headers;
  params: Record<string, unknown>;
  body: unknown;
}

/** The billing API on behalf of one shopper address (`ProxyContext.billingFor`). */
export interface BillingForShopper {
  call<T>(method: Parameters<BillingApiClient['call']>[0], path: string, body?: unknown): Promise<T>;
  file(path: string, mediaType: string): Promise<Uint8Array<ArrayBuffer>>;
}

/** What every handler of one proxy shares: its options, the billing API, the sessions and the budgets. */
export type ProxyContext = ReturnType<typeof createProxyContext>;

export function createProxyContext(options: CheckoutProxyOptions) {
  const billing = new BillingApiClient(options.billingApiUrl, options.apiKey, options.billingTimeoutMs);
  const sessions = new CheckoutSessions(options.sessionSecret);
  const store = options.rateLimitStore ?? new MemoryRateLimitStore();
  const merchantPerMinute = options.merchantPerMinute ?? 1000;
  const callsPerMinute = Math.max(1, Math.floor(merchantPerMinute / 10));
  const shoppersPerMinute = Math.max(1, options.shoppersPerMinute ?? Math.floor(merchantPerMinute / 2));
  const places = minorUnits(options.currency);
  const sharedAnswer = sharedAnswers();

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

  /**
   * The billing API on behalf of one shopper address: each call it causes counts against that
   * address's budget (10 % of the merchant's per minute), then against all shoppers' share, before it is made.
   */
  const billingFor = (exchange: Exchange): BillingForShopper => {
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

  return {
    options,
    billing,
    sessions,
    store,
    sharedAnswer,
    spendShoppersShare,
    billingFor,
    /** An amount in the shop's currency, as a decimal string of its minor unit. */
    amount: (value: number) => roundToCurrency(money(value), options.currency).toFixed(places),
    catalogPlans: (answerHeaders: Headers) =>
      sharedAnswer('plans', 60_000, async () => {
        await spendShoppersShare(answerHeaders);
        return billing.call<PlanResponse[]>('GET', '/v1/Plans?pageSize=1000');
      }),
    /** What plan frequencies bill on usage (issue 41), shown beside their price. */
    usageCharges: (answerHeaders: Headers) =>
      sharedAnswer('usageCharges', 60_000, async () => {
        await spendShoppersShare(answerHeaders);
        return billing.call<UsageChargeResponse[]>('GET', '/v1/usageCharges');
      }),
    requireSession: (exchange: Exchange, customerId: number) => requireSession(sessions, exchange, customerId),
    signedInSubscription: (exchange: Exchange, api: BillingForShopper) => signedInSubscription(options, exchange, api),
  };
}

/** The session header must name the customer in the path. */
function requireSession(sessions: CheckoutSessions, exchange: Exchange, customerId: number): void {
  const token = exchange.request.headers.get(SESSION_HEADER) ?? undefined;
  if (!sessions.allows(token, customerId)) {
    throw requestError(403, 'this checkout session does not allow access to that customer (it may have expired: start again)', 'forbidden');
  }
}

/** What every shopper sees alike (plans, countries) is fetched once per `ttlMs`, not per shopper. */
function sharedAnswers() {
  const shared = new Map<string, { expires: number; value: Promise<unknown> }>();
  return <T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T> => {
    const cached = shared.get(key);
    if (cached && cached.expires > Date.now()) return cached.value as Promise<T>;
    const value = load();
    shared.set(key, { expires: Date.now() + ttlMs, value });
    value.catch(() => shared.delete(key)); // a failure is not remembered
    return value;
  };
}

/**
 * The subscription of the path, when it belongs to the customer signed in to the merchant's site (the
 * `signedInCustomer` option); another customer's is "not found", like one that does not exist.
 */
async function signedInSubscription(
  options: CheckoutProxyOptions,
  exchange: Exchange,
  api: BillingForShopper,
): Promise<SubscriptionResponse> {
  if (!options.signedInCustomer) {
    throw requestError(403, "this shop's checkout proxy has no signed-in customers (its signedInCustomer option is not set)", 'forbidden');
  }
  const customerId = await options.signedInCustomer(exchange.request);
  if (customerId === null || customerId === undefined) {
    throw requestError(401, 'sign in to the shop first', 'unauthenticated');
  }
  const { subscriptionId } = exchange.params as z.infer<typeof SubscriptionParams>;
  const subscription = await api.call<SubscriptionResponse>('GET', `/v1/subscriptions/${subscriptionId}`);
  if (subscription.customerId !== customerId) throw notFound('subscription', subscriptionId);
  return subscription;
}
