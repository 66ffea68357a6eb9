import type { Context } from './context.js';
import { formatAmount } from './currency.js';
import { invalidParameter, invalidRequest } from './errors.js';
import { type ChargeObject, newId, nowSeconds, type RefundObject } from './objects.js';
import { Params } from './params.js';

const REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;

/**
 * POST /v1/refunds of a PaymentIntent's (or a charge's) successful charge, whole or in part. Card refunds in test
 * mode succeed at once; `charge.refunded` follows with the charge's new amount_refunded.
 */
export function createRefund(context: Context): RefundObject {
  const { account } = context;
  const params = new Params(context.body, ['amount', 'charge', 'metadata', 'payment_intent', 'reason']);
  const charge = refundedCharge(context, params);
  const remaining = charge.amount - charge.amount_refunded;
  if (charge.refunded || remaining === 0) throw invalidRequest(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded');
  if (charge.disputed) throw invalidRequest(`Charge ${charge.id} has been charged back; cannot issue a refund.`, 'charge_disputed');
  const amount = params.integer('amount') ?? remaining;
  if (amount <= 0) throw invalidParameter('amount', 'Invalid positive integer', 'parameter_invalid_integer');
  if (amount > remaining) {
    throw invalidRequest(
      `Refund amount (${formatAmount(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatAmount(remaining, charge.currency)})`,
      'amount_too_large',
      'amount',
    );
  }
  const refund: RefundObject = {
    id: newId('re'),
    object: 'refund',
    amount,
    charge: charge.id,
    created: nowSeconds(),
    currency: charge.currency,
    metadata: params.metadata(),
    payment_intent: charge.payment_intent,
    reason: params.oneOf('reason', REASONS) ?? null,
    status: 'succeeded',
  };
  account.refunds.set(refund.id, refund);
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded === charge.amount;
  account.emit('charge.refunded', charge, context.origin);
  return refund;
}

/** GET /v1/refunds/:id */
export function retrieveRefund({ account, id }: Context): RefundObject {
  return account.refund(id);
}

function refundedCharge({ account }: Context, params: Params): ChargeObject {
  const intentId = params.string('payment_intent');
  const chargeId = params.string('charge');
  if (intentId && chargeId) throw invalidParameter('charge', 'You cannot pass both charge and payment_intent.', 'parameters_exclusive');
  if (chargeId) return account.charge(chargeId);
  if (!intentId)
    throw invalidParameter(
      'payment_intent',
      'One of the following params should be provided for this request: payment_intent or charge.',
      'parameter_missing',
    );
  const intent = account.paymentIntent(intentId, 'payment_intent');
  if (intent.status !== 'succeeded' || typeof intent.latest_charge !== 'string') {
    throw invalidRequest(
      `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
      'charge_not_refundable',
      'payment_intent',
    );
  }
  return account.charge(intent.latest_charge);
}

/**
 * GET /v1/refunds: the account's refunds, newest first, optionally of one PaymentIntent or charge, paged with `limit`
 * (1-100, default 10) and `starting_after`, as Stripe's list endpoints are.
 */
export function listRefunds({ account, body }: Context): object {
  const params = new Params(body, ['charge', 'payment_intent', 'limit', 'starting_after']);
  const limit = params.integer('limit') ?? 10;
  if (limit < 1 || limit > 100) throw invalidParameter('limit', 'Invalid limit: must be between 1 and 100');
  const intent = params.string('payment_intent');
  const charge = params.string('charge');
  const all = [...account.refunds.values()]
    .filter((refund) => (!intent || refund.payment_intent === intent) && (!charge || refund.charge === charge))
    .reverse();
  const after = params.string('starting_after');
  const start = after ? all.findIndex((refund) => refund.id === after) + 1 : 0;
  if (after && start === 0) throw invalidParameter('starting_after', `No such refund: '${after}'`, 'resource_missing');
  const page = all.slice(start, start + limit);
  return { object: 'list', data: page, has_more: start + limit < all.length, url: '/v1/refunds' };
}
