import compress from '@fastify/compress';
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createAppContext } from './create-app-context.js';
import type { InstanceLiveness, LivenessOptions } from './db/instance-liveness.js';
import { addressRoutes } from './addresses/routes.js';
import { backgroundTasks } from './background/background-tasks.js';
import type { RefundSettlementOptions } from './refunds/settlement-worker.js';
import type { GatewayEventOptions } from './disputes/event-worker.js';
import { disputeRoutes } from './disputes/routes.js';
import { billingSettingRoutes } from './billing-settings/routes.js';
import type { BulkWorkerOptions } from './bulk/bulk-worker.js';
import { bulkRoutes } from './bulk/routes.js';
import { captureTokenRoutes } from './capture-tokens/routes.js';
import type { Catalog } from './catalog/schema.js';
import { consoleApiKeyRoutes } from './console/api-keys.js';
import { consoleApiProxy } from './console/api-proxy.js';
import { consoleAuth } from './console/console-auth.js';
import { DEFAULT_CONSOLE_SETTINGS, type ConsoleSettings } from './console/operators/service.js';
import { consoleRoutes } from './console/routes.js';
import { consoleReadRoutes } from './console/reads/routes.js';
import { consoleStatic } from './console/static.js';
import { countryRoutes } from './countries/routes.js';
import { customerRoutes } from './customers/routes.js';
import type { Db } from './db/database.js';
import type { StaleReads } from './db/read-database.js';
import { emailPreferenceRoutes } from './email-preferences/routes.js';
import { apiKeyAuth } from './http/api-key-auth.js';
import { ApiKeyAuthenticator } from './http/auth.js';
import { idempotencyKeys } from './http/idempotency.js';
import { InProcessCallers } from './http/in-process-callers.js';
import { jsonApi, jsonApiServerOptions } from './http/json-api.js';
import { openApiDocs } from './http/openapi-docs.js';
import type { RateLimitStore } from './http/rate-limit.js';
import { requireHttps } from './http/require-https.js';
import { invoiceRoutes } from './invoices/routes.js';
import { invoiceClosureRoutes } from './invoice-closures/routes.js';
import { lifecycleRoutes } from './lifecycle/routes.js';
import { noteRoutes } from './notes/routes.js';
import { purchaseInvoicing } from './lifecycle/purchase-invoicing.js';
import { purchaseRoutes } from './purchases/routes.js';
import { creditNoteRoutes } from './credit-notes/routes.js';
import { usageRoutes } from './usage/routes.js';
import type { EmailActionLinks } from './notifications/email-action-links.js';
import type { EmailSettings } from './notifications/email-outbox-worker.js';
import { observe, type ObservabilityOptions } from './observability/observe.js';
import type { PaymentGateway } from './gateway/payment-gateway.js';
import { paymentMethodRoutes } from './payment-methods/routes.js';
import { defaultCards } from './payment-methods/service.js';
import { paymentRoutes } from './payments/routes.js';
import { portalRoutes } from './portal/routes.js';
import { syncCatalog } from './plans/catalog-sync.js';
import { planRoutes } from './plans/routes.js';
import { refundRoutes } from './refunds/routes.js';
import { subscriptionRoutes } from './subscriptions/routes.js';
import type { WebhookWorkerOptions } from './webhooks/delivery-worker.js';
import { webhookRoutes } from './webhooks/routes.js';
import { testClockRoutes } from './test-clocks/routes.js';

export interface AppOptions {
  db: Db;
  /** The read standby's router (DatabaseHandle.reads); without it every read goes to `db`. */
  reads?: StaleReads;
  catalog: Catalog;
  rateLimitStore: RateLimitStore;
  /** Base of every `uri` in responses, without a trailing slash. */
  publicBaseUrl: string;
  /** The card-capture host's public origin, where portal links point (RENEW_CAPTURE_PUBLIC_URL); default: publicBaseUrl. */
  portalBaseUrl?: string;
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
  /** Where the buttons of e-mails that ask the customer to act lead; unset: the customer portal (PortalEmailLinks); null: no button. */
  emailActionLinks?: EmailActionLinks | null;
  /** Webhook URL checks (RENEW_WEBHOOK_ALLOW_HTTP / _PRIVATE) and the delivery worker's settings. */
  webhooks?: WebhookWorkerOptions;
  /** The webhook delivery worker (default: on, polling every second); false: none in this app. */
  webhookWorker?: boolean;
  /**
   * false: no background task at all in this app (the `api` role: the bulk, e-mail and webhook workers
   * and the billing clock run in `worker` processes). E-mails are still written to the outbox when `email` is set.
   */
  backgroundTasks?: boolean;
  /** Settling card refunds left Pending (default: on, every 10 s, refunds Pending over a minute); false: off. */
  refundSettlement?: RefundSettlementOptions | false;
  /** Fetching the processor's events, its disputes (default: on, every 5 s); false: off (tests run it on demand). */
  gatewayEvents?: GatewayEventOptions | false;
  /** Test clocks (RENEW_TEST_CLOCKS): accounts may advance their own time; adds /v1/testclock. */
  testClocks?: boolean;
  /** GET /metrics: its token (unset: loopback clients only), PostgreSQL's pools, process metrics. */
  observability?: ObservabilityOptions;
  /** What this process runs, as its heartbeat row names it (`all`, `api`, `worker`; default `api`). */
  role?: string;
  /** This instance's heartbeat and how soon a dead instance's claims are taken over (db/instance-liveness.ts). */
  liveness?: LivenessOptions;
  /** Shared with another app of this process (`npm start`): one identity in claims. */
  instance?: InstanceLiveness;
  /** The merchant console: session lifetimes (RENEW_CONSOLE_IDLE_MINUTES, _ABSOLUTE_HOURS) and where its build is (default console/dist). */
  console?: Partial<ConsoleSettings> & { distDir?: string };
}

export const RATE_LIMIT_HEADERS = [
  'X-Rate-Limit-Limit-Minute',
  'X-Rate-Limit-Remaining-Minute',
  'X-Rate-Limit-Reset-Minute',
  'X-Rate-Limit-Limit-Day',
  'X-Rate-Limit-Remaining-Day',
  'X-Rate-Limit-Reset-Day',
];
export const LIST_HEADERS = [
  'X-NextPage',
  'X-Count',
  'X-MaxCount',
  'X-CurrentPage',
  'X-PreviousPage',
  'X-PageSize',
  'X-MaxPageIndex',
  'X-SortOrder',
  'X-SortExpression',
];

/** Builds the billing API: plugins for the cross-cutting concerns, in order, then one plugin per domain. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify(
    jsonApiServerOptions({
      logger: options.logger,
      trustProxy: options.trustProxy,
      bodyLimit: options.bodyLimit ?? 1024 * 1024,
      https: options.https,
    }),
  ).withTypeProvider<ZodTypeProvider>();
  const ctx = createAppContext({ ...options, emailEnabled: options.email !== undefined });
  ctx.webhookSafety = options.webhooks ?? {};
  // Bodies are JSON (the spec's Content-Type: application/json); an empty body is none, whatever its type; other types 415.
  await app.register(jsonApi, { ctx });
  // Before every route: it keys each /v1 write as it is added.
  await app.register(idempotencyKeys);
  const observability = observe(app, options.db, { ...options.observability, queues: true });
  if (options.backgroundTasks !== false)
    await app.register(backgroundTasks, {
      ctx,
      observability,
      bulkWorker: options.bulkWorker,
      email: options.email,
      billingClockMs: options.billingClockMs,
      webhooks: options.webhookWorker === false ? false : (options.webhooks ?? {}),
      ...(options.refundSettlement !== undefined ? { refundSettlement: options.refundSettlement } : {}),
      ...(options.gatewayEvents !== undefined ? { gatewayEvents: options.gatewayEvents } : {}),
    });
  await app.register(cors, {
    origin: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'x-audit-source', 'Idempotency-Key'],
    exposedHeaders: [...RATE_LIMIT_HEADERS, ...LIST_HEADERS],
    maxAge: 600,
  });
  await app.register(compress, { global: true, threshold: 1024 });
  if (options.requireTls) await app.register(requireHttps);
  // Requests the app makes to itself as a caller it vouches for (the console's /console/api/v1 proxy).
  const inProcessCallers = new InProcessCallers();
  // One key cache, shared with the console's key rolling, which clears it.
  const apiKeyAuthenticator = new ApiKeyAuthenticator(options.db);
  await app.register(apiKeyAuth, {
    db: options.db,
    authenticator: apiKeyAuthenticator,
    rateLimitStore: options.rateLimitStore,
    failedAttemptLimits: options.catalog.rateLimits,
    budgets: { usageEvents: options.catalog.rateLimits.usageEvents },
    inProcessCallers,
  });
  // Before every console route: its hooks mark them public for the API key and guard them by session, role and CSRF.
  const consoleSettings: ConsoleSettings = {
    idleMinutes: options.console?.idleMinutes ?? DEFAULT_CONSOLE_SETTINGS.idleMinutes,
    absoluteHours: options.console?.absoluteHours ?? DEFAULT_CONSOLE_SETTINGS.absoluteHours,
  };
  await app.register(consoleAuth, { db: options.db, settings: consoleSettings });
  await app.register(openApiDocs, { publicBaseUrl: options.publicBaseUrl });
  observability.registerRoutes();

  await syncCatalog(options.db, options.catalog);
  await registerResourceRoutes(app, options);
  await app.register(consoleRoutes, { db: options.db, settings: consoleSettings, email: options.email });
  await app.register(consoleApiProxy, { db: options.db, inProcessCallers });
  await app.register(consoleReadRoutes);
  await app.register(consoleApiKeyRoutes, { db: options.db, authenticator: apiKeyAuthenticator });
  await app.register(consoleStatic, { ...(options.console?.distDir ? { distDir: options.console.distDir } : {}) });

  return app;
}

/** The /v1 resources, one plugin per domain folder. */
async function registerResourceRoutes(app: FastifyInstance, options: AppOptions) {
  await app.register(planRoutes);
  await app.register(subscriptionRoutes);
  await app.register(customerRoutes);
  await app.register(lifecycleRoutes);
  await app.register(invoiceRoutes);
  await app.register(invoiceClosureRoutes);
  await app.register(creditNoteRoutes);
  await app.register(usageRoutes);
  await app.register(paymentMethodRoutes);
  await app.register(captureTokenRoutes);
  await app.register(paymentRoutes);
  await app.register(refundRoutes);
  await app.register(disputeRoutes);
  await app.register(billingSettingRoutes, { defaultCards });
  await app.register(addressRoutes);
  await app.register(noteRoutes);
  await app.register(purchaseRoutes, { invoicing: purchaseInvoicing });
  await app.register(countryRoutes);
  await app.register(emailPreferenceRoutes);
  await app.register(bulkRoutes);
  await app.register(portalRoutes);
  await app.register(webhookRoutes);
  if (options.testClocks) await app.register(testClockRoutes);
}
