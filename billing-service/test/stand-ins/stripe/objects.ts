import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import type { TestCard } from './cards.js';

/**
 * The API objects the stand-in keeps, typed as subsets of the `stripe` SDK's own types so that a misspelt or
 * mistyped field fails the typecheck. Fields Stripe has and the adapter does not need are left out (see README).
 */

export type CustomerObject = Pick<
  Stripe.Customer,
  'id' | 'object' | 'address' | 'balance' | 'created' | 'description' | 'email' | 'invoice_settings' | 'livemode' | 'metadata'
> & { name: string | null; phone: string | null; preferred_locales: string[] };

export type PaymentMethodObject = Pick<
  Stripe.PaymentMethod,
  'id' | 'object' | 'billing_details' | 'created' | 'customer' | 'livemode' | 'metadata' | 'type'
> & {
  card: Pick<
    Stripe.PaymentMethod.Card,
    'brand' | 'country' | 'display_brand' | 'exp_month' | 'exp_year' | 'fingerprint' | 'funding' | 'last4'
  >;
};

type IntentFields = 'id' | 'object' | 'client_secret' | 'created' | 'customer' | 'description' | 'livemode' | 'metadata';
type IntentFields2 = 'next_action' | 'payment_method' | 'payment_method_types' | 'status';

export type PaymentIntentObject = Pick<Stripe.PaymentIntent, IntentFields | IntentFields2> &
  Pick<
    Stripe.PaymentIntent,
    | 'amount'
    | 'amount_capturable'
    | 'amount_received'
    | 'canceled_at'
    | 'capture_method'
    | 'confirmation_method'
    | 'currency'
    | 'latest_charge'
    | 'receipt_email'
    | 'setup_future_usage'
    | 'statement_descriptor'
  > & { last_payment_error: LastError<Stripe.PaymentIntent.LastPaymentError> | null };

/** `last_payment_error` / `last_setup_error`, whose payment_method is the card as the stand-in shows it. */
type LastError<T> = Omit<T, 'payment_method' | 'payment_intent' | 'setup_intent'> & { payment_method?: PaymentMethodObject };

export type SetupIntentObject = Pick<Stripe.SetupIntent, IntentFields | IntentFields2> &
  Pick<Stripe.SetupIntent, 'latest_attempt' | 'mandate' | 'usage'> & {
    last_setup_error: LastError<Stripe.SetupIntent.LastSetupError> | null;
  };

export type ChargeObject = Pick<
  Stripe.Charge,
  | 'id'
  | 'object'
  | 'amount'
  | 'amount_captured'
  | 'amount_refunded'
  | 'captured'
  | 'created'
  | 'currency'
  | 'customer'
  | 'disputed'
  | 'failure_code'
  | 'failure_message'
  | 'livemode'
  | 'metadata'
  | 'outcome'
  | 'paid'
  | 'payment_intent'
  | 'payment_method'
  | 'refunded'
  | 'status'
>;

export type RefundObject = Pick<
  Stripe.Refund,
  'id' | 'object' | 'amount' | 'charge' | 'created' | 'currency' | 'metadata' | 'payment_intent' | 'reason' | 'status'
>;

export type DisputeObject = Pick<
  Stripe.Dispute,
  | 'id'
  | 'object'
  | 'amount'
  | 'charge'
  | 'created'
  | 'currency'
  | 'is_charge_refundable'
  | 'livemode'
  | 'metadata'
  | 'payment_intent'
  | 'reason'
  | 'status'
> & {
  evidence_details: Pick<Stripe.Dispute.EvidenceDetails, 'due_by' | 'has_evidence' | 'past_due' | 'submission_count'>;
  /** The evidence given so far (the stand-in keeps the text fields it was sent). */
  evidence: Partial<Stripe.Dispute.Evidence>;
};

export type ApiObject =
  | CustomerObject
  | PaymentMethodObject
  | PaymentIntentObject
  | SetupIntentObject
  | ChargeObject
  | RefundObject
  | DisputeObject;

export interface EventObject {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: ApiObject };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: Stripe.Event.Type;
}

/** A saved card: the answer Stripe gives, plus what the stand-in must remember and never shows (the test card). */
export interface PaymentMethodRecord {
  object: PaymentMethodObject;
  card: TestCard;
  /** Set up for off-session use: a SetupIntent with usage=off_session, or a payment with setup_future_usage, succeeded. */
  setUpForOffSession: boolean;
  /** Used once without being attached to a customer: Stripe refuses to use such a PaymentMethod again. */
  consumed: boolean;
}

/** Stripe's ids: a type prefix and random letters and digits. */
export function newId(prefix: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const letters = [...randomBytes(24)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return `${prefix}_${letters}`;
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A charge attempt as Stripe records it, successful or failed. */
export function newCharge(intent: PaymentIntentObject, paymentMethod: string, failure?: { code: string; message: string }): ChargeObject {
  return {
    id: newId('ch'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: failure ? 0 : intent.amount,
    amount_refunded: 0,
    captured: !failure,
    created: nowSeconds(),
    currency: intent.currency,
    customer: intent.customer,
    disputed: false,
    failure_code: failure?.code ?? null,
    failure_message: failure?.message ?? null,
    livemode: false,
    metadata: { ...intent.metadata },
    outcome: {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: failure ? 'declined_by_network' : 'approved_by_network',
      reason: failure?.code ?? null,
      risk_level: 'normal',
      seller_message: failure ? 'The bank did not return any further details with this decline.' : 'Payment complete.',
      type: failure ? 'issuer_declined' : 'authorized',
    },
    paid: !failure,
    payment_intent: intent.id,
    payment_method: paymentMethod,
    refunded: false,
    status: failure ? 'failed' : 'succeeded',
  };
}
