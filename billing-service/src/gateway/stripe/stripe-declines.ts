import Stripe from 'stripe';
import type { Declined } from '../payment-gateway.js';

/**
 * Stripe's error `code` / `decline_code` in Renew's decline codes (README "Payment gateways"), the one table.
 * The issuer's reason is read first (`decline_code`), then Stripe's `code`. Lost, stolen and fraud declines are
 * told as a plain `card_declined`, as Stripe advises (the shopper must not learn the card was flagged).
 */
export const STRIPE_DECLINES: Readonly<Record<string, string>> = {
  insufficient_funds: 'insufficient_funds',
  incorrect_cvc: 'incorrect_cvc',
  invalid_cvc: 'incorrect_cvc',
  expired_card: 'expired_card',
  invalid_expiry_month: 'expired_card',
  invalid_expiry_year: 'expired_card',
  incorrect_number: 'incorrect_number',
  invalid_number: 'incorrect_number',
  authentication_required: 'authentication_required',
  payment_intent_authentication_failure: 'authentication_failed',
  setup_intent_authentication_failure: 'authentication_failed',
  processing_error: 'processing_error',
  // The charge is too small or too large for Stripe in its currency: the amount, not the card.
  amount_too_small: 'amount_invalid',
  amount_too_large: 'amount_invalid',
  // The saved card is gone at Stripe (detached, or of another customer).
  payment_method_unexpected_state: 'invalid_token',
  resource_missing: 'invalid_token',
};

/** Every other decline (generic_decline, do_not_honor, lost_card, stolen_card, fraudulent, test_mode_live_card, …). */
const OTHER_DECLINE = 'card_declined';

/** Renew's code for Stripe's reason. */
export function renewDeclineCode(stripeCode: string | null | undefined, declineCode?: string | null): string {
  return STRIPE_DECLINES[declineCode ?? ''] ?? STRIPE_DECLINES[stripeCode ?? ''] ?? OTHER_DECLINE;
}

export function declined(code: string, message: string): Declined {
  return { status: 'declined', code, message };
}

/** Stripe's refusal of a request that is an outcome (a decline, an unusable card), not a failure of the gateway. */
const OUTCOME_REQUEST_ERRORS = new Set([
  'amount_too_small',
  'amount_too_large',
  'payment_method_unexpected_state',
  'resource_missing',
  'charge_already_refunded',
  'charge_disputed',
  'charge_not_refundable',
]);

/**
 * A Stripe error as the port's outcome: a card error (402) or a refusal of the card or amount is `declined`; anything
 * else (network, 5xx, keys, a raw-card-data refusal, an idempotency conflict) is rethrown: the gateway failed.
 */
export function declineOf(error: unknown): Declined {
  if (error instanceof Stripe.errors.StripeCardError) {
    return declined(renewDeclineCode(error.code, error.decline_code), error.message);
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError && OUTCOME_REQUEST_ERRORS.has(error.code ?? '')) {
    return declined(renewDeclineCode(error.code), error.message);
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError && /raw card data|card numbers directly/i.test(error.message)) {
    throw new Error(
      'Stripe refuses raw card data from this account: it must be cleared by Stripe for raw card data APIs (PCI DSS SAQ D or a Report on Compliance; README "Payment gateways")',
    );
  }
  throw error;
}

/** Runs a Stripe call: its answer, or its decline as the outcome; a failure of the gateway is thrown. */
export async function orDeclined<T>(call: () => Promise<T>): Promise<{ status: 'answered'; value: T } | Declined> {
  try {
    return { status: 'answered', value: await call() };
  } catch (error) {
    return declineOf(error);
  }
}
