import type { Flow } from './context.js';
import { invalidRequest } from './errors.js';
import type { PaymentIntentObject, PaymentMethodRecord, SetupIntentObject } from './objects.js';

const CONFIRMABLE = ['requires_payment_method', 'requires_confirmation', 'requires_action'];

/**
 * What Stripe checks before confirming a PaymentIntent or SetupIntent: its status allows it, it has a card (given now
 * or earlier), and that card may be used for the intent's customer. The card becomes the intent's payment_method.
 */
export function methodToConfirm(
  flow: Flow,
  kind: 'PaymentIntent' | 'SetupIntent',
  intent: PaymentIntentObject | SetupIntentObject,
  methodId: string | null,
): PaymentMethodRecord {
  const code = kind === 'PaymentIntent' ? 'payment_intent_unexpected_state' : 'setup_intent_unexpected_state';
  if (!CONFIRMABLE.includes(intent.status)) {
    throw invalidRequest(
      `You cannot confirm this ${kind} because it has a status of ${intent.status}. Only a ${kind} with one of the following statuses may be confirmed: requires_confirmation, requires_action, requires_payment_method.`,
      code,
    );
  }
  const id = methodId ?? (typeof intent.payment_method === 'string' ? intent.payment_method : null);
  if (!id) {
    throw invalidRequest(
      `You cannot confirm this ${kind} because it's missing a payment method. Update the ${kind} with a payment method and then confirm it again.`,
      code,
    );
  }
  const method = usableMethod(flow, id, intent.customer);
  intent.payment_method = method.object.id;
  return method;
}

/** The checks Stripe makes before a PaymentMethod can pay for a customer's intent (messages partly guessed, see README). */
export function usableMethod(flow: Flow, id: string, customer: PaymentIntentObject['customer']): PaymentMethodRecord {
  const method = flow.account.paymentMethod(id);
  const owner = method.object.customer;
  if (method.consumed) {
    throw invalidRequest(
      'The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.',
      'payment_method_unexpected_state',
      'payment_method',
    );
  }
  if (owner && owner !== customer) {
    const message =
      customer === null
        ? 'The provided PaymentMethod belongs to a Customer, but you did not provide a customer. Provide the customer the PaymentMethod is attached to.'
        : `The provided PaymentMethod belongs to Customer ${String(owner)}, not to ${String(customer)}.`;
    throw invalidRequest(message, 'payment_method_unexpected_state', 'payment_method');
  }
  return method;
}
