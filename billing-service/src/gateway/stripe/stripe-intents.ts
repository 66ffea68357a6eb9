import type Stripe from 'stripe';
import { wallClockNow } from '../../clock/account-clock.js';
import type { Declined, RequiresAction } from '../payment-gateway.js';
import { declined, renewDeclineCode } from './stripe-declines.js';

/**
 * How long Renew waits for the shopper's challenge, counted from the intent's creation. Stripe keeps an intent in
 * `requires_action` without a deadline of its own; Renew gives the shopper the sandbox's window (15 minutes), after
 * which the capture or payment counts as abandoned (authentication_expired) and starts again with a new intent.
 */
export const CHALLENGE_MS = 15 * 60_000;

type Intent = Stripe.PaymentIntent | Stripe.SetupIntent;

/** An intent in requires_action as the port's action: Stripe's challenge page, absolute, until the window closes. */
export function challengeOf(intent: Intent): RequiresAction | Declined {
  const url = intent.next_action?.redirect_to_url?.url;
  if (!url) {
    // Renew always sends a return_url, for which Stripe answers redirect_to_url: anything else is a change at Stripe.
    throw new Error(`Stripe: ${intent.id} asks for ${intent.next_action?.type ?? 'an action'}, not a redirect to the issuer's page`);
  }
  const expiresAt = new Date(intent.created * 1000 + CHALLENGE_MS);
  if (expiresAt.getTime() <= wallClockNow().getTime()) {
    return declined('authentication_expired', 'the authentication was not completed in time');
  }
  return { status: 'requiresAction', action: { id: intent.id, challengeUrl: url, expiresAt } };
}

/**
 * An intent that did not succeed, as an outcome: still waiting for its challenge, or failed (the challenge failed,
 * or the card was declined after it). Statuses a confirmed card intent never stays in are a failure of the gateway.
 */
export function unfinishedOutcome(intent: Intent): RequiresAction | Declined {
  if (intent.status === 'requires_action') return challengeOf(intent);
  if (intent.status === 'requires_payment_method') {
    const error = 'last_payment_error' in intent ? intent.last_payment_error : intent.last_setup_error;
    if (!error) return declined('authentication_failed', 'the authentication was abandoned');
    return declined(renewDeclineCode(error.code, error.decline_code), error.message ?? 'the card was declined');
  }
  if (intent.status === 'canceled') return declined('authentication_failed', 'the authentication was canceled');
  throw new Error(`Stripe: ${intent.id} is ${intent.status}, which a confirmed card payment or setup does not stay in`);
}
