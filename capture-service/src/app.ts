import formbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { createAppContext } from '@renew/billing-service';
import type { Catalog } from '@renew/billing-service/catalog';
import type { Db, InstanceLiveness, LivenessOptions } from '@renew/billing-service/db';
import {
  addressBudgetKey,
  ApiError,
  API_ERROR_KEY,
  enforceRateLimit,
  jsonApi,
  jsonApiServerOptions,
  type RateLimitStore,
} from '@renew/billing-service/http';
import { observe, type ObservabilityOptions } from '@renew/billing-service/observability';
import { SandboxGateway, StripeGateway, type PaymentGateway } from '@renew/billing-service/payments';
import type { CaptchaVerifier } from './captcha/captcha-verifier.js';
import { UsedCaptchaTokens } from './captcha/used-tokens.js';
import { captureSettingsFrom, type CaptureSettings } from './capture.js';
import { captureLoggerOptions } from './logging.js';
import { PublicKeyAuthenticator } from './public-key.js';
import { registerCardFields } from './hosted/card-fields-routes.js';
import { PORTAL_IP_LIMITS, registerPortal } from './portal/portal-routes.js';
import { PAYMENT_ID_HEADER, registerCaptureRoute } from './capture-route.js';
import { registerAuthenticationRoutes } from './authentication-routes.js';
import { registerSandboxChallenge } from './sandbox/challenge-routes.js';
import { registerStripeReturnPage } from './stripe/return-page.js';
import { registerStripeWebhooks } from './stripe/webhook-route.js';
import type { ShopDomains } from './shop-domains.js';

export { CAPTURE_PATH, PAYMENT_ID_HEADER } from './capture-route.js';

/** Per client address (an IPv6 one by its /64), before anything else: generous for a shopper, tight for card testing. */
export const DEFAULT_IP_RATE_LIMITS = { perMinute: 30, perDay: 1000 };

const EXPOSED_HEADERS = [
  'X-Rate-Limit-Limit-Minute',
  'X-Rate-Limit-Remaining-Minute',
  'X-Rate-Limit-Reset-Minute',
  'X-Rate-Limit-Limit-Day',
  'X-Rate-Limit-Remaining-Day',
  'X-Rate-Limit-Reset-Day',
  'Retry-After',
  PAYMENT_ID_HEADER,
].join(', ');

export interface CaptureAppOptions {
  db: Db;
  catalog: Catalog;
  rateLimitStore: RateLimitStore;
  /** SiteverifyCaptcha (RENEW_CAPTCHA=google) or DevCaptcha (RENEW_CAPTCHA=dev). */
  captcha: CaptchaVerifier;
  /** The service's reCAPTCHA secret (RENEW_RECAPTCHA_SECRET); an account's own `capture.recaptchaSecret` wins. */
  recaptchaSecret?: string;
  /** The service's reCAPTCHA site key (RENEW_RECAPTCHA_SITE_KEY), for the portal's card form; an account's own `capture.recaptchaSiteKey` wins. */
  recaptchaSiteKey?: string;
  /** Where the portal loads Google's reCAPTCHA script from (RENEW_RECAPTCHA_SCRIPT_URL); default Google's. */
  recaptchaScriptUrl?: string;
  /** Default: the sandbox gateway. */
  gateway?: PaymentGateway;
  gatewayTimeoutMs?: number;
  /** Base of every `uri` in responses (the billing API's public address), without a trailing slash. */
  publicBaseUrl: string;
  /** This host's own public origin, where portal sign-in links point (RENEW_CAPTURE_PUBLIC_URL; startCaptureService sets it once listening). */
  portalBaseUrl?: string;
  /** false (default), true, or pino options (level, stream…); card data is redacted whatever is given. */
  logger?: FastifyServerOptions['logger'];
  /** Per client address; default DEFAULT_IP_RATE_LIMITS. The per-key limit is the account's. */
  ipRateLimits?: { perMinute: number; perDay: number };
  trustProxy?: string | boolean;
  requireTls?: boolean;
  https?: { cert: Buffer; key: Buffer };
  /** Default 16 KiB: a card form is small. */
  bodyLimit?: number;
  /** Write e-mail notifications of collected payments to the outbox (sent by the billing API's worker). */
  emailEnabled?: boolean;
  /** Accounts' test clocks (RENEW_TEST_CLOCKS) date what is stored here. */
  testClocks?: boolean;
  /** GET /metrics: its token (unset: loopback clients only), PostgreSQL's pools, process metrics. */
  observability?: ObservabilityOptions;
  /** This instance's heartbeat settings; `instance`: shared with the billing API in one process (`npm start`). */
  liveness?: LivenessOptions;
  instance?: InstanceLiveness;
}

/**
 * The card-capture host: POST /api/paymentsv2 (form-encoded in the query string
 * or body, or JSON), authenticated by the public API key and a reCAPTCHA v2
 * token. It can add a card (and collect a first payment) and nothing else.
 */
export async function buildCaptureApp(options: CaptureAppOptions): Promise<FastifyInstance> {
  const app = Fastify(
    jsonApiServerOptions({
      logger: captureLoggerOptions(options.logger),
      trustProxy: options.trustProxy,
      bodyLimit: options.bodyLimit ?? 16 * 1024,
      https: options.https,
    }),
  );
  // Bodies: JSON, or form fields (@fastify/formbody); anything else is 415.
  await app.register(jsonApi, {
    ctx: createAppContext({ ...options, role: 'capture', emailEnabled: options.emailEnabled ?? false }),
    bodies: { accepted: 'application/x-www-form-urlencoded or application/json' },
  });
  await app.register(formbody);
  // /healthz, /readyz, /metrics; every response is counted by route and status.
  const observability = observe(app, options.db, options.observability);
  // Every account shares the catalogue file; settingsFor is where per-account settings would be looked up.
  const settings = captureSettingsFrom(options.catalog);
  const settingsFor = (_accountId: number): CaptureSettings => settings;
  const authenticator = new PublicKeyAuthenticator(options.db);
  const captcha = {
    verifier: options.captcha,
    usedTokens: new UsedCaptchaTokens(options.db),
    ...(options.recaptchaSecret ? { serviceSecret: options.recaptchaSecret } : {}),
  };
  app.addHook('onRequest', corsAndAddressLimits(settings.domains, options));
  observability.registerRoutes();

  registerCaptureRoute(app, { settingsFor, authenticator, captcha, rateLimitStore: options.rateLimitStore });
  // 3-D Secure: completing a capture that answered 202; the gateway's own pages for the shopper's browser.
  registerAuthenticationRoutes(app);
  const gateway = app.ctx.payments.gateway;
  if (gateway instanceof SandboxGateway) registerSandboxChallenge(app, gateway);
  // Stripe's: the page its challenges return to (the bank's page is Stripe's own).
  if (gateway instanceof StripeGateway) {
    registerStripeReturnPage(app);
    // and its signed webhooks (disputes)
    registerStripeWebhooks(app, gateway);
  }

  // The card fields a shop embeds in an iframe (hosted mode of <renew-checkout>); framed only by the shop domains.
  registerCardFields(app, settings.domains);
  // The customer portal: its pages and JSON routes, on the sessions of @renew/billing-service/portal.
  const siteKey = options.catalog.capture.recaptchaSiteKey ?? options.recaptchaSiteKey;
  registerPortal(app, {
    ctx: app.ctx,
    rateLimitStore: options.rateLimitStore,
    publicKeys: authenticator,
    // The card form's CAPTCHA after a decline (portal/portal-card-attempts.ts).
    captcha: {
      mode: options.captcha.mode,
      ...(siteKey ? { siteKey } : {}),
      ...(options.recaptchaScriptUrl ? { scriptUrl: options.recaptchaScriptUrl } : {}),
    },
  });

  return app;
}

/**
 * Before every route: CORS for the shop's pages, HTTPS when required, and the per-address budgets
 * (the portal's own, else the capture host's).
 */
function corsAndAddressLimits(domains: ShopDomains, options: CaptureAppOptions) {
  const ipLimits = options.ipRateLimits ?? DEFAULT_IP_RATE_LIMITS;
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // CORS: shoppers' browsers call from the shop's pages. The origin is allowed
    // (reflected) when no shop domains are listed, else only a listed one.
    const origin = request.headers.origin;
    reply.header('Vary', 'Origin');
    if (origin && domains.allowsOrigin(origin)) {
      reply.header('Access-Control-Allow-Origin', origin);
      reply.header('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    if (request.method === 'OPTIONS') return;
    const config = request.routeOptions.config;
    if (options.requireTls && request.protocol !== 'https' && !config?.probe) {
      throw new ApiError(403, [{ Key: API_ERROR_KEY, Value: 'HTTPS is required; plain HTTP requests are refused', Code: 'forbidden' }]);
    }
    // Health checks and metrics are never limited (a probe must not be refused for probing).
    if (config?.public) return;
    if (config?.portal)
      await enforceRateLimit(options.rateLimitStore, reply, `portal-ip:${addressBudgetKey(request.ip)}`, PORTAL_IP_LIMITS);
    else await enforceRateLimit(options.rateLimitStore, reply, `capture-ip:${addressBudgetKey(request.ip)}`, ipLimits);
  };
}
