import { Refusal } from '../refusals/refusal.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../http/idempotency.js';
import { wallClockNow } from '../clock/account-clock.js';
import { findPaymentByIdempotencyKey, isDuplicateKeyedPayment } from './repository.js';

/**
 * What a charge came to. A decline is a normal outcome, not an exception: it is
 * recorded (a failed payment) and returned; only the HTTP layer makes it a 402.
 */
export type PaymentOutcome =
  | { status: 'Succeeded'; payment: { id: number } }
  | { status: 'Declined'; payment: { id: number }; declineCode: string; message: string };

/** The 402 of a declined charge: the gateway's words and code, and the failed payment's id. */
export function paymentDeclinedError(outcome: Extract<PaymentOutcome, { status: 'Declined' }>): Refusal {
  return new Refusal('declined', [
    { Key: 'Api Error', Value: `payment declined: ${outcome.message}`, Code: 'card_declined' },
    { Key: 'declineCode', Value: outcome.declineCode, Code: 'card_declined' },
    { Key: 'paymentActivityId', Value: String(outcome.payment.id), Code: 'card_declined' },
  ]);
}

/** The outcome of the payment already made under `key` in the key's present life, if one was. */
export async function earlierOutcome(ctx: AppContext, caller: Caller, key: string): Promise<PaymentOutcome | undefined> {
  const since = new Date(wallClockNow().getTime() - IDEMPOTENCY_KEY_TTL_MS);
  const earlier = await findPaymentByIdempotencyKey(ctx.db, caller.accountId, key, since);
  if (!earlier) return undefined;
  if (earlier.status === 'Succeeded') return { status: 'Succeeded', payment: { id: earlier.id } };
  return { status: 'Declined', payment: { id: earlier.id }, declineCode: earlier.declineCode ?? '', message: earlier.declineMessage ?? '' };
}

/**
 * Records a payment under its key at most once: when another run under the same key (a paused
 * holder's late one, a retry racing it) committed first, the unique index refuses this one, its
 * transaction rolls back whole, and that payment is the outcome.
 */
export async function onceUnderKey(
  ctx: AppContext,
  caller: Caller,
  key: string | undefined,
  record: () => Promise<number>,
): Promise<number | PaymentOutcome> {
  try {
    return await record();
  } catch (error) {
    if (!key || !isDuplicateKeyedPayment(error)) throw error;
    const earlier = await earlierOutcome(ctx, caller, key);
    if (!earlier) throw error;
    return earlier;
  }
}
