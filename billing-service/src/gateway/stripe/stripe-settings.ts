import Stripe from 'stripe';
import { z } from 'zod';

/** Where Stripe sends the shopper's browser back after a 3-D Secure challenge: a page of the card-capture host. */
export const STRIPE_RETURN_PATH = '/api/gateway/stripe/return';

/** The Stripe adapter's settings (README "Configuration"), read from the environment when RENEW_GATEWAY=stripe. */
export interface StripeSettings {
  /** RENEW_STRIPE_SECRET_KEY: `sk_live_…`, `sk_test_…` or a restricted `rk_…` key. */
  secretKey: string;
  /** RENEW_STRIPE_WEBHOOK_SECRET: the `whsec_…` secret that signs the account's webhook events; unset: events are refused. */
  webhookSecret?: string;
  /** RENEW_STRIPE_API_BASE: Stripe's API address (default https://api.stripe.com; tests point it at the stand-in). */
  apiBase: string;
  /** The absolute return_url of every challenge: the capture host's public address and STRIPE_RETURN_PATH. */
  returnUrl: string;
  /** The SDK's own deadline per request (the port's deadline answers the caller first). */
  timeoutMs?: number;
}

const StripeEnv = z.object({
  RENEW_STRIPE_SECRET_KEY: z
    .string({ error: 'is required with RENEW_GATEWAY=stripe (the secret key of the Stripe account)' })
    .regex(/^(sk|rk)_(test|live)_\w+$/, 'must be a Stripe secret key (sk_live_…, sk_test_… or rk_…)'),
  RENEW_STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_\w+$/, "must be the webhook endpoint's signing secret (whsec_…)")
    .optional(),
  RENEW_STRIPE_API_BASE: z.url({ protocol: /^https?$/ }).default('https://api.stripe.com'),
  RENEW_CAPTURE_PUBLIC_URL: z.url({
    error: 'is required with RENEW_GATEWAY=stripe: Stripe sends the shopper back to the card-capture host after 3-D Secure',
  }),
});

/**
 * The Stripe settings from the environment (empty variables already dropped), or an Error listing every problem.
 * In production the webhook secret is required: without it no dispute would ever reach Renew.
 */
export function stripeSettingsFromEnv(env: Record<string, string | undefined>, production: boolean): StripeSettings {
  const parsed = StripeEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (production && !e.RENEW_STRIPE_WEBHOOK_SECRET) {
    throw new Error(
      "invalid configuration: RENEW_STRIPE_WEBHOOK_SECRET is required with RENEW_GATEWAY=stripe in production (Stripe's disputes arrive as signed webhook events)",
    );
  }
  return {
    secretKey: e.RENEW_STRIPE_SECRET_KEY,
    ...(e.RENEW_STRIPE_WEBHOOK_SECRET ? { webhookSecret: e.RENEW_STRIPE_WEBHOOK_SECRET } : {}),
    apiBase: e.RENEW_STRIPE_API_BASE.replace(/\/+$/, ''),
    returnUrl: `${e.RENEW_CAPTURE_PUBLIC_URL.replace(/\/+$/, '')}${STRIPE_RETURN_PATH}`,
  };
}

/** The official SDK pointed at the API base: it takes host, port and protocol, not one URL. */
export function stripeClient(settings: StripeSettings): Stripe {
  const base = new URL(settings.apiBase);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return new Stripe(settings.secretKey, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    // Every call carries an idempotency key, so the SDK's own retries of a lost answer never move money twice.
    maxNetworkRetries: 1,
    ...(settings.timeoutMs ? { timeout: settings.timeoutMs } : {}),
    appInfo: { name: 'Renew' },
  });
}
