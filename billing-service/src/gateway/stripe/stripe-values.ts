import { createHash, randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import { minorUnits, money, type Money } from '../../money/money.js';
import type { CardBrand } from '../card-brand.js';

/**
 * The card token Renew keeps: the Stripe customer and the PaymentMethod saved to it (`cus_…/pm_…`), which is all
 * an off-session PaymentIntent needs. Opaque to Renew (a text column).
 */
export function cardToken(customer: string, paymentMethod: string): string {
  return `${customer}/${paymentMethod}`;
}

export function readCardToken(token: string): { customer: string; paymentMethod: string } | undefined {
  const parsed = /^(cus_\w+)\/(pm_\w+)$/.exec(token);
  if (!parsed?.[1] || !parsed[2]) return undefined;
  return { customer: parsed[1], paymentMethod: parsed[2] };
}

/** Stripe's limit on an Idempotency-Key. */
const MAX_KEY = 255;

/**
 * The Idempotency-Key of one Stripe request of a Renew operation: Stripe's keys are per request (one endpoint, one set
 * of parameters), so an operation of several requests suffixes its key per step. A key too long for Stripe is hashed.
 */
export function requestKey(operationKey: string | undefined, step?: string): string {
  const base = operationKey ?? randomUUID();
  const key = step ? `${base}:${step}` : base;
  if (key.length <= MAX_KEY) return key;
  return `renew-sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** An amount in the currency's smallest unit, as Stripe takes it (exact: decimal.js, never a float). */
export function toMinorUnits(amount: Money, currency: string): number {
  const minor = amount.times(money(10).pow(minorUnits(currency)));
  if (!minor.isInteger()) throw new Error(`${amount.toString()} ${currency} has more decimals than the currency's minor unit`);
  return minor.toNumber();
}

export function fromMinorUnits(amount: number, currency: string): Money {
  return money(amount).div(money(10).pow(minorUnits(currency.toUpperCase())));
}

const BRANDS: Record<string, CardBrand> = { visa: 'Visa', mastercard: 'MasterCard', amex: 'AmericanExpress', discover: 'Discover' };

/** Stripe's card brand in Renew's names. */
export function brandOf(method: Stripe.PaymentMethod): CardBrand {
  return BRANDS[method.card?.brand ?? ''] ?? 'Unknown';
}

/** An id field Stripe answers as the id or, when expanded, as the object. */
export function idOf(value: string | { id: string } | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : value.id;
}
