import type { Catalog } from '../catalog/schema.js';
import type { Db } from '../db/database.js';
import type { Notifier } from '../notifications/notifier.js';
import type { PaymentGateway } from '../payments/gateway/payment-gateway.js';
import type { Caller } from './auth.js';
import type { UriBuilder } from './uri.js';

/** What every route and service needs, decorated once onto the Fastify instance as `app.ctx`. */
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

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
  interface FastifyRequest {
    /** Set by the authentication hook on every /v1 route not marked public. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** true: no API key needed (OpenAPI document, docs, countries). */
    public?: boolean;
  }
}
