import { checkChargeAmount, readCurrency } from './currency.js';
import type { Context } from './context.js';
import { invalidParameter, missingParameter } from './errors.js';
import { newId, nowSeconds, type PaymentIntentObject } from './objects.js';
import { Params, refuseUnlessConfirming } from './params.js';
import { type ConfirmOptions, confirmPayment } from './payment-flow.js';

// Accepted and not acted on (the README lists them).
const IGNORED = [
  'automatic_payment_methods',
  'mandate_data',
  'payment_method_options',
  'payment_method_types',
  'use_stripe_sdk',
  'receipt_email',
];
const CONFIRM = ['error_on_requires_action', 'off_session', 'payment_method', 'return_url', 'setup_future_usage', ...IGNORED];
const CREATE = [
  ...CONFIRM,
  'amount',
  'capture_method',
  'confirm',
  'confirmation_method',
  'currency',
  'customer',
  'description',
  'metadata',
  'statement_descriptor',
  'statement_descriptor_suffix',
];

/** POST /v1/payment_intents: a payment of `amount` (an integer in the currency's smallest unit). */
export function createPaymentIntent(context: Context): PaymentIntentObject {
  const { account } = context;
  const params = new Params(context.body, CREATE);
  const confirm = params.boolean('confirm') ?? false;
  refuseUnlessConfirming(params, confirm, ['return_url', 'off_session', 'error_on_requires_action'], 'PaymentIntent');
  const amount = params.integer('amount');
  if (amount === undefined) throw missingParameter('amount');
  const currency = readCurrency(params.requiredString('currency'));
  checkChargeAmount(amount, currency);
  if ((params.string('capture_method') ?? 'automatic').startsWith('automatic') === false) {
    throw invalidParameter('capture_method', 'The stand-in captures automatically only (capture_method=automatic or automatic_async)');
  }
  const customer = params.string('customer');
  if (customer) account.customer(customer);
  const paymentMethod = params.string('payment_method');
  if (paymentMethod) account.paymentMethod(paymentMethod);
  const intent = newIntent(params, amount, currency, customer ?? null, paymentMethod ?? null);
  account.paymentIntents.set(intent.id, intent);
  if (confirm) confirmPayment(context, intent, null, confirmOptions(params));
  return intent;
}

/** POST /v1/payment_intents/:id/confirm: confirms again, e.g. on-session with the card of last_payment_error. */
export function confirmPaymentIntent(context: Context): PaymentIntentObject {
  const params = new Params(context.body, CONFIRM);
  const intent = context.account.paymentIntent(context.id);
  const usage = params.oneOf('setup_future_usage', ['off_session', 'on_session']);
  if (usage) intent.setup_future_usage = usage;
  confirmPayment(context, intent, params.string('payment_method') ?? null, confirmOptions(params));
  return intent;
}

/** GET /v1/payment_intents/:id */
export function retrievePaymentIntent({ account, id }: Context): PaymentIntentObject {
  return account.paymentIntent(id);
}

function newIntent(
  params: Params,
  amount: number,
  currency: string,
  customer: string | null,
  paymentMethod: string | null,
): PaymentIntentObject {
  const id = newId('pi');
  return {
    id,
    object: 'payment_intent',
    amount,
    amount_capturable: 0,
    amount_received: 0,
    canceled_at: null,
    capture_method: params.string('capture_method') === 'automatic_async' ? 'automatic_async' : 'automatic',
    client_secret: `${id}_secret_${newId('s').slice(2)}`,
    confirmation_method: params.oneOf('confirmation_method', ['automatic', 'manual']) ?? 'automatic',
    created: nowSeconds(),
    currency,
    customer,
    description: params.string('description') ?? null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: params.metadata(),
    next_action: null,
    payment_method: paymentMethod,
    payment_method_types: ['card'],
    receipt_email: null,
    setup_future_usage: params.oneOf('setup_future_usage', ['off_session', 'on_session']) ?? null,
    statement_descriptor: params.string('statement_descriptor') ?? null,
    status: paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
  };
}

/** `off_session` is a boolean or, as Stripe also accepts, `one_off` / `recurring` (both meaning the cardholder is away). */
function confirmOptions(params: Params): ConfirmOptions {
  const offSession = params.string('off_session');
  if (offSession !== undefined && !['true', 'false', 'one_off', 'recurring'].includes(offSession)) {
    throw invalidParameter('off_session', `Invalid off_session: ${offSession}`);
  }
  return {
    offSession: offSession !== undefined && offSession !== 'false',
    returnUrl: params.url('return_url') ?? null,
    errorOnRequiresAction: params.boolean('error_on_requires_action') ?? false,
  };
}
