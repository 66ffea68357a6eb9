import type Stripe from 'stripe';
import type { ChargeRequest, GatewayOutcome } from '../payment-gateway.js';
import { declined, orDeclined } from './stripe-declines.js';
import { unfinishedOutcome } from './stripe-intents.js';
import type { StripeSettings } from './stripe-settings.js';
import { idOf, readCardToken, requestKey, toMinorUnits } from './stripe-values.js';

type ChargeOutcome = GatewayOutcome<{ transactionId: string }>;
type Card = { customer: string; paymentMethod: string };

/**
 * A charge: a PaymentIntent confirmed at once, `off_session` when the customer is away (a renewal: Stripe charges it
 * on the mandate of the saved card, and a bank that still wants the customer declines it authentication_required).
 * The PaymentIntent's id is the transaction id refunds and disputes name. `authenticatedBy` names an intent whose
 * challenge the customer completed: it is read, not charged again.
 */
export async function chargeCard(stripe: Stripe, settings: StripeSettings, request: ChargeRequest): Promise<ChargeOutcome> {
  const card = readCardToken(request.token);
  if (!card) return declined('invalid_token', 'the payment method token is not a Stripe card of this adapter');
  const amount = toMinorUnits(request.amount, request.currency);
  if (request.authenticatedBy?.startsWith('pi_')) {
    const paid = await authenticatedPayment(stripe, request.authenticatedBy, card, amount, request.currency);
    if (paid) return paid;
  }
  let offSession = request.offSession;
  let onMandate = false;
  if (request.authenticatedBy?.startsWith('seti_')) {
    const setup = await authenticatedSetup(stripe, request.authenticatedBy, card);
    if (setup !== 'mandate') return setup;
    // The first payment of a capture whose card save the customer just authenticated: charged on that mandate.
    offSession = true;
    onMandate = true;
  }
  const outcome = await confirmedIntent(stripe, settings, { request, card, amount, offSession, key: request.idempotencyKey });
  // The customer is here: a bank that still asks for this payment (…3184 asks for every one) gets its challenge now.
  if (onMandate && !request.offSession && outcome.status === 'declined' && outcome.code === 'authentication_required')
    return confirmedIntent(stripe, settings, { request, card, amount, offSession: false, key: `${request.idempotencyKey}:on-session` });
  return outcome;
}

/** A PaymentIntent of the card, created and confirmed at once. */
async function confirmedIntent(
  stripe: Stripe,
  settings: StripeSettings,
  p: { request: ChargeRequest; card: Card; amount: number; offSession: boolean; key: string },
): Promise<ChargeOutcome> {
  const created = await orDeclined(() =>
    stripe.paymentIntents.create(
      {
        amount: p.amount,
        currency: p.request.currency.toLowerCase(),
        customer: p.card.customer,
        payment_method: p.card.paymentMethod,
        confirm: true,
        off_session: p.offSession,
        // On-session, a bank's challenge is a redirect to its page, then back to the capture host. Stripe wants one
        // off-session too when the account's payment methods may redirect (its own examples always send it).
        return_url: settings.returnUrl,
      },
      { idempotencyKey: requestKey(p.key) },
    ),
  );
  if (created.status === 'declined') return created;
  return paymentOutcome(created.value);
}

function paymentOutcome(intent: Stripe.PaymentIntent): ChargeOutcome {
  if (intent.status === 'succeeded') return { status: 'succeeded', value: { transactionId: intent.id } };
  return unfinishedOutcome(intent);
}

/**
 * The PaymentIntent the customer authenticated, when it is this card's payment of this amount: succeeded is the
 * charge (nothing is charged again), still waiting is the same challenge, failed is the decline. One of another card
 * or amount is not this charge's (undefined): a new PaymentIntent is made, as if none had been named.
 */
async function authenticatedPayment(
  stripe: Stripe,
  intentId: string,
  card: Card,
  amount: number,
  currency: string,
): Promise<ChargeOutcome | undefined> {
  const read = await orDeclined(() => stripe.paymentIntents.retrieve(intentId));
  if (read.status === 'declined') return undefined;
  const intent = read.value;
  const sameCard = idOf(intent.customer) === card.customer;
  if (!sameCard || intent.amount !== amount || intent.currency !== currency.toLowerCase()) return undefined;
  if (intent.status === 'requires_payment_method' && !intent.last_payment_error) return undefined;
  return paymentOutcome(intent);
}

/** The SetupIntent that saved this card: its mandate when the customer authenticated it, else the outcome to answer. */
async function authenticatedSetup(stripe: Stripe, intentId: string, card: Card): Promise<'mandate' | ChargeOutcome> {
  const read = await orDeclined(() => stripe.setupIntents.retrieve(intentId));
  if (read.status === 'declined' || idOf(read.value.customer) !== card.customer) return notThisCard();
  const intent = read.value;
  if (intent.status !== 'succeeded') return unfinishedOutcome(intent);
  return idOf(intent.payment_method) === card.paymentMethod ? 'mandate' : notThisCard();
}

function notThisCard() {
  return declined('authentication_unknown', "the authentication named is not this card's");
}
