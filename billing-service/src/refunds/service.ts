import { Refusal } from '../refusals/refusal.js';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import { retryOnConflict } from '../db/conflict-retry.js';
import type { Caller } from '../http/auth.js';
import type { UriBuilder } from '../uri-builder.js';
import { heldByDisputes } from '../ledger/disputes.js';
import { payBackPayment } from '../ledger/refunds.js';
import { minorUnits, money, toJsonAmount, type Money } from '../money/money.js';
import { callGateway } from '../gateway/call-gateway.js';
import { gatewayIdempotencyKey, type SettledOutcome } from '../gateway/payment-gateway.js';
import { findPayment, type PaymentRow } from '../payments/repository.js';
import type { PaymentResponse } from '../payments/schemas.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import {
  findRefund,
  findRefundByGatewayKey,
  findUnallocations,
  insertRefund,
  insertUnallocations,
  lockPaymentForRefund,
  lockRefund,
  updateRefund,
  type RefundRow,
} from './repository.js';
import type { CreateRefundInput, RefundResponse } from './schemas.js';

type Method = PaymentResponse['paymentMethod'];

/** What a refund came to. A refusal by the gateway is a normal outcome (recorded as a failed refund), not an exception. */
export type RefundOutcome =
  | { status: 'Succeeded'; refund: { id: number } }
  | { status: 'Refused'; refund: { id: number }; declineCode: string; message: string };

export interface RefundOptions {
  /**
   * The request's Idempotency-Key: the gateway's refund is asked under it (namespaced by account), and
   * a retry with it resumes the refund it reserved. Default: a fresh key per refund.
   */
  idempotencyKey?: string;
}

export async function toRefundResponses(db: Queryable, uris: UriBuilder, refunds: RefundRow[]): Promise<RefundResponse[]> {
  const unallocations = await findUnallocations(
    db,
    refunds.map((r) => r.id),
  );
  return refunds.map((r) => ({
    originalPaymentId: r.paymentId,
    customerId: r.customerId,
    amount: toJsonAmount(r.amount),
    currency: r.currency,
    method: r.method as Method,
    status: r.status,
    reference: r.reference,
    effectiveTimestamp: r.effectiveAt.toISOString(),
    declineCode: r.declineCode,
    invoiceUnallocations: unallocations
      .filter((u) => u.refundId === r.id)
      .map((u) => ({
        invoiceId: u.invoiceId,
        invoiceNumber: u.invoiceNumber,
        amount: toJsonAmount(u.amount),
        uri: uris.resource('Invoices', u.invoiceId),
      })),
    paymentUri: uris.resource('payments', r.paymentId),
    id: r.id,
    uri: uris.resource('refunds', r.id),
  }));
}

export async function getRefund(ctx: AppContext, caller: Caller, id: number): Promise<RefundResponse> {
  const row = await findRefund(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('refund', id);
  const [response] = await toRefundResponses(ctx.db, ctx.uris, [row]);
  if (!response) throw new Error('toRefundResponses answers one response per row');
  return response;
}

/** Refunds a payment (all or part) and answers the refund; a refusal by the gateway is a 402 with its code. */
export async function createRefund(
  ctx: AppContext,
  caller: Caller,
  input: CreateRefundInput,
  now?: Date,
  options: RefundOptions = {},
): Promise<RefundResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  const outcome = await recordRefund(ctx, caller, input, now, options);
  if (outcome.status === 'Refused') throw refundRefusedError(outcome);
  return getRefund(ctx, caller, outcome.refund.id);
}

/** The 402 of a refund the gateway refused: its words and code, and the failed refund's id. */
export function refundRefusedError(outcome: Extract<RefundOutcome, { status: 'Refused' }>): Refusal {
  return new Refusal('declined', [
    { Key: 'Api Error', Value: `refund refused: ${outcome.message}`, Code: 'refund_declined' },
    { Key: 'declineCode', Value: outcome.declineCode, Code: 'refund_declined' },
    { Key: 'refundId', Value: String(outcome.refund.id), Code: 'refund_declined' },
  ]);
}

/**
 * Refunds a succeeded payment. What its refunds hold (succeeded, and card refunds waiting for the
 * gateway) never exceeds it: each refund is checked and recorded under the payment's row lock. A card
 * refund is reserved that way, then the gateway is called outside any transaction, then the outcome is
 * recorded; another method is recorded at once. Throws a Refusal for a request that cannot be made.
 */
export async function recordRefund(
  ctx: AppContext,
  caller: Caller,
  input: CreateRefundInput,
  now?: Date,
  options: RefundOptions = {},
): Promise<RefundOutcome> {
  now ??= await ctx.clock.now(caller.accountId);
  const payment = await findPayment(ctx.db, caller.accountId, input.originalPaymentId);
  if (!payment) throw Refusal.notFound('payment', input.originalPaymentId);
  if (payment.status !== 'Succeeded' || payment.ledgerEntryId === null) {
    throw Refusal.invalid(`payment ${payment.id} failed: only a succeeded payment can be refunded`, 'originalPaymentId', 'state_conflict');
  }
  const amount = amountInCurrency(input.amount, payment.currency, 'amount');
  const method = refundMethod(payment, input.method ?? null);
  const refund: RefundToRecord = {
    payment,
    amount,
    method,
    now,
    row: {
      accountId: caller.accountId,
      customerId: payment.customerId,
      paymentId: payment.id,
      method,
      amount: amount.toString(),
      currency: payment.currency,
      reference: input.reference ?? null,
      status: 'Pending' as const,
      effectiveAt: now,
    },
  };
  if (method !== 'CreditCard') return recordRefundAtOnce(ctx, caller, refund, options);
  return recordCardRefund(ctx, caller, refund, options);
}

/** A refund checked and ready to record: the payment it pays back, and its row as first inserted (Pending). */
interface RefundToRecord {
  payment: PaymentRow;
  amount: Money;
  method: Method;
  now: Date;
  row: Omit<Parameters<typeof insertRefund>[1], 'gatewayIdempotencyKey'>;
}

/**
 * A refund by any method but a card: no gateway, recorded and completed in one transaction. With a key (a credit
 * note's refunds: credit-notes/refunds.ts) a second run finds the refund the first recorded under it, so it is
 * recorded once (the key is kept where a card refund keeps its gateway key).
 */
async function recordRefundAtOnce(ctx: AppContext, caller: Caller, refund: RefundToRecord, options: RefundOptions): Promise<RefundOutcome> {
  const { payment, amount, method, now } = refund;
  const key = options.idempotencyKey === undefined ? null : gatewayIdempotencyKey(caller.accountId, options.idempotencyKey);
  const id = await retryOnConflict(() =>
    ctx.db.transaction().execute(async (trx) => {
      // The customer first, then the payment: every refund takes its locks in this order.
      const customer = await lockCustomerOfPayment(trx, caller, payment);
      const earlier = key === null ? undefined : await findRefundByGatewayKey(trx, key);
      if (earlier) return earlier.id;
      await checkRefundable(trx, payment, amount);
      const refundId = await insertRefund(trx, { ...refund.row, gatewayIdempotencyKey: key });
      const reference = refund.row.reference ?? null;
      await completeRefund(ctx, trx, caller, { customer, payment, refundId, amount, method, reference, now, gatewayRefundId: null });
      return refundId;
    }),
  );
  return { status: 'Succeeded', refund: { id } };
}

/**
 * A card refund: reserved under the key the gateway will be asked with, before it is asked (a retry with the
 * client's key resumes this refund, and the settlement worker finds it if this process dies), then the gateway
 * asked, then its answer recorded.
 */
async function recordCardRefund(ctx: AppContext, caller: Caller, refund: RefundToRecord, options: RefundOptions): Promise<RefundOutcome> {
  const { payment, amount, now } = refund;
  const transactionId = payment.gatewayTransactionId;
  if (!transactionId) throw new Error('refundMethod refunds by card only a payment with its gateway transaction');
  const gatewayKey = gatewayIdempotencyKey(caller.accountId, options.idempotencyKey ?? `refund-${randomUUID()}`);
  const reserved = await retryOnConflict(() =>
    ctx.db.transaction().execute(async (trx) => {
      await lockCustomer(trx, caller.accountId, payment.customerId);
      const earlier = await findRefundByGatewayKey(trx, gatewayKey);
      if (earlier) {
        if (earlier.paymentId !== payment.id || !money(earlier.amount).equals(amount)) {
          throw Refusal.conflict(
            'this Idempotency-Key was already used with a different refund',
            'Idempotency-Key',
            'idempotency_key_reused',
          );
        }
        return earlier;
      }
      await checkRefundable(trx, payment, amount);
      const id = await insertRefund(trx, { ...refund.row, gatewayIdempotencyKey: gatewayKey });
      return { id, status: 'Pending' as const, declineCode: null, declineMessage: null };
    }),
  );
  if (reserved.status !== 'Pending') return outcomeOf(reserved);
  // No answer from the gateway (502/504): the refund stays Pending, holding its amount; a retry with
  // the same Idempotency-Key resumes it, else the settlement worker asks the gateway what became of it.
  const outcome = await callGateway(
    ctx,
    (signal) => ctx.payments.gateway.refund({ transactionId, amount, currency: payment.currency, idempotencyKey: gatewayKey }, signal),
    'the refund is Pending: retry with the same Idempotency-Key, or it is settled with the gateway within minutes',
  );
  return settleCardRefund(ctx, caller, { refundId: reserved.id, payment, now }, outcome);
}

/** The payment's customer, locked; it exists as long as its payment does (customers are never deleted). */
async function lockCustomerOfPayment(trx: Queryable, caller: Caller, payment: PaymentRow) {
  const customer = await lockCustomer(trx, caller.accountId, payment.customerId);
  if (!customer) throw new Error(`customer ${payment.customerId} of payment ${payment.id} is gone`);
  return customer;
}

/** A refund already decided, as recordRefund answers it. */
function outcomeOf(refund: {
  id: number;
  status: 'Succeeded' | 'Failed' | 'Pending';
  declineCode: string | null;
  declineMessage: string | null;
}): RefundOutcome {
  if (refund.status === 'Failed')
    return {
      status: 'Refused',
      refund: { id: refund.id },
      declineCode: refund.declineCode ?? 'refund_failed',
      message: refund.declineMessage ?? 'the refund failed',
    };
  return { status: 'Succeeded', refund: { id: refund.id } };
}

/**
 * Records what the gateway said of a reserved card refund: Failed (the reservation let go), or
 * Succeeded with its ledger entries. Under the customer's lock then the refund's; a refund decided
 * meanwhile (by a retry or the settlement worker) is left as it is and answered as it stands.
 */
export async function settleCardRefund(
  ctx: AppContext,
  caller: Caller,
  refund: { refundId: number; payment: PaymentRow; now: Date },
  outcome: SettledOutcome<{ refundId: string }>,
): Promise<RefundOutcome> {
  const { refundId, payment, now } = refund;
  return retryOnConflict(() =>
    ctx.db.transaction().execute(async (trx): Promise<RefundOutcome> => {
      const customer = await lockCustomerOfPayment(trx, caller, payment);
      const row = await lockRefund(trx, refundId);
      if (!row) throw new Error(`refund ${refundId}, reserved before the gateway was asked, is gone`);
      if (row.status !== 'Pending') return outcomeOf(row);
      const amount = money(row.amount);
      if (outcome.status === 'declined') {
        await updateRefund(trx, refundId, { status: 'Failed', declineCode: outcome.code, declineMessage: outcome.message });
        await recordChange(trx, caller, {
          entityType: 'Refund',
          entityId: refundId,
          action: 'create',
          changes: {
            status: 'Failed',
            originalPaymentId: payment.id,
            amount: amount.toString(),
            method: row.method,
            declineCode: outcome.code,
          },
        });
        return { status: 'Refused', refund: { id: refundId }, declineCode: outcome.code, message: outcome.message };
      }
      await completeRefund(ctx, trx, caller, {
        customer,
        payment,
        refundId,
        amount,
        method: row.method as Method,
        reference: row.reference,
        now,
        gatewayRefundId: outcome.value.refundId,
      });
      return { status: 'Succeeded', refund: { id: refundId } };
    }),
  );
}

/** How the money goes back: as asked, else the payment's own method; only a card payment goes back to its card (CreditCard). */
function refundMethod(payment: PaymentRow, asked: Method | null): Method {
  const method = asked ?? (payment.paymentMethodType as Method);
  if (method === 'CreditCard' && (payment.paymentMethodType !== 'CreditCard' || !payment.gatewayTransactionId)) {
    throw Refusal.invalid(
      `payment ${payment.id} was not made by card: refund it by ${payment.paymentMethodType}, Cash or Check`,
      'method',
      'value_invalid',
    );
  }
  return method;
}

/** Under the payment's row lock: the refund fits what the payment has left to refund (400 on `amount` otherwise). */
async function checkRefundable(trx: Queryable, payment: PaymentRow, amount: Money) {
  const refunded = money(await lockPaymentForRefund(trx, payment.id));
  // a dispute's money went back through the processor already (a dispute takes the payment's lock too)
  const entryId = payment.ledgerEntryId;
  const disputed = entryId === null ? undefined : (await heldByDisputes(trx, [entryId])).get(entryId);
  const held = disputed ? refunded.plus(disputed) : refunded;
  const left = money(payment.amount).minus(held);
  if (amount.greaterThan(left)) {
    const decimals = minorUnits(payment.currency);
    throw Refusal.invalid(
      `more than the ${left.toFixed(decimals)} ${payment.currency} left to refund of payment ${payment.id} (${money(payment.amount).toFixed(decimals)}, ${held.toFixed(decimals)} refunded, being refunded or disputed)`,
      'amount',
      'value_invalid',
    );
  }
}

/**
 * A refund that happened: the ledger pays it back (unallocated money first, then the payment's
 * invoices, newest first, which open again), the refund is Succeeded with what it reopened, and its
 * audit entry, e-mail and webhook commit with it. The caller holds the customer's lock.
 */
async function completeRefund(
  ctx: AppContext,
  trx: Queryable,
  caller: Caller,
  refund: {
    customer: NonNullable<Awaited<ReturnType<typeof lockCustomer>>>;
    payment: PaymentRow;
    refundId: number;
    amount: Money;
    method: Method;
    reference: string | null;
    now: Date;
    gatewayRefundId: string | null;
  },
) {
  const { payment, customer, refundId, amount, now } = refund;
  if (payment.ledgerEntryId === null)
    throw new Error(`payment ${payment.id} is refunded but has no ledger entry (only succeeded ones are)`);
  const paidBack = await payBackPayment(trx, {
    accountId: caller.accountId,
    customerId: payment.customerId,
    paymentEntryId: payment.ledgerEntryId,
    amount,
    effectiveAt: now,
    description: refund.reference ?? `refund of payment ${payment.id}`,
  });
  await updateRefund(trx, refundId, {
    status: 'Succeeded',
    ledgerEntryId: paidBack.refundEntryId,
    gatewayRefundId: refund.gatewayRefundId,
  });
  await insertUnallocations(
    trx,
    refundId,
    paidBack.reopened.map((r) => ({ invoiceId: r.invoiceId, amount: r.amount.toString() })),
  );
  await recordChange(trx, caller, {
    entityType: 'Refund',
    entityId: refundId,
    action: 'create',
    changes: {
      status: 'Succeeded',
      originalPaymentId: payment.id,
      amount: amount.toString(),
      method: refund.method,
      reopenedInvoices: paidBack.reopened.map((r) => ({ invoiceId: r.invoiceId, amount: r.amount.toString() })),
    },
  });
  const decimals = minorUnits(payment.currency);
  await ctx.notifier?.enqueue(trx, customer, {
    type: 'Refund',
    amount: amount.toFixed(decimals),
    currency: payment.currency,
    paymentAmount: money(payment.amount).toFixed(decimals),
    paymentDate: payment.effectiveAt.toISOString().slice(0, 10),
    method: refund.method,
    reference: refund.reference,
  });
  await ctx.webhooks?.payment(trx, caller.accountId, payment.customerId, payment.id, 'payment.refunded', now);
}
