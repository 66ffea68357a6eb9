import type { Queryable } from '../db/database.js';
import type { PaymentGateway } from './payment-gateway.js';
import { SandboxGateway } from './sandbox-gateway.js';
import { StripeGateway } from './stripe/stripe-gateway.js';
import type { StripeSettings } from './stripe/stripe-settings.js';

/** Which adapter, with its settings (config.ts reads them from RENEW_GATEWAY and RENEW_STRIPE_*). */
export type GatewaySettings = { name: 'sandbox'; timeoutMs: number } | { name: 'stripe'; timeoutMs: number; stripe: StripeSettings };

/**
 * The gateway adapter RENEW_GATEWAY names: the sandbox, or Stripe (gateway/stripe/), behind the same interface.
 * `db`: the sandbox keeps its idempotency records there, shared by every instance.
 */
export function gatewayFromConfig(config: GatewaySettings, db: Queryable): PaymentGateway {
  switch (config.name) {
    case 'sandbox':
      return new SandboxGateway(db);
    case 'stripe':
      return new StripeGateway({ ...config.stripe, timeoutMs: config.timeoutMs });
  }
}
