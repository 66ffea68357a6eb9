import type { AppContext } from './app-context.js';
import type { Catalog } from './catalog/schema.js';
import { realTimeClock, testClockSource } from './clock/account-clock.js';
import type { Db } from './db/database.js';
import { InstanceLiveness, type LivenessOptions } from './db/instance-liveness.js';
import type { StaleReads } from './db/read-database.js';
import { UriBuilder } from './uri-builder.js';
import type { EmailActionLinks } from './notifications/email-action-links.js';
import { Notifier } from './notifications/notifier.js';
import { PortalEmailLinks } from './notifications/portal-email-links.js';
import type { PaymentGateway } from './gateway/payment-gateway.js';
import { SandboxGateway } from './gateway/sandbox-gateway.js';
import { WebhookEmitter } from './webhooks/emitter.js';

/** The context of one app (the billing API, the capture host): the sandbox gateway unless another is given. */
export function createAppContext(options: {
  db: Db;
  reads?: StaleReads;
  catalog: Catalog;
  publicBaseUrl: string;
  gateway?: PaymentGateway;
  gatewayTimeoutMs?: number;
  emailEnabled?: boolean;
  emailActionLinks?: EmailActionLinks | null;
  portalBaseUrl?: string;
  testClocks?: boolean;
  role?: string;
  instance?: InstanceLiveness;
  liveness?: LivenessOptions;
}): AppContext {
  const uris = new UriBuilder(options.publicBaseUrl);
  // the e-mails' buttons open the customer portal unless the app was given other links (null: none)
  const links = options.emailActionLinks === undefined ? new PortalEmailLinks(() => context) : (options.emailActionLinks ?? undefined);
  const context: AppContext = {
    notifier: new Notifier(options.catalog, options.emailEnabled ?? false, links),
    webhooks: new WebhookEmitter(options.catalog, uris),
    db: options.db,
    ...(options.reads ? { reads: options.reads } : {}),
    instance: options.instance ?? new InstanceLiveness(options.db, options.role ?? 'api', options.liveness),
    clock: options.testClocks ? testClockSource(options.db) : realTimeClock,
    catalog: options.catalog,
    uris,
    portal: { baseUrl: (options.portalBaseUrl ?? options.publicBaseUrl).replace(/\/+$/, '') },
    payments: { gateway: options.gateway ?? new SandboxGateway(options.db), gatewayTimeoutMs: options.gatewayTimeoutMs ?? 15_000 },
  };
  return context;
}
