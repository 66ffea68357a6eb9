import { createHash } from 'node:crypto';
import { isTestCard, lookUpCard } from './cards.js';
import type { Context } from './context.js';
import { cardFailure, invalidParameter, invalidRequest, missingParameter } from './errors.js';
import type { FormObject } from './form-body.js';
import { newId, nowSeconds, type PaymentMethodObject } from './objects.js';
import { Params } from './params.js';

/**
 * POST /v1/payment_methods with raw card data (`card[number]`, `card[exp_month]`, `card[exp_year]`, `card[cvc]`).
 * Stripe takes raw numbers only from accounts it has cleared for it; the stand-in takes them from every key. Only the
 * brand, last four digits and expiry are kept in the answer; the number and CVC never are.
 */
export function createPaymentMethod({ account, body, world }: Context): PaymentMethodObject {
  if (!world.rawCardData) throw invalidRequest(RAW_CARD_DATA_REFUSED);
  const params = new Params(body, ['type', 'card', 'billing_details', 'metadata']);
  const type = params.requiredString('type');
  if (type !== 'card')
    throw invalidParameter('type', `The stand-in supports only type=card, not ${type}`, 'payment_method_unsupported_type');
  const card = new Params(params.object('card') ?? missing('card'), ['number', 'exp_month', 'exp_year', 'cvc']);
  const number = card.string('number') ?? missing('card[number]');
  const expMonth = card.integer('exp_month') ?? missing('card[exp_month]');
  const expYear = card.integer('exp_year') ?? missing('card[exp_year]');
  const cvc = card.string('cvc');
  const found = lookUpCard(number);
  if (!isTestCard(found)) throw cardFailure(found, {});
  checkExpiry(expMonth, expYear);
  if (cvc !== undefined && !/^\d{3,4}$/.test(cvc))
    throw cardFailure({ code: 'invalid_cvc', message: "Your card's security code is invalid.", param: 'cvc' }, {});
  const digits = number.replace(/[\s-]/g, '');
  const object: PaymentMethodObject = {
    id: newId('pm'),
    object: 'payment_method',
    billing_details: billingDetails(params.object('billing_details')),
    card: {
      brand: found.brand,
      country: found.country,
      display_brand: found.brand,
      exp_month: expMonth,
      exp_year: expYear < 100 ? 2000 + expYear : expYear,
      // The same number always gives the same fingerprint, and the fingerprint gives nothing of the number away.
      fingerprint: createHash('sha256').update(digits).digest('base64url').slice(0, 16),
      funding: found.funding,
      last4: digits.slice(-4),
    },
    created: nowSeconds(),
    customer: null,
    livemode: false,
    metadata: params.metadata(),
    type: 'card',
  };
  account.paymentMethods.set(object.id, { object, card: found, setUpForOffSession: false, consumed: false });
  return object;
}

/** GET /v1/payment_methods/:id */
export function retrievePaymentMethod({ account, id }: Context): PaymentMethodObject {
  return account.paymentMethod(id, 'id').object;
}

/**
 * POST /v1/payment_methods/:id/attach. Stripe validates the card with its issuer when attaching: the decline cards
 * fail here (4000000000000341 is the documented exception that attaches and then fails to charge).
 */
export function attachPaymentMethod({ account, body, id }: Context): PaymentMethodObject {
  const params = new Params(body, ['customer']);
  const customer = account.customer(params.requiredString('customer')).id;
  const record = account.paymentMethod(id, 'id');
  if (record.object.customer && record.object.customer !== customer) {
    throw invalidRequest('The payment method you provided has already been attached to a customer.', 'payment_method_unexpected_state');
  }
  if (record.card.validationDecline) throw cardFailure(record.card.validationDecline, {});
  record.object.customer = customer;
  return record.object;
}

// Stripe's answer to an account not cleared for raw card data (its wording as far as known; see README).
const RAW_CARD_DATA_REFUSED =
  'Sending credit card numbers directly to the Stripe API is generally unsafe. To continue processing use Stripe.js, the Stripe mobile bindings, or Stripe Elements. For more information, see https://dashboard.stripe.com/account/integration/settings. If you are qualified to handle card data directly, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.';

function missing(param: string): never {
  throw missingParameter(param);
}

function checkExpiry(month: number, year: number): void {
  if (month < 1 || month > 12)
    throw cardFailure({ code: 'invalid_expiry_month', message: "Your card's expiration month is invalid.", param: 'exp_month' }, {});
  const fullYear = year < 100 ? 2000 + year : year;
  const now = new Date();
  const expired = fullYear < now.getUTCFullYear() || (fullYear === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
  if (expired || fullYear > now.getUTCFullYear() + 50) {
    throw cardFailure({ code: 'invalid_expiry_year', message: "Your card's expiration year is invalid.", param: 'exp_year' }, {});
  }
}

function billingDetails(source: FormObject | undefined): PaymentMethodObject['billing_details'] {
  const text = (key: string) => {
    const value = source?.[key];
    return typeof value === 'string' && value !== '' ? value : null;
  };
  return { address: null, email: text('email'), name: text('name'), phone: text('phone'), tax_id: null };
}
