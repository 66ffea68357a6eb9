import { Refusal } from '../refusals/refusal.js';
import { recordChange } from '../audit/audit-log.js';
import type { AppContext } from '../app-context.js';
import { lockCustomer, findCustomerRow } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import { gatewayIdempotencyKey } from '../gateway/payment-gateway.js';
import type { Caller } from '../http/auth.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { minorUnits, money } from '../money/money.js';
import { findPaymentMethod } from '../payment-methods/repository.js';
import type { CustomerRow } from '../db/schema.js';
import type { PaymentOutcome } from './outcome.js';
import { AuthenticationNeeded, announceSucceededPayment, chargeCard, insertSucceededPayment, type PaymentBase } from './record-steps.js';
import {
  findPayment,
  findPaymentOfCharge,
  lockAwaitingPayment,
  markAwaitingPaymentDeclined,
  markAwaitingPaymentSucceeded,
  type PaymentRow,
} from './repository.js';

/**
 * Pays a payment that waits for its customer's authentication (RequiresAction, README "3-D Secure"), the
 * customer present (the portal's authenticatePayment flow): its amount, on its card, on-session. The bank
 * asks for its challenge (AuthenticationNeeded: nothing charged) until `authenticatedBy` names a completed
 * one; then the payment itself becomes Succeeded, allocated to open invoices oldest first (payment.succeeded,
 * invoice.paid, the PaymentReceived e-mail). A decline after the challenge fails it.
 *
 * Once: the gateway's key is the payment's and the challenge's (a retry charges once), and under the customer's
 * lock a charge already recorded is not recorded again (one challenge completed twice at once). A second challenge
 * completed in parallel (two tabs) may charge again: that money is recorded as a payment of its own, never lost.
 */
export async function payAwaitingPayment(
  ctx: AppContext,
  caller: Caller,
  paymentId: number,
  options: { customerId: number; authenticatedBy?: string | null },
): Promise<PaymentOutcome> {
  const payment = await findPayment(ctx.db, caller.accountId, paymentId);
  if (!payment || payment.customerId !== options.customerId) throw Refusal.notFound('payment', paymentId);
  if (payment.status === 'Succeeded') return { status: 'Succeeded', payment: { id: payment.id } };
  if (payment.status === 'Failed')
    throw Refusal.conflict('this payment no longer waits for authentication: a later payment replaced it', 'paymentId', 'state_conflict');
  const card = payment.paymentMethodId === null ? undefined : await findPaymentMethod(ctx.db, caller.accountId, payment.paymentMethodId);
  if (!card?.gatewayToken || card.removedAt)
    throw Refusal.conflict('the card of this payment was removed: pay with another card', 'paymentId', 'state_conflict');
  const customer = await findCustomerRow(ctx.db, caller.accountId, payment.customerId);
  if (!customer) throw Refusal.notFound('customer', payment.customerId);
  const key = `authenticate-payment-${payment.id}${options.authenticatedBy ? `-${options.authenticatedBy}` : ''}`;
  const outcome = await chargeCard(ctx, {
    token: card.gatewayToken,
    amount: money(payment.amount),
    currency: payment.currency,
    idempotencyKey: gatewayIdempotencyKey(caller.accountId, key),
    offSession: false,
    ...(options.authenticatedBy ? { authenticatedBy: options.authenticatedBy } : {}),
  });
  if (outcome.status === 'requiresAction') throw new AuthenticationNeeded(outcome.action);
  const now = await ctx.clock.now(caller.accountId);
  if (outcome.status === 'declined') {
    await ctx.db.transaction().execute(async (trx) => {
      await markAwaitingPaymentDeclined(trx, payment.id, outcome);
      await recordChange(trx, caller, {
        entityType: 'Payment',
        entityId: payment.id,
        action: 'update',
        changes: { status: 'Failed', declineCode: outcome.code },
      });
      await ctx.webhooks?.payment(trx, caller.accountId, payment.customerId, payment.id, 'payment.failed', now);
    });
    return { status: 'Declined', payment: { id: payment.id }, declineCode: outcome.code, message: outcome.message };
  }
  const id = await ctx.db
    .transaction()
    .execute((trx) => recordAuthenticatedPayment(ctx, trx, caller, { payment, customer, transactionId: outcome.value.transactionId, now }));
  ctx.metrics?.paymentRecorded('Succeeded');
  return { status: 'Succeeded', payment: { id } };
}

/** The charge made: the waiting payment succeeds in place (or, when another completion recorded it meanwhile, this money is a payment of its own). */
async function recordAuthenticatedPayment(
  ctx: AppContext,
  trx: Queryable,
  caller: Caller,
  done: { payment: PaymentRow; customer: CustomerRow; transactionId: string; now: Date },
): Promise<number> {
  const { payment, customer, transactionId, now } = done;
  await lockCustomer(trx, caller.accountId, payment.customerId);
  const base: PaymentBase = {
    accountId: caller.accountId,
    customerId: payment.customerId,
    paymentMethodType: payment.paymentMethodType,
    paymentMethodId: payment.paymentMethodId,
    source: payment.source,
    reference: payment.reference,
    amount: payment.amount,
    currency: payment.currency,
    effectiveAt: now,
    idempotencyKey: null,
  };
  const events = { webhooks: ctx.webhooks, now };
  // Under the customer's lock: a charge already recorded (the same challenge completed twice at once) is that payment.
  const recorded = await findPaymentOfCharge(trx, caller.accountId, transactionId);
  if (recorded) return recorded.id;
  const waiting = await lockAwaitingPayment(trx, caller.accountId, payment.id);
  let id = payment.id;
  if (waiting) {
    const amount = money(payment.amount);
    const entryId = await addLedgerEntry(trx, {
      accountId: caller.accountId,
      customerId: payment.customerId,
      entryType: 'payment',
      amount,
      effectiveAt: now,
      description: payment.reference,
    });
    await markAwaitingPaymentSucceeded(trx, payment.id, { ledgerEntryId: entryId, gatewayTransactionId: transactionId, effectiveAt: now });
    const allocations = await allocateAvailableFunds(trx, caller.accountId, payment.customerId, now, 'OldestToNewest', entryId);
    await recordChange(trx, caller, {
      entityType: 'Payment',
      entityId: payment.id,
      action: 'update',
      changes: { status: 'Succeeded', authenticated: true },
    });
    await announceSucceededPayment(trx, caller, base, payment.id, allocations, events);
  } else {
    const allocating = { counted: { instance: ctx.instance, ownChargeKey: null }, moneyMoved: true };
    id = await insertSucceededPayment(
      trx,
      caller,
      base,
      transactionId,
      { paymentMethod: 'CreditCard', reference: payment.reference },
      allocating,
      events,
    );
  }
  await ctx.notifier?.enqueue(trx, customer, {
    type: 'PaymentReceived',
    amount: money(payment.amount).toFixed(minorUnits(customer.currency)),
    currency: customer.currency,
    reference: payment.reference,
  });
  return id;
}
