import type Stripe from 'stripe';
import type { CardToValidate, GatewayOutcome, ValidatedCard } from '../payment-gateway.js';
import { declined, orDeclined } from './stripe-declines.js';
import { unfinishedOutcome } from './stripe-intents.js';
import type { StripeSettings } from './stripe-settings.js';
import { brandOf, cardToken, idOf, requestKey } from './stripe-values.js';

/**
 * Saves a card for off-session use, server to server: a Customer, a PaymentMethod from the raw card (Stripe takes
 * numbers only from accounts it has cleared for raw card data: README "Payment gateways"), and a SetupIntent confirmed
 * at once with usage=off_session, whose success is the mandate renewals are charged on. Each request has its own
 * Idempotency-Key, derived from the save's: a retried save makes one customer, one card and one SetupIntent.
 */
export async function saveCard(stripe: Stripe, settings: StripeSettings, card: CardToValidate): Promise<GatewayOutcome<ValidatedCard>> {
  const key = requestKey(card.idempotencyKey);
  const name = `${card.firstName} ${card.lastName}`.trim();
  const customer = await stripe.customers.create(
    { ...(name ? { name } : {}), ...(card.risk?.email ? { email: card.risk.email } : {}) },
    { idempotencyKey: requestKey(key, 'customer') },
  );
  const method = await orDeclined(() =>
    stripe.paymentMethods.create(
      {
        type: 'card',
        card: { number: card.number, exp_month: card.expirationMonth, exp_year: card.expirationYear, cvc: card.cvv },
        billing_details: { ...(name ? { name } : {}), ...(card.postalZip ? { address: { postal_code: card.postalZip } } : {}) },
      },
      { idempotencyKey: requestKey(key, 'payment_method') },
    ),
  );
  if (method.status === 'declined') return method;
  const setup = await orDeclined(() =>
    stripe.setupIntents.create(
      {
        customer: customer.id,
        payment_method: method.value.id,
        usage: 'off_session',
        confirm: true,
        return_url: settings.returnUrl,
      },
      { idempotencyKey: requestKey(key, 'setup_intent') },
    ),
  );
  if (setup.status === 'declined') return setup;
  return setupOutcome(setup.value, method.value);
}

/** Where a card save that asked for authentication stands: its SetupIntent read again (a GET: no key, nothing moves). */
export async function resumeCardSave(stripe: Stripe, actionId: string): Promise<GatewayOutcome<ValidatedCard>> {
  if (!/^seti_\w+$/.test(actionId)) return unknownAuthentication();
  const read = await orDeclined(() => stripe.setupIntents.retrieve(actionId, { expand: ['payment_method'] }));
  if (read.status === 'declined') return read.code === 'invalid_token' ? unknownAuthentication() : read;
  const method = read.value.payment_method;
  return setupOutcome(read.value, typeof method === 'object' && method ? method : undefined);
}

function setupOutcome(intent: Stripe.SetupIntent, method: Stripe.PaymentMethod | undefined): GatewayOutcome<ValidatedCard> {
  if (intent.status !== 'succeeded') return unfinishedOutcome(intent);
  const customer = idOf(intent.customer);
  const paymentMethod = idOf(intent.payment_method);
  if (!customer || !paymentMethod || !method?.card) {
    throw new Error(`Stripe: the succeeded SetupIntent ${intent.id} names no customer or card`);
  }
  return {
    status: 'succeeded',
    value: { token: cardToken(customer, paymentMethod), brand: brandOf(method), lastFour: method.card.last4, gatewayCustomerId: customer },
  };
}

function unknownAuthentication() {
  return declined('authentication_unknown', 'Stripe knows no such card authentication');
}
