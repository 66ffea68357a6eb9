import { Refusal } from '../refusals/refusal.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { toJsonAmount, type Money } from '../money/money.js';
import { callGateway } from '../gateway/call-gateway.js';
import { gatewayIdempotencyKey } from '../gateway/payment-gateway.js';
import { isChargeRecorded, insertPaymentNeedingAttention } from './repository.js';

/** How long a charge whose record met a database failure waits for the database before it is paid back unseen. */
const OUTAGE_WAIT_MS = 60_000;

/**
 * A charge whose record met a database failure: the failure may have hidden a commit (the connection
 * dropped at COMMIT). Once the database answers, a recorded charge is left alone; otherwise it is paid
 * back. A database away longer than OUTAGE_WAIT_MS: paid back unseen (the usual case by far is a
 * rolled-back transaction), with a warning to reconcile.
 */
export async function settleAfterOutage(
  ctx: AppContext,
  caller: Caller,
  charge: UnrecordedCharge,
  options: { log?: ErrorLog; onUnrecordedCharge?: (outcome: 'settling' | 'paid back' | 'kept' | 'recorded') => void },
): Promise<void> {
  const giveUpAt = performance.now() + OUTAGE_WAIT_MS;
  let recorded: boolean | undefined;
  while (recorded === undefined && performance.now() < giveUpAt) {
    recorded = await isChargeRecorded(ctx.db, caller.accountId, charge.transactionId).catch(() => undefined);
    if (recorded === undefined) await new Promise((resolve) => setTimeout(resolve, 500).unref());
  }
  if (recorded) {
    options.onUnrecordedCharge?.('recorded');
    return;
  }
  if (recorded === undefined)
    (options.log ?? console).error(
      { accountId: caller.accountId, customerId: charge.customerId, gatewayTransactionId: charge.transactionId },
      'a charge whose record met a database outage is paid back without knowing whether it was recorded: reconcile',
    );
  const paidBack = await compensateUnrecordedCharge(ctx, caller, charge, options.log).catch(() => false);
  options.onUnrecordedCharge?.(paidBack ? 'paid back' : 'kept');
}

/** A charge that went through at the gateway but whose record failed. */
export interface UnrecordedCharge {
  customerId: number;
  transactionId: string;
  amount: Money;
  currency: string;
  now: Date;
}

/** Where a service logs what an operator must see (a Fastify logger fits). */
export interface ErrorLog {
  error(details: object, message: string): void;
}

/**
 * Pays back a charge that could not be recorded. When the gateway refuses or cannot be reached, the
 * money is neither recorded nor returned: that is never swallowed. It is recorded for an operator
 * (payments_needing_attention), counted (metric), logged at error level (ids and amounts, no card
 * data) and announced (payment.needs_attention webhook); the log and the metric even if the
 * database cannot take the record.
 */
export async function compensateUnrecordedCharge(
  ctx: AppContext,
  caller: Caller,
  charge: UnrecordedCharge,
  log: ErrorLog | undefined,
  attempt = 0,
): Promise<boolean> {
  const idempotencyKey = gatewayIdempotencyKey(caller.accountId, `compensate_${charge.transactionId}`);
  let refused: { code: string; message: string };
  try {
    const refund = await callGateway(ctx, (signal) =>
      ctx.payments.gateway.refund(
        { transactionId: charge.transactionId, amount: charge.amount, currency: charge.currency, idempotencyKey },
        signal,
      ),
    );
    if (refund.status === 'succeeded') return true;
    refused = refund;
  } catch (error) {
    refused = {
      code: 'gateway_unavailable',
      message: error instanceof Refusal ? (error.errors[0]?.Value ?? 'the gateway failed') : (error as Error).message,
    };
  }
  const details = {
    accountId: caller.accountId,
    customerId: charge.customerId,
    gatewayTransactionId: charge.transactionId,
    amount: charge.amount.toString(),
    currency: charge.currency,
    gatewayCode: refused.code,
  };
  ctx.metrics?.paymentNeedsAttention();
  try {
    const record = await ctx.db.transaction().execute(async (trx) => {
      const row = await insertPaymentNeedingAttention(trx, {
        accountId: caller.accountId,
        customerId: charge.customerId,
        reason: 'compensation_failed',
        gatewayTransactionId: charge.transactionId,
        amount: charge.amount.toString(),
        currency: charge.currency,
        gatewayCode: refused.code,
        gatewayMessage: refused.message,
      });
      const data = {
        id: row.id,
        reason: row.reason,
        customerId: row.customerId,
        gatewayTransactionId: row.gatewayTransactionId,
        amount: toJsonAmount(row.amount),
        currency: row.currency,
        gatewayCode: row.gatewayCode,
        gatewayMessage: row.gatewayMessage,
        createdTimestamp: row.createdAt.toISOString(),
      };
      await ctx.webhooks?.paymentNeedsAttention(trx, caller.accountId, charge.customerId, data, charge.now);
      return row;
    });
    (log ?? console).error(
      { ...details, needsAttentionId: record.id },
      'a charge that could not be recorded was not refunded either: it needs attention',
    );
  } catch (error) {
    (log ?? console).error(
      { ...details, recordError: (error as Error).message, attempt },
      'a charge that could not be recorded was not refunded either, and could not be recorded as needing attention',
    );
    // Neither the gateway nor the database took it (a database restart while the charge was in
    // flight): try the whole compensation again, the refund first (its idempotency key makes a
    // retry safe), for about two minutes. Lost only if this process dies meanwhile; the log remains.
    if (attempt < COMPENSATION_RETRIES) {
      setTimeout(
        () => void compensateUnrecordedCharge(ctx, caller, charge, log, attempt + 1).catch(() => undefined),
        500 * 2 ** attempt,
      ).unref();
    }
  }
  return false;
}

/** Retries of a compensation that neither the gateway nor the database took: 0.5 s doubling, about 2 minutes in all. */
const COMPENSATION_RETRIES = 8;
