import type Stripe from 'stripe';
import type { Money } from '../../money/money.js';
import type { SettledOutcome } from '../payment-gateway.js';
import { declined, orDeclined } from './stripe-declines.js';
import { requestKey, toMinorUnits } from './stripe-values.js';

type RefundOutcome = SettledOutcome<{ refundId: string }>;

/** The refund's metadata key holding Renew's idempotency key: how findRefund recognises it among a payment's refunds. */
export const REFUND_KEY_METADATA = 'renew_idempotency_key';

/**
 * Pays back `amount` of a PaymentIntent (all or part), under the caller's key: a retry refunds once. Stripe's
 * refusals (already refunded, disputed, more than what is left) are the outcome `refund_failed`.
 */
export async function refundPayment(
  stripe: Stripe,
  request: { transactionId: string; amount: Money; currency: string; idempotencyKey: string },
): Promise<RefundOutcome> {
  const created = await orDeclined(() =>
    stripe.refunds.create(
      {
        payment_intent: request.transactionId,
        amount: toMinorUnits(request.amount, request.currency),
        metadata: { [REFUND_KEY_METADATA]: request.idempotencyKey },
      },
      { idempotencyKey: requestKey(request.idempotencyKey) },
    ),
  );
  if (created.status === 'declined') return declined('refund_failed', created.message);
  return refundOutcome(created.value);
}

/**
 * The refund made under this key. Stripe cannot look a refund up by its key, but lists a PaymentIntent's refunds,
 * and each carries the key in its metadata; null when none does (Stripe never received it, or refused it: nothing
 * went back either way).
 */
export async function findRefundOf(
  stripe: Stripe,
  idempotencyKey: string,
  transactionId: string | undefined,
): Promise<RefundOutcome | null> {
  if (!transactionId) {
    throw new Error('Stripe: a refund is found through the PaymentIntent it paid back, and none was named');
  }
  for await (const refund of stripe.refunds.list({ payment_intent: transactionId, limit: 100 })) {
    if (refund.metadata?.[REFUND_KEY_METADATA] === idempotencyKey) return refundOutcome(refund);
  }
  return null;
}

/** Card refunds succeed at once or stay pending a little; failed and canceled ones paid nothing back. */
function refundOutcome(refund: Stripe.Refund): RefundOutcome {
  if (refund.status === 'failed' || refund.status === 'canceled') {
    return declined('refund_failed', `Stripe's refund ${refund.id} ${refund.status} (${refund.failure_reason ?? 'no reason given'})`);
  }
  return { status: 'succeeded', value: { refundId: refund.id } };
}
