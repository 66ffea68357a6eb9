import type { FastifyInstance, FastifyServerOptions, LightMyRequestResponse } from 'fastify';
import type { Catalog } from '@renew/billing-service/catalog';
import type { PaymentGateway } from '@renew/billing-service/payments';
import { MemoryRateLimitStore, PostgresRateLimitStore, type RateLimitStore } from '@renew/billing-service/http';
import { buildCaptureApp } from '../../src/app.js';
import type { CaptchaVerifier } from '../../src/captcha/captcha-verifier.js';
import { SiteverifyCaptcha } from '../../src/captcha/siteverify-captcha.js';
import type { AppOptions } from '../../../billing-service/src/app.js';
import { BASE_URL, startTestApp, testCatalog, type TestAccount, type TestApp } from '../../../billing-service/test/helpers/test-app.js';
import { SiteverifyStub } from './siteverify-stub.js';

export { errorsOf } from '../../../billing-service/test/helpers/test-app.js';

/** The service's reCAPTCHA secret (RENEW_RECAPTCHA_SECRET) and an account's own one (catalogue). */
export const SERVICE_SECRET = 'service-recaptcha-secret';
export const ACCOUNT_SECRET = 'account-recaptcha-secret';
export const SHOP_HOST = 'shop.example.com';

export type Encoding = 'json' | 'form' | 'query';

export interface BuildOptions {
  capture?: Partial<Catalog['capture']>;
  /** The merchant's branding (catalogue `emails`), as e-mails and the portal's pages show it. */
  emails?: Partial<Catalog['emails']>;
  /** The switches between plans the portal offers (catalogue `planChanges`). */
  planChanges?: Partial<Catalog['planChanges']>;
  ipRateLimits?: { perMinute: number; perDay: number };
  logger?: FastifyServerOptions['logger'];
  captcha?: CaptchaVerifier;
  recaptchaSecret?: string | null;
  rateLimitStore?: RateLimitStore;
  gateway?: PaymentGateway;
  emailEnabled?: boolean;
  /** Accounts' test clocks date what this host does (the billing API's must be on too: startCaptureTest({ billing: { testClocks: true } })). */
  testClocks?: boolean;
  /** The capture host's own handle on the billing database (a test may wrap it, e.g. to make it vanish for a while). */
  db?: TestApp['database']['db'];
}

export interface PostOptions {
  encoding?: Encoding;
  app?: FastifyInstance;
  headers?: Record<string, string>;
  remoteAddress?: string;
  url?: string;
}

export interface CaptureTest {
  /** The billing API on the same database: customers, invoices and reads go through it. */
  billing: TestApp;
  account: TestAccount;
  stub: SiteverifyStub;
  /** Capture host with the test catalogue's defaults (built-in processing, no shop domains) and the service secret. */
  app: FastifyInstance;
  build(options?: BuildOptions): Promise<FastifyInstance>;
  /** A fresh token solved on `hostname`, verifiable with `secret`. */
  token(hostname?: string, secret?: string): string;
  customer(body?: Record<string, unknown>, account?: TestAccount): Promise<number>;
  /** A capture token the shop's server mints for the customer (POST /v1/captureTokens with the private key). */
  captureToken(customerId: number, body?: Record<string, unknown>, account?: TestAccount): Promise<string>;
  /** The parameters of a request that succeeds (Visa test card, risk fields, fresh token). */
  params(customerId: number, overrides?: Record<string, unknown>): Record<string, unknown>;
  post(params: Record<string, unknown>, options?: PostOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let nextIp = 1;
/** A different client address per request unless a test fixes one, so the per-IP limit stays out of the way. */
export function freshIp(): string {
  nextIp += 1;
  return `198.51.${Math.floor(nextIp / 250) % 250}.${(nextIp % 250) + 1}`;
}

/** Form fields: the nested collection amount under its dotted form name. */
export function toFormFields(params: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    if (key === 'paymentCollectOptions' && value && typeof value === 'object') {
      for (const [inner, v] of Object.entries(value)) form.append(`PaymentCollectOptions.${inner}`, String(v));
    } else {
      form.append(key, String(value));
    }
  }
  return form;
}

export function inject(app: FastifyInstance, params: Record<string, unknown>, options: PostOptions = {}) {
  const encoding = options.encoding ?? 'json';
  const url = options.url ?? '/api/paymentsv2';
  const common = { method: 'POST' as const, remoteAddress: options.remoteAddress ?? freshIp() };
  if (encoding === 'json') {
    return app.inject({
      ...common,
      url,
      headers: { 'content-type': 'application/json', ...options.headers },
      payload: JSON.stringify(params),
    });
  }
  if (encoding === 'form') {
    return app.inject({
      ...common,
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...options.headers },
      payload: toFormFields(params).toString(),
    });
  }
  return app.inject({ ...common, url: `${url}?${toFormFields(params).toString()}`, headers: { ...options.headers } });
}

/** `catalog`: changes to the test catalogue (testCatalog's overrides), for the billing API and every capture host built. */
export async function startCaptureTest(
  options: { billing?: Partial<AppOptions>; catalog?: Record<string, unknown> } = {},
): Promise<CaptureTest> {
  const changes = options.catalog ?? {};
  const billing = await startTestApp({
    ...(options.catalog ? { catalog: testCatalog(changes) } : {}),
    ...(options.billing ? { app: options.billing } : {}),
  });
  const stub = await new SiteverifyStub(new Set([SERVICE_SECRET, ACCOUNT_SECRET])).start();
  const apps: FastifyInstance[] = [];
  const storeFor = () =>
    billing.database.kind === 'postgres' ? new PostgresRateLimitStore(billing.database.countersDb) : new MemoryRateLimitStore();
  const build = async (options: BuildOptions = {}) => {
    // Most tests here make the spec's own calls, which carry no capture token: they opt in to draftOnly (the default is never).
    const catalog = testCatalog({
      ...changes,
      capture: { ...billing.catalog.capture, tokenlessCapture: 'draftOnly', ...options.capture },
      ...(options.emails ? { emails: { ...billing.catalog.emails, ...options.emails } } : {}),
      ...(options.planChanges ? { planChanges: { ...billing.catalog.planChanges, ...options.planChanges } } : {}),
    });
    const app = await buildCaptureApp({
      db: options.db ?? billing.database.db,
      catalog,
      rateLimitStore: options.rateLimitStore ?? storeFor(),
      captcha: options.captcha ?? new SiteverifyCaptcha({ url: stub.url, timeoutMs: 2000 }),
      ...(options.recaptchaSecret === null ? {} : { recaptchaSecret: options.recaptchaSecret ?? SERVICE_SECRET }),
      ...(options.gateway ? { gateway: options.gateway } : {}),
      publicBaseUrl: BASE_URL,
      ipRateLimits: options.ipRateLimits ?? { perMinute: 100_000, perDay: 1_000_000 },
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
      ...(options.emailEnabled ? { emailEnabled: true } : {}),
      ...(options.testClocks ? { testClocks: true } : {}),
    });
    apps.push(app);
    return app;
  };
  const app = await build();
  const token = (hostname = SHOP_HOST, secret = SERVICE_SECRET) => stub.issue(secret, hostname);
  return {
    billing,
    account: billing.account,
    stub,
    app,
    build,
    token,
    async customer(body = {}, account) {
      const res = await billing.call(
        'POST',
        '/v1/customers',
        { firstName: 'Ada', lastName: 'Lovelace', ...body },
        account ? { as: account } : {},
      );
      if (res.statusCode !== 200) throw new Error(`customer not created: ${res.body}`);
      return res.json().id as number;
    },
    async captureToken(customerId, body = {}, account) {
      const res = await billing.call('POST', '/v1/captureTokens', { customerId, ...body }, account ? { as: account } : {});
      if (res.statusCode !== 200) throw new Error(`capture token not minted: ${res.body}`);
      return res.json().token as string;
    },
    params(customerId, overrides = {}) {
      return {
        customerId,
        publicApiKey: billing.account.publicApiKey,
        cardNumber: '4242424242424242',
        firstName: 'Ada',
        lastName: 'Lovelace',
        expirationMonth: 12,
        expirationYear: 30,
        cvv: '123',
        riskToken: 'rt_7f3a9c',
        clientIp: '203.0.113.7',
        email: 'ada@example.com',
        recaptcha: token(),
        ...overrides,
      };
    },
    post(params, options = {}) {
      return inject(options.app ?? app, params, options);
    },
    async close() {
      for (const a of apps) await a.close();
      await stub.stop();
      await billing.close();
    },
  };
}
