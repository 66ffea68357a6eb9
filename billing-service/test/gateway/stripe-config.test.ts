import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { gatewayFromConfig } from '../../src/gateway/gateway-from-config.js';
import { StripeGateway } from '../../src/gateway/stripe/stripe-gateway.js';
import { openDatabase } from '../../src/db/database.js';

const STRIPE = {
  RENEW_GATEWAY: 'stripe',
  RENEW_STRIPE_SECRET_KEY: 'sk_test_abc123',
  RENEW_STRIPE_WEBHOOK_SECRET: 'whsec_abc123',
  RENEW_CAPTURE_PUBLIC_URL: 'https://pay.example.com/',
};

/** RENEW_GATEWAY=stripe and its settings: what a merchant sets to take real money, and the start-up errors. */
describe('Stripe configuration', () => {
  it('reads the three settings; the API base defaults to Stripe and the return page is on the capture host', () => {
    const config = loadConfig(STRIPE);
    expect(config.gateway).toEqual({
      name: 'stripe',
      timeoutMs: 15_000,
      stripe: {
        secretKey: 'sk_test_abc123',
        webhookSecret: 'whsec_abc123',
        apiBase: 'https://api.stripe.com',
        returnUrl: 'https://pay.example.com/api/gateway/stripe/return',
      },
    });
    const local = loadConfig({ ...STRIPE, RENEW_STRIPE_API_BASE: 'http://127.0.0.1:12111/' });
    expect(local.gateway.name === 'stripe' && local.gateway.stripe.apiBase).toBe('http://127.0.0.1:12111');
  });

  it.each([
    [{ RENEW_STRIPE_SECRET_KEY: '' }, /RENEW_STRIPE_SECRET_KEY: is required with RENEW_GATEWAY=stripe/],
    [{ RENEW_STRIPE_SECRET_KEY: 'pk_test_public' }, /RENEW_STRIPE_SECRET_KEY: must be a Stripe secret key/],
    [{ RENEW_STRIPE_WEBHOOK_SECRET: 'secret' }, /RENEW_STRIPE_WEBHOOK_SECRET: must be/],
    [{ RENEW_STRIPE_API_BASE: 'ftp://stripe.example' }, /RENEW_STRIPE_API_BASE/],
    [{ RENEW_CAPTURE_PUBLIC_URL: '' }, /RENEW_CAPTURE_PUBLIC_URL: is required with RENEW_GATEWAY=stripe/],
    [{ RENEW_STRIPE_WEBHOOK_SECRET: '', RENEW_ENV: 'production' }, /RENEW_STRIPE_WEBHOOK_SECRET is required .* in production/],
  ])('refuses to start with %o', (change, message) => {
    expect(() => loadConfig({ ...STRIPE, ...change })).toThrow(message);
  });

  it('the sandbox stays the default and needs none of them; a Stripe config makes the Stripe adapter', async () => {
    expect(loadConfig({ RENEW_STRIPE_SECRET_KEY: 'anything' }).gateway).toEqual({ name: 'sandbox', timeoutMs: 15_000 });
    const database = await openDatabase({});
    try {
      const gateway = gatewayFromConfig(loadConfig(STRIPE).gateway, database.db);
      expect(gateway).toBeInstanceOf(StripeGateway);
      expect(gateway.name).toBe('stripe');
    } finally {
      await database.close();
    }
  });
});
