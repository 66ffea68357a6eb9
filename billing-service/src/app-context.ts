import type { Catalog } from './catalog/schema.js';
import type { AccountClock } from './clock/account-clock.js';
import type { Db } from './db/database.js';
import type { InstanceLiveness } from './db/instance-liveness.js';
import type { StaleReads } from './db/read-database.js';
import type { UriBuilder } from './uri-builder.js';
import type { CustomerNotifier } from './outbox/notifications.js';
import type { PaymentGateway } from './gateway/payment-gateway.js';
import type { ResourceWebhooks } from './outbox/webhook-events.js';
import type { WebhookUrlSafety } from './outbox/url-safety.js';

/**
 * What every service and background worker needs: the database, the catalogue, how to write uris,
 * the payment gateway, the notifier. The HTTP layer decorates it onto Fastify as `app.ctx`.
 */
export interface AppContext {
  db: Db;
  /** Where stale-tolerant reads (console lists, revenue, exports) go: a current read standby, else `db`. */
  reads?: StaleReads;
  /** This process's identity in claims, and its heartbeat (see db/instance-liveness.ts). */
  instance: InstanceLiveness;
  catalog: Catalog;
  /** Each account's "now" (real time, or its test clock): the only source of time for billing. */
  clock: AccountClock;
  uris: UriBuilder;
  /** Where the customer portal's links point: the card-capture host's public origin (RENEW_CAPTURE_PUBLIC_URL); set once it listens. */
  portal: { baseUrl: string };
  payments: { gateway: PaymentGateway; gatewayTimeoutMs: number };
  /** Writes e-mail notifications to the outbox (a no-op when e-mail is off). */
  notifier?: CustomerNotifier;
  /** Writes webhook events to their outbox (only for endpoints subscribed to them). */
  webhooks?: ResourceWebhooks;
  /** The background processor of bulk payment jobs, when this app runs one (the billing API does). */
  bulkWorker?: { wake(): void };
  /** The app's metrics (set by observability/observe.ts): told of each payment once its row is committed. */
  metrics?: { paymentRecorded(status: 'Succeeded' | 'Failed'): void; paymentNeedsAttention(): void };
  /** How webhook endpoint URLs are checked (https only, public addresses only, unless the flags say otherwise). */
  webhookSafety?: WebhookUrlSafety;
}
