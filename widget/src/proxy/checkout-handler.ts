import { addressBudgetKey, ApiError, enforceRateLimit, errorBody } from '@renew/billing-service/http';
import { activate, invoicePdf } from './handlers/activate.js';
import { config, countries, plans } from './handlers/catalog.js';
import { order } from './handlers/order.js';
import { planChange, withdrawPlanChange } from './handlers/plan-change.js';
import { startCheckout } from './handlers/start-checkout.js';
import { checkoutOpenApiDocument } from './openapi.js';
import { type CheckoutProxyOptions, createProxyContext, type Exchange, type ProxyContext } from './proxy-context.js';
import { requestError, requestErrorItem, SHOP_SERVER_FAILED } from './proxy-errors.js';
import { file, headerSink, json, jsonBody, parsed, pathPattern } from './proxy-io.js';
import { PROXY_ROUTES, type ProxyAnswer, type ProxyFile, type ProxyRoute, type ProxyRouteName } from './proxy-routes.js';

export type { CheckoutProxyOptions } from './proxy-context.js';
export { shopperRefusal } from './shopper-refusal.js';

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

/** One handler per checkout operation (handlers/), each answering its route of PROXY_ROUTES. */
const HANDLERS: {
  [K in ProxyRouteName]: (ctx: ProxyContext, exchange: Exchange) => Promise<ProxyAnswer<(typeof PROXY_ROUTES)[K]>>;
} = { config, plans, countries, startCheckout, order, activate, invoicePdf, planChange, withdrawPlanChange };

const ROUTES = Object.entries(PROXY_ROUTES).map(([name, route]) => ({
  name: name as ProxyRouteName,
  route: route as ProxyRoute,
  pattern: pathPattern(route.path),
}));

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
  const ctx = createProxyContext(options);
  const perMinute = options.perIpPerMinute ?? 120;
  return async (request, context = {}) => {
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' });
    try {
      const ip = context.clientIp ?? 'unknown';
      // Every per-address budget counts an IPv6 address by its /64 (one subscriber's network).
      const addressBudget = addressBudgetKey(ip);
      // Anyone can reach these routes: each shopper address gets its own budget, so one
      // visitor cannot spend the merchant's API rate limit.
      await enforceRateLimit(ctx.store, headerSink(headers), `checkout-ip:${addressBudget}`, { perMinute, perDay: perMinute * 60 });
      const basePath = (context.basePath ?? options.basePath ?? '/checkout').replace(/\/$/, '');
      return await route(ctx, { request, ip, addressBudget, headers, params: {}, body: undefined }, basePath);
    } catch (error) {
      if (error instanceof ApiError) return json(error.statusCode, errorBody(error.statusCode, error.errors), headers);
      // A bug, not the client's doing: logged here, never detailed to the browser.
      console.error('checkout proxy: unexpected error', error);
      return json(500, errorBody(500, [requestErrorItem(SHOP_SERVER_FAILED, 'internal_error')]), headers);
    }
  };
}

/** The request to the handler of its route, its path parameters and body validated first. */
async function route(ctx: ProxyContext, exchange: Exchange, basePath: string): Promise<Response> {
  const { request, headers } = exchange;
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/$/, '');
  const notFound = () => requestError(404, `endpoint ${request.method} ${url.pathname} not found`, 'endpoint_not_found');
  if (!path.toLowerCase().startsWith(basePath.toLowerCase())) throw notFound();
  const subPath = path.slice(basePath.length) || '/';
  if (request.method === 'GET' && subPath === '/openapi.json') return json(200, checkoutOpenApiDocument(), headers);
  const match = ROUTES.map((r) => ({ ...r, found: r.route.method === request.method ? r.pattern.exec(subPath) : null })).find(
    (r) => r.found,
  );
  if (!match) throw notFound();
  if (match.route.params) exchange.params = parsed(match.route.params, match.found?.groups ?? {}) as Record<string, unknown>;
  if (match.route.body) exchange.body = parsed(match.route.body, await jsonBody(request));
  const answer = await HANDLERS[match.name](ctx, exchange);
  if (match.route.binary) return file(match.route.binary, answer as ProxyFile, headers);
  return json(200, answer, headers);
}
