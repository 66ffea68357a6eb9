import { randomUUID } from 'node:crypto';
import { lockCustomer } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { minorUnits, type Money } from '../money/money.js';
import type { CustomerRow } from '../db/schema.js';
import { gatewayIdempotencyKey } from '../gateway/payment-gateway.js';
import { releaseAllocations } from './repository.js';
import type { CollectPaymentInput, PaymentResponse } from './schemas.js';
import { getPayment } from './payment-responses.js';
import { checkPaymentRequest, reserveExplicitAllocations } from './check-request.js';
import { earlierOutcome, onceUnderKey, paymentDeclinedError, type PaymentOutcome } from './outcome.js';
import {
  AuthenticationNeeded,
  authenticationRequired,
  chargeCard,
  insertAwaitingPayment,
  insertFailedPayment,
  insertSucceededPayment,
  type Declined,
  type PaymentBase,
} from './record-steps.js';

export interface CollectOptions {
  /**
   * The gateway charge's idempotency key (the client's Idempotency-Key, a bulk record's, the billing
   * clock's), namespaced by account before it reaches the gateway: collections retried with one key
   * charge once, on any instance. Default: a fresh key (a request without a key is not a retry of another).
   */
  idempotencyKey?: string;
  /**
   * The customer is there to authenticate (the portal): an on-session charge, and a bank asking for
   * authentication throws AuthenticationNeeded (nothing charged or recorded). Default: merchant-initiated, off-session.
   */
  customerPresent?: boolean;
  /** The customer's completed challenge for this charge (the action AuthenticationNeeded carried). */
  authenticatedBy?: string;
  /** Runs inside the transaction that records the payment (succeeded or failed): the caller's own bookkeeping commits with it. */
  alsoInTransaction?: (
    trx: Queryable,
    payment: { id: number; status: 'Succeeded' } | { id: number; status: 'Failed'; declineCode: string; message: string },
  ) => Promise<void>;
}

/**
 * Collects a payment. A card is charged through the gateway first (outside any
 * transaction); explicit allocations are checked and reserved under the customer's
 * lock before that, so a payment that cannot be honoured is refused (400) before
 * money moves. A decline is recorded as a failed payment and answered 402 with
 * the gateway's code. A success becomes a ledger entry allocated as asked
 * (explicitly, or to open invoices oldest first); the rest stays unallocated,
 * a deposit that activation later applies.
 *
 * Why a reservation rather than holding the customer's lock across the charge: a
 * slow gateway (up to its deadline) would hold a database connection and stall
 * every other change of the customer (its invoices, the billing clock, other
 * payments), and the embedded database, one connection, could not even record the
 * sandbox's charge meanwhile.
 */
export async function collectPayment(
  ctx: AppContext,
  caller: Caller,
  input: CollectPaymentInput,
  now?: Date,
  options: CollectOptions = {},
): Promise<PaymentResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  const outcome = await recordPayment(ctx, caller, input, now, options);
  if (outcome.status === 'Declined') throw paymentDeclinedError(outcome);
  return getPayment(ctx, caller, outcome.payment.id);
}

/**
 * collectPayment without reading the payment back (bulk jobs and the billing clock need no more).
 * Throws a Refusal for a request that cannot be made (invalid, not found, the gateway unavailable); a decline is returned.
 */
export async function recordPayment(
  ctx: AppContext,
  caller: Caller,
  input: CollectPaymentInput,
  now?: Date,
  options: CollectOptions = {},
): Promise<PaymentOutcome> {
  if (options.idempotencyKey) {
    // Run again under a key whose first run committed (its instance died before answering): that payment is the answer.
    const earlier = await earlierOutcome(ctx, caller, options.idempotencyKey);
    if (earlier) return earlier;
  }
  now ??= await ctx.clock.now(caller.accountId);
  const chargeKey = gatewayIdempotencyKey(caller.accountId, options.idempotencyKey ?? randomUUID());
  const { customer, amount, card } = await checkPaymentRequest(ctx, caller, input, chargeKey);
  const payment: PaymentToRecord = {
    caller,
    customer,
    input,
    amount,
    now,
    options,
    chargeKey,
    base: paymentBase(caller, customer, input, amount.toString(), card?.id ?? null, now, options.idempotencyKey),
    // A card payment naming invoices reserves them before its card is charged, and lets go once the outcome is recorded.
    reserves: card !== null && Boolean(input.paymentAllocations?.length),
    charged: card !== null,
  };
  if (payment.reserves && input.paymentAllocations)
    await reserveExplicitAllocations(ctx, caller, customer, amount, input.paymentAllocations, chargeKey);
  try {
    let transactionId: string | null = null;
    if (card) {
      const outcome = await chargeCard(ctx, {
        token: card.gatewayToken,
        amount,
        currency: customer.currency,
        idempotencyKey: chargeKey,
        offSession: options.customerPresent !== true,
        ...(options.authenticatedBy ? { authenticatedBy: options.authenticatedBy } : {}),
      });
      if (outcome.status === 'requiresAction') {
        // The customer, when here, authenticates now; when not (a renewal), the payment waits for them (e-mail, portal).
        if (options.customerPresent) throw new AuthenticationNeeded(outcome.action);
        return await recordAwaiting(ctx, payment);
      }
      // A processor that declines an off-session charge whose bank wants the customer (Stripe's authentication_required)
      // rather than answering with a challenge: the payment waits for them all the same.
      if (outcome.status === 'declined' && outcome.code === 'authentication_required' && !options.customerPresent)
        return await recordAwaiting(ctx, payment);
      if (outcome.status === 'declined') return await recordDecline(ctx, payment, outcome);
      transactionId = outcome.value.transactionId;
    }
    return await recordSuccess(ctx, payment, transactionId);
  } finally {
    // Released with the outcome when it was recorded (then this finds nothing); otherwise (the gateway
    // failed, recording failed) here. If even this fails, the reservation lapses at its held_until.
    if (payment.reserves) await releaseAllocations(ctx.db, chargeKey).catch(() => undefined);
  }
}

/** What recordPayment knows once the request is checked: everything its two outcomes record. */
interface PaymentToRecord {
  caller: Caller;
  customer: CustomerRow;
  input: CollectPaymentInput;
  amount: Money;
  now: Date;
  options: CollectOptions;
  chargeKey: string;
  base: PaymentBase;
  /** Its explicit allocations were reserved before the charge (released with the outcome). */
  reserves: boolean;
  /** A card was charged: money has moved whatever the allocations find. */
  charged: boolean;
}

function paymentBase(
  caller: Caller,
  customer: CustomerRow,
  input: CollectPaymentInput,
  amount: string,
  paymentMethodId: number | null,
  now: Date,
  idempotencyKey: string | undefined,
): PaymentBase {
  return {
    accountId: caller.accountId,
    customerId: customer.id,
    paymentMethodType: input.paymentMethod,
    paymentMethodId,
    source: input.source,
    reference: input.reference ?? null,
    amount,
    currency: customer.currency,
    effectiveAt: input.effectiveTimestamp ? new Date(input.effectiveTimestamp) : now,
    idempotencyKey: idempotencyKey ?? null,
  };
}

/** A declined charge: the failed payment, the caller's bookkeeping and the e-mail in one transaction, once under the key. */
async function recordDecline(ctx: AppContext, p: PaymentToRecord, outcome: Declined): Promise<PaymentOutcome> {
  const { caller, customer, base, now } = p;
  const failedId = await onceUnderKey(ctx, caller, p.options.idempotencyKey, () =>
    ctx.db.transaction().execute(async (trx) => {
      if (p.reserves) await releaseAllocations(trx, p.chargeKey);
      const id = await insertFailedPayment(trx, caller, base, outcome, { webhooks: ctx.webhooks, now });
      await p.options.alsoInTransaction?.(trx, { id, status: 'Failed', declineCode: outcome.code, message: outcome.message });
      await ctx.notifier?.enqueue(trx, customer, {
        type: 'PaymentFailed',
        amount: p.amount.toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
        declineCode: outcome.code,
      });
      return id;
    }),
  );
  if (typeof failedId !== 'number') return failedId;
  ctx.metrics?.paymentRecorded('Failed');
  return { status: 'Declined', payment: { id: failedId }, declineCode: outcome.code, message: outcome.message };
}

/**
 * An off-session charge the bank holds for the customer's authentication: the payment waits (RequiresAction),
 * the customer is e-mailed a link to the portal's authenticatePayment flow; to the caller (and dunning) it is
 * a decline coded authentication_required. Once under the key, in one transaction.
 */
async function recordAwaiting(ctx: AppContext, p: PaymentToRecord): Promise<PaymentOutcome> {
  const { caller, customer, base, now } = p;
  const declined = authenticationRequired();
  const awaitingId = await onceUnderKey(ctx, caller, p.options.idempotencyKey, () =>
    ctx.db.transaction().execute(async (trx) => {
      if (p.reserves) await releaseAllocations(trx, p.chargeKey);
      const id = await insertAwaitingPayment(trx, caller, base, { webhooks: ctx.webhooks, now });
      await p.options.alsoInTransaction?.(trx, { id, status: 'Failed', declineCode: declined.code, message: declined.message });
      await ctx.notifier?.enqueue(trx, customer, {
        type: 'AuthenticationRequired',
        paymentId: id,
        amount: p.amount.toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
      });
      return id;
    }),
  );
  if (typeof awaitingId !== 'number') return awaitingId;
  return { status: 'Declined', payment: { id: awaitingId }, declineCode: declined.code, message: declined.message };
}

/** A payment that went through: recorded and allocated under the customer's lock, once under the key. */
async function recordSuccess(ctx: AppContext, p: PaymentToRecord, transactionId: string | null): Promise<PaymentOutcome> {
  const { caller, customer, base, input, now } = p;
  const paymentId = await onceUnderKey(ctx, caller, p.options.idempotencyKey, () =>
    ctx.db.transaction().execute(async (trx) => {
      await lockCustomer(trx, caller.accountId, customer.id);
      if (p.reserves) await releaseAllocations(trx, p.chargeKey);
      const allocating = { counted: { instance: ctx.instance, ownChargeKey: p.chargeKey }, moneyMoved: p.charged };
      const id = await insertSucceededPayment(trx, caller, base, transactionId, input, allocating, { webhooks: ctx.webhooks, now });
      await p.options.alsoInTransaction?.(trx, { id, status: 'Succeeded' });
      await ctx.notifier?.enqueue(trx, customer, {
        type: 'PaymentReceived',
        amount: p.amount.toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
        reference: input.reference ?? null,
      });
      return id;
    }),
  );
  if (typeof paymentId !== 'number') return paymentId;
  ctx.metrics?.paymentRecorded('Succeeded');
  return { status: 'Succeeded', payment: { id: paymentId } };
}
