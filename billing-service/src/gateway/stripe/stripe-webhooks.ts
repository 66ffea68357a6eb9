import Stripe from 'stripe';
import type { GatewayEvent } from '../payment-gateway.js';
import { fromMinorUnits, idOf } from './stripe-values.js';

/** A webhook body Renew must not believe: no secret configured, a signature that does not verify, or one too old. */
export class StripeWebhookSignatureError extends Error {
  readonly code = 'stripe_signature_invalid';
}

/**
 * A Stripe webhook delivery in Renew's words. The signature is checked on the raw body as received (the SDK's
 * constructEvent: HMAC-SHA256 with the endpoint's secret, a timestamp within five minutes); a bad one throws
 * StripeWebhookSignatureError. Disputes become disputeOpened / disputeClosed naming the PaymentIntent as the
 * transaction; every other event type is of no use to Renew and answers [] (acknowledge it: 2xx).
 */
export function parseStripeWebhook(
  stripe: Stripe,
  webhookSecret: string | undefined,
  rawBody: string | Buffer,
  signatureHeader: string,
): GatewayEvent[] {
  if (!webhookSecret) throw new StripeWebhookSignatureError('RENEW_STRIPE_WEBHOOK_SECRET is not set: no Stripe event can be verified');
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signatureHeader, webhookSecret);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw new StripeWebhookSignatureError(error.message);
    throw error;
  }
  if (event.type === 'charge.dispute.created') return [disputeOpened(event.id, event.data.object)];
  if (event.type === 'charge.dispute.closed') {
    const closed = disputeClosed(event.id, event.data.object);
    return closed ? [closed] : [];
  }
  return [];
}

/** The PaymentIntent a dispute is about (Renew's transaction id); a charge made without one is named by the charge. */
function transactionOf(dispute: Stripe.Dispute): string {
  const id = idOf(dispute.payment_intent) ?? idOf(dispute.charge);
  if (!id) throw new Error(`Stripe: dispute ${dispute.id} names no payment`);
  return id;
}

function disputeOpened(eventId: string, dispute: Stripe.Dispute): GatewayEvent {
  const currency = dispute.currency.toUpperCase();
  // Stripe withdraws the disputed amount and its fee in one balance transaction, in the account's currency.
  const withdrawal = dispute.balance_transactions?.find((transaction) => transaction.currency === dispute.currency);
  return {
    kind: 'disputeOpened',
    eventId,
    disputeId: dispute.id,
    transactionId: transactionOf(dispute),
    amount: fromMinorUnits(dispute.amount, currency),
    currency,
    reason: dispute.reason,
    evidenceDueAt: dispute.evidence_details?.due_by ? new Date(dispute.evidence_details.due_by * 1000) : null,
    fee: withdrawal ? fromMinorUnits(withdrawal.fee, currency) : null,
  };
}

/** Won (an inquiry closed without a chargeback counts as won: no money left); lost. Other statuses are not a close. */
function disputeClosed(eventId: string, dispute: Stripe.Dispute): GatewayEvent | undefined {
  const outcome = dispute.status === 'lost' ? 'lost' : dispute.status === 'won' || dispute.status === 'warning_closed' ? 'won' : undefined;
  if (!outcome) return undefined;
  return { kind: 'disputeClosed', eventId, disputeId: dispute.id, transactionId: transactionOf(dispute), outcome };
}
