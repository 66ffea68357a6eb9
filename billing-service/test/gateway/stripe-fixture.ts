import { randomUUID } from 'node:crypto';
import type { CardToValidate, GatewayOutcome } from '../../src/gateway/payment-gateway.js';
import { StripeGateway } from '../../src/gateway/stripe/stripe-gateway.js';
import type { StripeSettings } from '../../src/gateway/stripe/stripe-settings.js';
import { money } from '../../src/money/money.js';
import { type StripeStandIn, startStripeStandIn } from '../stand-ins/stripe/index.js';

export const RETURN_URL = 'https://capture.example/api/gateway/stripe/return';

/** A Stripe stand-in and the adapter pointed at it, as RENEW_STRIPE_API_BASE would. */
export async function stripeFixture(options: Parameters<typeof startStripeStandIn>[0] = {}) {
  const standIn = await startStripeStandIn(options);
  const gateway = gatewayFor(standIn);
  return { standIn, gateway };
}

export function settingsOf(standIn: StripeStandIn, secretKey = standIn.secretKey): StripeSettings {
  return { secretKey, webhookSecret: standIn.webhookSecret, apiBase: standIn.url, returnUrl: RETURN_URL };
}

export function gatewayFor(standIn: StripeStandIn, secretKey = standIn.secretKey): StripeGateway {
  return new StripeGateway(settingsOf(standIn, secretKey));
}

/** The port's calls take a signal; the Stripe adapter cannot use it (the port's deadline answers instead). */
export const signal = new AbortController().signal;

export function testCard(number: string, extra: Partial<CardToValidate> = {}): CardToValidate {
  return {
    number,
    expirationMonth: 12,
    expirationYear: new Date().getUTCFullYear() + 3,
    cvv: '123',
    firstName: 'Ada',
    lastName: 'Lovelace',
    postalZip: '75001',
    idempotencyKey: `save-${randomUUID()}`,
    ...extra,
  };
}

/** The value of a succeeded outcome, or a failure saying what came instead. */
export function succeeded<T>(outcome: GatewayOutcome<T>): T {
  if (outcome.status !== 'succeeded') throw new Error(`expected succeeded, got ${JSON.stringify(outcome)}`);
  return outcome.value;
}

export function actionOf<T>(outcome: GatewayOutcome<T>) {
  if (outcome.status !== 'requiresAction') throw new Error(`expected requiresAction, got ${JSON.stringify(outcome)}`);
  return outcome.action;
}

/** A card saved through the adapter, its challenge completed when its bank asks for one. */
export async function savedToken(standIn: StripeStandIn, gateway: StripeGateway, number: string): Promise<string> {
  const saved = await gateway.validateCard(testCard(number), signal);
  if (saved.status !== 'requiresAction') return succeeded(saved).token;
  standIn.completeChallenge(saved.action.id, 'succeed');
  return succeeded(await gateway.resumeCardValidation(saved.action.id, signal)).token;
}

export function chargeOf(token: string, amount: string, extra: { offSession?: boolean; authenticatedBy?: string; currency?: string } = {}) {
  return {
    token,
    amount: money(amount),
    currency: extra.currency ?? 'EUR',
    idempotencyKey: `charge-${randomUUID()}`,
    offSession: extra.offSession ?? false,
    ...(extra.authenticatedBy ? { authenticatedBy: extra.authenticatedBy } : {}),
  };
}
