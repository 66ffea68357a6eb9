import type { Catalog } from './catalog/schema.js';
import type { Db } from './db/database.js';
import { UriBuilder } from './http/uri.js';
import { Notifier } from './notifications/notifier.js';
import type { PaymentGateway } from './payments/gateway/payment-gateway.js';
import { SandboxGateway } from './payments/gateway/sandbox-gateway.js';

/**
 * What every service and background worker needs: the database, the catalogue, how to write uris,
 * the payment gateway, the notifier. The HTTP layer decorates it onto Fastify as `app.ctx`.
 */
export interface AppContext {
  db: Db;
  catalog: Catalog;
  uris: UriBuilder;
  payments: { gateway: PaymentGateway; gatewayTimeoutMs: number };
  /** Writes e-mail notifications to the outbox (a no-op when e-mail is off). */
  notifier?: Notifier;
  /** The background processor of bulk payment jobs, when this app runs one (the billing API does). */
  bulkWorker?: { wake(): void };
  /** The app's metrics (set by observability/observe.ts): told of each payment once its row is committed. */
  metrics?: { paymentRecorded(status: 'Succeeded' | 'Failed'): void };
}

/** The context of one app (the billing API, the capture host): the sandbox gateway unless another is given. */
export function createAppContext(options: { db: Db; catalog: Catalog; publicBaseUrl: string; gateway?: PaymentGateway; gatewayTimeoutMs?: number; emailEnabled?: boolean }): AppContext {
  return {
    notifier: new Notifier(options.catalog, options.emailEnabled ?? false),
    db: options.db,
    catalog: options.catalog,
    uris: new UriBuilder(options.publicBaseUrl),
    payments: { gateway: options.gateway ?? new SandboxGateway(), gatewayTimeoutMs: options.gatewayTimeoutMs ?? 15_000 },
  };
}
