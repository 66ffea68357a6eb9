import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Catalog } from '@renew/billing-service/catalog';
import type { DatabaseHandle } from '@renew/billing-service/db';
import { defaultLogStream, MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '@renew/billing-service/http';
import type { PaymentGateway } from '@renew/billing-service/payments';
import { buildCaptureApp } from './app.js';
import type { CaptchaVerifier } from './captcha/captcha-verifier.js';
import { DevCaptcha } from './captcha/dev-captcha.js';
import { SiteverifyCaptcha } from './captcha/siteverify-captcha.js';
import { SANDBOX_IN_PRODUCTION_WARNING } from '@renew/billing-service';
import { loadCaptureConfig, type CaptureConfig } from './config.js';
import { ShopDomains } from './shop-domains.js';

export const CARD_FIELDS_FRAMED_BY_ANYONE_WARNING =
  "card-capture host: the catalogue's capture.allowedShopDomains is empty, so any site may embed the hosted card fields (frame-ancestors *) and call the capture host; list the shop's domains";

export interface StartCaptureOptions {
  /** The database the billing API uses (same process, same handle). */
  database: DatabaseHandle;
  catalog: Catalog;
  /** Default: loadCaptureConfig(process.env, catalog). */
  config?: CaptureConfig;
  /** Default: config.host (RENEW_HOST). */
  host?: string;
  /** Default: config.port (RENEW_CAPTURE_PORT, 8081); 0 picks a free port. */
  port?: number;
  /** Base of `uri` values: the billing API's public address. Default RENEW_PUBLIC_BASE_URL, else the billing API's listening address. */
  publicBaseUrl?: string;
  /** Default: pino at config.logLevel (card data redacted), pretty at a terminal, JSON lines otherwise. */
  logger?: FastifyServerOptions['logger'];
  gateway?: PaymentGateway;
  /** Default: PostgresRateLimitStore on PostgreSQL (shared with other instances), else in memory. */
  rateLimitStore?: RateLimitStore;
  /** Default: from config.captcha (SiteverifyCaptcha or DevCaptcha). */
  captcha?: CaptchaVerifier;
}

export function captchaFromConfig(config: CaptureConfig): CaptchaVerifier {
  return config.captcha.mode === 'dev'
    ? new DevCaptcha()
    : new SiteverifyCaptcha({ url: config.captcha.verifyUrl, timeoutMs: config.captcha.timeoutMs });
}

function formatUrl(scheme: string, host: string, port: number): string {
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function defaultLogger(level: string): FastifyServerOptions['logger'] {
  const stream = defaultLogStream();
  return { level, ...(stream ? { stream } : {}) } as FastifyServerOptions['logger'];
}

/** Builds the card-capture host on the given database and listens. The caller closes `app` (before the database). */
export async function startCaptureService(options: StartCaptureOptions): Promise<{ app: FastifyInstance; url: string }> {
  const config = options.config ?? loadCaptureConfig(process.env, options.catalog);
  if (config.captcha.mode === 'google' && !config.captcha.secret && !options.catalog.capture.recaptchaSecret) {
    throw new Error(
      'the card-capture host needs a reCAPTCHA secret: set RENEW_RECAPTCHA_SECRET or capture.recaptchaSecret in the catalogue (or RENEW_CAPTCHA=dev)',
    );
  }
  const host = options.host ?? config.host;
  const scheme = config.tls ? 'https' : 'http';
  const app = await buildCaptureApp({
    db: options.database.db,
    catalog: options.catalog,
    rateLimitStore:
      options.rateLimitStore ??
      (options.database.kind === 'postgres' ? new PostgresRateLimitStore(options.database.countersDb) : new MemoryRateLimitStore()),
    captcha: options.captcha ?? captchaFromConfig(config),
    ...(config.captcha.secret ? { recaptchaSecret: config.captcha.secret } : {}),
    ...(config.captcha.siteKey ? { recaptchaSiteKey: config.captcha.siteKey } : {}),
    ...(config.captcha.scriptUrl ? { recaptchaScriptUrl: config.captcha.scriptUrl } : {}),
    ...(options.gateway ? { gateway: options.gateway } : {}),
    publicBaseUrl: options.publicBaseUrl ?? config.publicBaseUrl ?? formatUrl(scheme, host, config.apiPort),
    logger: options.logger ?? defaultLogger(config.logLevel),
    ipRateLimits: config.ipRateLimits,
    emailEnabled: config.emailEnabled,
    testClocks: config.testClocks,
    liveness: { staleAfterMs: config.claimStaleMs, heartbeatDb: options.database.countersDb },
    trustProxy: config.trustProxy,
    requireTls: config.requireTls,
    observability: {
      ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
      ...(options.database.pools ? { pools: options.database.pools } : {}),
      processMetrics: true,
    },
    ...(config.tls ? { https: { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } } : {}),
  });
  if (config.production && !options.gateway) app.log.warn(SANDBOX_IN_PRODUCTION_WARNING);
  if (!new ShopDomains(options.catalog.capture.allowedShopDomains).restricted) {
    app.log.warn(CARD_FIELDS_FRAMED_BY_ANYONE_WARNING);
  }
  if (config.captcha.mode === 'dev') {
    app.log.warn(
      'card-capture host: CAPTCHA in dev mode (any non-empty token not beginning with "fail" is accepted); set RENEW_RECAPTCHA_SECRET for reCAPTCHA',
    );
  }
  await app.listen({ host, port: options.port ?? config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? config.port);
  const url = formatUrl(scheme, host, port);
  // Sign-in links sent from here point back at this host, as browsers reach it.
  app.ctx.portal.baseUrl = config.publicUrl ?? url;
  return { app, url };
}
