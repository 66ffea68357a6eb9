import type { AppContext } from './app-context.js';
import type { Catalog } from './catalog/schema.js';
import { realTimeClock, testClockSource } from './clock/account-clock.js';
import type { Db } from './db/database.js';
import { InstanceLiveness, type LivenessOptions } from './db/instance-liveness.js';
import { UriBuilder } from './http/uri.js';
import type { EmailActionLinks } from './notifications/email-action-links.js';
import { Notifier } from './notifications/notifier.js';
import type { PaymentGateway } from './payments/gateway/payment-gateway.js';
import { SandboxGateway } from './payments/gateway/sandbox-gateway.js';
import { WebhookEmitter } from './webhooks/emitter.js';

/** The context of one app (the billing API, the capture host): the sandbox gateway unless another is given. */
export function createAppContext(options: { db: Db; catalog: Catalog; publicBaseUrl: string; gateway?: PaymentGateway; gatewayTimeoutMs?: number; emailEnabled?: boolean; emailActionLinks?: EmailActionLinks; testClocks?: boolean; role?: string; instance?: InstanceLiveness; liveness?: LivenessOptions }): AppContext {
  const uris = new UriBuilder(options.publicBaseUrl);
  return {
    notifier: new Notifier(options.catalog, options.emailEnabled ?? false, options.emailActionLinks),
    webhooks: new WebhookEmitter(options.catalog, uris),
    db: options.db,
    instance: options.instance ?? new InstanceLiveness(options.db, options.role ?? 'api', options.liveness),
    clock: options.testClocks ? testClockSource(options.db) : realTimeClock,
    catalog: options.catalog,
    uris,
    payments: { gateway: options.gateway ?? new SandboxGateway(options.db), gatewayTimeoutMs: options.gatewayTimeoutMs ?? 15_000 },
  };
}
