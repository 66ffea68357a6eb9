import type { Context } from './context.js';
import { newId, nowSeconds, type SetupIntentObject } from './objects.js';
import { Params, refuseUnlessConfirming } from './params.js';
import { confirmSetup } from './setup-flow.js';

// Accepted and not acted on beyond `card` (the README lists them): payment_method_types, automatic_payment_methods, …
const IGNORED = ['automatic_payment_methods', 'mandate_data', 'payment_method_options', 'payment_method_types', 'use_stripe_sdk'];
const CREATE = ['confirm', 'customer', 'description', 'metadata', 'payment_method', 'return_url', 'usage', 'single_use', ...IGNORED];
const CONFIRM = ['payment_method', 'return_url', ...IGNORED];

/** POST /v1/setup_intents: saves a card for later payments; with confirm=true it is validated at once. */
export function createSetupIntent(context: Context): SetupIntentObject {
  const { account } = context;
  const params = new Params(context.body, CREATE);
  const confirm = params.boolean('confirm') ?? false;
  refuseUnlessConfirming(params, confirm, ['return_url'], 'SetupIntent');
  const customer = params.string('customer');
  if (customer) account.customer(customer);
  const paymentMethod = params.string('payment_method');
  if (paymentMethod) account.paymentMethod(paymentMethod);
  const id = newId('seti');
  const intent: SetupIntentObject = {
    id,
    object: 'setup_intent',
    client_secret: `${id}_secret_${newId('s').slice(2)}`,
    created: nowSeconds(),
    customer: customer ?? null,
    description: params.string('description') ?? null,
    last_setup_error: null,
    latest_attempt: null,
    livemode: false,
    mandate: null,
    metadata: params.metadata(),
    next_action: null,
    payment_method: paymentMethod ?? null,
    payment_method_types: ['card'],
    status: paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
    usage: params.oneOf('usage', ['off_session', 'on_session']) ?? 'off_session',
  };
  account.setupIntents.set(intent.id, intent);
  if (confirm) confirmSetup(context, intent, null, params.url('return_url') ?? null);
  return intent;
}

/** POST /v1/setup_intents/:id/confirm */
export function confirmSetupIntent(context: Context): SetupIntentObject {
  const params = new Params(context.body, CONFIRM);
  const intent = context.account.setupIntent(context.id);
  confirmSetup(context, intent, params.string('payment_method') ?? null, params.url('return_url') ?? null);
  return intent;
}

/** GET /v1/setup_intents/:id */
export function retrieveSetupIntent({ account, id }: Context): SetupIntentObject {
  return account.setupIntent(id);
}
