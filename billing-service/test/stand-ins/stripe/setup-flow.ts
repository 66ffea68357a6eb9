import { setupVerdict } from './authorization.js';
import type { Flow } from './context.js';
import { methodToConfirm } from './confirmation.js';
import { cardFailure, type Decline, docUrl } from './errors.js';
import { newId, type PaymentMethodRecord, type SetupIntentObject } from './objects.js';
import { nextAction } from './next-action.js';

/**
 * Confirms a SetupIntent: the card is validated with its issuer (declines answer 402 with the intent inside), asks for
 * authentication where the card does (requires_action), or is saved: attached to the intent's customer and, with
 * usage=off_session (Stripe's default), holding the mandate that lets later off-session payments skip authentication.
 */
export function confirmSetup(flow: Flow, intent: SetupIntentObject, methodId: string | null, returnUrl: string | null): void {
  const method = methodToConfirm(flow, 'SetupIntent', intent, methodId);
  intent.latest_attempt = newId('setatt');
  const verdict = setupVerdict(method, false);
  if (verdict.kind === 'challenge') {
    intent.status = 'requires_action';
    intent.next_action = nextAction(flow.world, intent.id, returnUrl);
    intent.last_setup_error = null;
    flow.account.emit('setup_intent.requires_action', intent, flow.origin);
  } else if (verdict.kind === 'approve') {
    succeed(flow, intent, method);
  } else {
    fail(flow, intent, method, verdict.decline);
  }
}

/** The cardholder finished the issuer's challenge for a SetupIntent in requires_action. */
export function completeSetupChallenge(flow: Flow, intent: SetupIntentObject, outcome: 'succeed' | 'fail'): void {
  const method = flow.account.paymentMethod(String(intent.payment_method));
  if (outcome === 'succeed') {
    succeed(flow, intent, method);
    return;
  }
  Object.assign(intent, { status: 'requires_payment_method', next_action: null, payment_method: null });
  intent.last_setup_error = {
    type: 'invalid_request_error',
    code: 'setup_intent_authentication_failure',
    message: 'The latest attempt to set up the payment method has failed because authentication failed.',
    doc_url: 'https://docs.stripe.com/error-codes/setup-intent-authentication-failure',
    payment_method: structuredClone(method.object),
  };
  flow.account.emit('setup_intent.setup_failed', intent, flow.origin);
}

function succeed(flow: Flow, intent: SetupIntentObject, method: PaymentMethodRecord): void {
  Object.assign(intent, { status: 'succeeded', next_action: null, last_setup_error: null });
  if (typeof intent.customer === 'string') method.object.customer = intent.customer;
  if (intent.usage === 'off_session') method.setUpForOffSession = true;
  flow.account.emit('setup_intent.succeeded', intent, flow.origin);
}

function fail(flow: Flow, intent: SetupIntentObject, method: PaymentMethodRecord, reason: Decline): never {
  Object.assign(intent, { status: 'requires_payment_method', next_action: null, payment_method: null });
  intent.last_setup_error = {
    type: 'card_error',
    ...reason,
    doc_url: docUrl(reason.code),
    payment_method: structuredClone(method.object),
  };
  flow.account.emit('setup_intent.setup_failed', intent, flow.origin);
  throw cardFailure(reason, { setup_intent: structuredClone(intent), payment_method: structuredClone(method.object) });
}
