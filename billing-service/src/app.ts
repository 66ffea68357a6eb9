import compress from '@fastify/compress';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createAppContext } from './app-context.js';
import { configureJsonApi, jsonApiServerOptions } from './http/json-api.js';
import { jsonSchemaTransform, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Catalog } from './catalog/schema.js';
import { addressRoutes } from './addresses/routes.js';
import { billingSettingRoutes } from './billing-settings/routes.js';
import { BulkPaymentWorker, type BulkWorkerOptions } from './bulk/bulk-worker.js';
import { bulkRoutes } from './bulk/routes.js';
import { billingClockTask } from './lifecycle/billing-clock.js';
import { EmailOutboxWorker, type EmailSettings } from './notifications/email-outbox-worker.js';
import { countryRoutes } from './countries/routes.js';
import { customerRoutes } from './customers/routes.js';
import type { Db } from './db/database.js';
import { emailPreferenceRoutes } from './email-preferences/routes.js';
import { ApiKeyAuthenticator } from './http/auth.js';
import './http/context.js';
import { ApiError } from './http/errors.js';
import { enforceRateLimit, type RateLimitStore } from './http/rate-limit.js';
import { noteRoutes } from './notes/routes.js';
import { observe, type ObservabilityOptions } from './observability/observe.js';
import { paymentMethodRoutes } from './payment-methods/routes.js';
import { paymentRoutes } from './payments/routes.js';
import type { PaymentGateway } from './payments/gateway/payment-gateway.js';
import { invoiceRoutes } from './invoices/routes.js';
import { lifecycleRoutes } from './lifecycle/routes.js';
import { syncCatalog } from './plans/catalog-sync.js';
import { planRoutes } from './plans/routes.js';
import { subscriptionRoutes } from './subscriptions/routes.js';

export interface AppOptions {
  db: Db;
  catalog: Catalog;
  rateLimitStore: RateLimitStore;
  /** Base of every `uri` in responses, without a trailing slash. */
  publicBaseUrl: string;
  requireTls?: boolean;
  trustProxy?: string | boolean;
  logger?: FastifyServerOptions['logger'];
  https?: { cert: Buffer; key: Buffer };
  bodyLimit?: number;
  /** Default: the sandbox gateway. */
  gateway?: PaymentGateway;
  gatewayTimeoutMs?: number;
  /** Bulk payment processing in the background (default: on, polling every second). */
  bulkWorker?: BulkWorkerOptions | false;
  /** Ticks the billing clock (renewals, automatic collection, dunning) this often; unset or 0: no clock in this app. */
  billingClockMs?: number;
  /** E-mail notifications over SMTP; unset: none are written or sent. */
  email?: EmailSettings;
  /** GET /metrics: its token (unset: loopback clients only), PostgreSQL's pools, process metrics. */
  observability?: ObservabilityOptions;
}

export const RATE_LIMIT_HEADERS = [
  'X-Rate-Limit-Limit-Minute', 'X-Rate-Limit-Remaining-Minute', 'X-Rate-Limit-Reset-Minute',
  'X-Rate-Limit-Limit-Day', 'X-Rate-Limit-Remaining-Day', 'X-Rate-Limit-Reset-Day',
];
export const LIST_HEADERS = [
  'X-NextPage', 'X-Count', 'X-MaxCount', 'X-CurrentPage', 'X-PreviousPage', 'X-PageSize', 'X-MaxPageIndex',
  'X-SortOrder', 'X-SortExpression',
];

/** Builds the billing API: plugins, hooks, error handling, then one plugin per domain. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify(
    jsonApiServerOptions({ logger: options.logger, trustProxy: options.trustProxy, bodyLimit: options.bodyLimit ?? 1024 * 1024, https: options.https }),
  ).withTypeProvider<ZodTypeProvider>();
  // Bodies are JSON (the spec's Content-Type: application/json); an empty body is none, whatever its type; other types 415.
  const ctx = createAppContext({ ...options, emailEnabled: options.email !== undefined });
  configureJsonApi(app, ctx);
  const observability = observe(app, options.db, { ...options.observability, queues: true });
  if (options.bulkWorker !== false) {
    const worker = new BulkPaymentWorker(ctx, app.log, options.bulkWorker ?? {});
    ctx.bulkWorker = worker;
    observability.watch(worker.task);
    app.addHook('onReady', async () => worker.start());
    app.addHook('onClose', async () => worker.stop());
  }
  if (options.email) {
    const sender = new EmailOutboxWorker(options.db, options.email, app.log);
    observability.watch(sender.task);
    app.addHook('onReady', async () => sender.start());
    app.addHook('onClose', async () => sender.stop());
  }
  if (options.billingClockMs) {
    const clock = billingClockTask(ctx, app.log, options.billingClockMs);
    observability.watch(clock);
    app.addHook('onReady', async () => clock.start());
    app.addHook('onClose', async () => clock.stop());
  }

  await app.register(cors, {
    origin: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'x-audit-source', 'Idempotency-Key'],
    exposedHeaders: [...RATE_LIMIT_HEADERS, ...LIST_HEADERS],
    maxAge: 600,
  });
  await app.register(compress, { global: true, threshold: 1024 });

  if (options.requireTls) {
    // request.protocol honours X-Forwarded-Proto only from trusted proxies (trustProxy).
    app.addHook('onRequest', async (request) => {
      if (request.protocol !== 'https' && !request.routeOptions.config?.probe) {
        throw new ApiError(403, [{ Key: 'Api Error', Value: 'HTTPS is required; plain HTTP requests are refused' }]);
      }
    });
  }

  const authenticator = new ApiKeyAuthenticator(options.db);
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return;
    const config = request.routeOptions.config;
    if (config?.public) return;
    // An unknown path (404) or a known one with the wrong method (405) needs no key; one sent is
    // still checked and counted, so its answer carries the rate-limit headers like any other.
    const unrouted = !request.routeOptions.url;
    if (unrouted && !request.headers.authorization) return;
    let caller;
    try {
      caller = await authenticator.authenticate(request);
    } catch (error) {
      // Failed attempts are limited per client address, so guessing keys is slow.
      await enforceRateLimit(options.rateLimitStore, reply, `ip:${request.ip}`, options.catalog.rateLimits);
      if (unrouted) return;
      throw error;
    }
    request.caller = caller;
    await enforceRateLimit(options.rateLimitStore, reply, `key:${caller.keyHash}`, caller.rateLimits);
    if (caller.keyKind !== 'private' && !unrouted) {
      throw ApiError.unauthorized('the public API key only works on the card-capture host; use the private API key');
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Renew billing API',
        version: '1.0.0',
        description: 'Subscription billing: customers, settings, plans, subscriptions, invoices, payments. Errors are {ErrorId, HttpStatusCode, Errors:[{Key, Value}]}.',
      },
      servers: [{ url: options.publicBaseUrl }],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'basic', description: 'Authorization: Basic <private API key>' } } },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(async (docs) => {
    // The reference page and its assets are public, like the document itself.
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), public: true };
    });
    await docs.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  });
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  observability.registerRoutes();

  await syncCatalog(options.db, options.catalog);
  await app.register(planRoutes);
  await app.register(subscriptionRoutes);
  await app.register(customerRoutes);
  await app.register(lifecycleRoutes);
  await app.register(invoiceRoutes);
  await app.register(paymentMethodRoutes);
  await app.register(paymentRoutes);
  await app.register(billingSettingRoutes);
  await app.register(addressRoutes);
  await app.register(noteRoutes);
  await app.register(countryRoutes);
  await app.register(emailPreferenceRoutes);
  await app.register(bulkRoutes);

  return app;
}
