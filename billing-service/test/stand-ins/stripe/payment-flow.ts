import { type Verdict, paymentVerdict } from './authorization.js';
import type { Flow } from './context.js';
import { scheduleDispute } from './disputes.js';
import { methodToConfirm } from './confirmation.js';
import { cardFailure, type Decline, docUrl, type StripeFailure } from './errors.js';
import { newCharge, type PaymentIntentObject, type PaymentMethodRecord } from './objects.js';
import { nextAction } from './next-action.js';

export interface ConfirmOptions {
  offSession: boolean;
  returnUrl: string | null;
  errorOnRequiresAction: boolean;
}

/**
 * Confirms a PaymentIntent: the card's issuer approves (succeeded), asks for a challenge (requires_action), or declines
 * (requires_payment_method and HTTP 402 with the card_error, the intent inside, as Stripe answers).
 */
export function confirmPayment(flow: Flow, intent: PaymentIntentObject, methodId: string | null, options: ConfirmOptions): void {
  const method = methodToConfirm(flow, 'PaymentIntent', intent, methodId);
  const cardholderAbsent = options.offSession || options.errorOnRequiresAction;
  const failure = settle(flow, intent, method, paymentVerdict(method, cardholderAbsent, false), options.returnUrl);
  if (failure) throw failure;
}

/** The cardholder finished the issuer's challenge for a PaymentIntent in requires_action. */
export function completePaymentChallenge(flow: Flow, intent: PaymentIntentObject, outcome: 'succeed' | 'fail'): void {
  const method = flow.account.paymentMethod(String(intent.payment_method));
  if (outcome === 'succeed') {
    // A decline after authentication (card 3178) is the intent's new state; nobody waits for a 402 here.
    settle(flow, intent, method, paymentVerdict(method, false, true), null);
    return;
  }
  intent.status = 'requires_payment_method';
  intent.next_action = null;
  intent.payment_method = null;
  intent.last_payment_error = {
    type: 'invalid_request_error',
    code: 'payment_intent_authentication_failure',
    message:
      'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
    doc_url: 'https://docs.stripe.com/error-codes/payment-intent-authentication-failure',
    payment_method: structuredClone(method.object),
  };
  flow.account.emit('payment_intent.payment_failed', intent, flow.origin);
}

/** Applies the issuer's verdict to the intent; a decline is returned as the 402 Stripe answers the confirming request. */
function settle(flow: Flow, intent: PaymentIntentObject, method: PaymentMethodRecord, verdict: Verdict, returnUrl: string | null) {
  switch (verdict.kind) {
    case 'challenge':
      intent.status = 'requires_action';
      intent.next_action = nextAction(flow.world, intent.id, returnUrl);
      intent.last_payment_error = null;
      flow.account.emit('payment_intent.requires_action', intent, flow.origin);
      return undefined;
    case 'approve':
      succeed(flow, intent, method);
      return undefined;
    default:
      return decline(flow, intent, method, verdict.decline);
  }
}

function succeed(flow: Flow, intent: PaymentIntentObject, method: PaymentMethodRecord): void {
  const charge = newCharge(intent, method.object.id);
  flow.account.charges.set(charge.id, charge);
  Object.assign(intent, {
    status: 'succeeded',
    amount_received: intent.amount,
    latest_charge: charge.id,
    next_action: null,
    last_payment_error: null,
  });
  if (intent.setup_future_usage && typeof intent.customer === 'string') {
    // Stripe attaches the card to the customer and keeps the authenticated payment as the mandate for later charges.
    method.object.customer = intent.customer;
    if (intent.setup_future_usage === 'off_session') method.setUpForOffSession = true;
  } else if (!method.object.customer) {
    method.consumed = true;
  }
  flow.account.emit('payment_intent.succeeded', intent, flow.origin);
  if (method.card.disputed) scheduleDispute(flow.world, flow.account, charge.id);
}

function decline(flow: Flow, intent: PaymentIntentObject, method: PaymentMethodRecord, reason: Decline): StripeFailure {
  const charge = newCharge(intent, method.object.id, reason);
  flow.account.charges.set(charge.id, charge);
  // Stripe empties payment_method after a failed attempt; the card stays reachable in last_payment_error.
  Object.assign(intent, { status: 'requires_payment_method', latest_charge: charge.id, next_action: null, payment_method: null });
  intent.last_payment_error = {
    type: 'card_error',
    ...reason,
    charge: charge.id,
    doc_url: docUrl(reason.code),
    payment_method: structuredClone(method.object),
  };
  flow.account.emit('payment_intent.payment_failed', intent, flow.origin);
  return cardFailure(reason, {
    charge: charge.id,
    payment_intent: structuredClone(intent),
    payment_method: structuredClone(method.object),
  });
}
