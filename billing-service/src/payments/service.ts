import { randomUUID } from 'node:crypto';
import { recordChange } from '../audit/audit-log.js';
import { findCustomerRow, lockCustomer } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import type { UriBuilder } from '../http/uri.js';
import { allocateAvailableFunds, allocateExplicitly } from '../ledger/allocation.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { minorUnits, money, sumMoney, toJsonAmount, type Money } from '../money/money.js';
import { findDefaultPaymentMethod, findPaymentMethod, type PaymentMethodRow } from '../payment-methods/repository.js';
import { callGateway } from './call-gateway.js';
import { findAllocations, findOpenInvoiceEntries, findPayment, insertPayment, type PaymentRow } from './repository.js';
import type { CollectPaymentInput, PaymentResponse } from './schemas.js';

export async function toPaymentResponses(db: Queryable, uris: UriBuilder, payments: PaymentRow[]): Promise<PaymentResponse[]> {
  const allocations = await findAllocations(db, payments.flatMap((p) => (p.ledgerEntryId ? [p.ledgerEntryId] : [])));
  return payments.map((p) => {
    const unallocated = p.status === 'Succeeded' ? (p.unallocated ?? '0') : '0';
    return {
      paymentActivityId: p.id,
      reference: p.reference,
      effectiveTimestamp: p.effectiveAt.toISOString(),
      customerId: p.customerId,
      amount: toJsonAmount(p.amount),
      currency: p.currency,
      status: p.status,
      paymentMethod: p.paymentMethodType as PaymentResponse['paymentMethod'],
      paymentMethodId: p.paymentMethodId,
      source: p.source as PaymentResponse['source'],
      declineCode: p.declineCode,
      invoiceAllocations: allocations
        .filter((a) => a.sourceEntryId === p.ledgerEntryId)
        .map((a) => ({
          invoiceId: a.invoiceId,
          invoiceNumber: a.invoiceNumber,
          amount: toJsonAmount(a.amount),
          outstandingBalance: toJsonAmount(a.outstandingBalance),
          invoiceTotal: toJsonAmount(a.invoiceTotal),
          uri: uris.resource('Invoices', a.invoiceId),
        })),
      refunds: [],
      unallocatedAmount: toJsonAmount(unallocated),
      refundableAmount: toJsonAmount(p.status === 'Succeeded' ? p.amount : '0'),
      id: p.id,
      uri: uris.resource('payments', p.id),
    };
  });
}

export async function getPayment(ctx: AppContext, caller: Caller, id: number): Promise<PaymentResponse> {
  const row = await findPayment(ctx.db, caller.accountId, id);
  if (!row) throw ApiError.notFound('payment', id);
  const [response] = await toPaymentResponses(ctx.db, ctx.uris, [row]);
  return response!;
}

async function resolveCard(ctx: AppContext, caller: Caller, customer: CustomerRow, input: CollectPaymentInput, known?: PaymentMethodRow): Promise<PaymentMethodRow | null> {
  if (input.paymentMethod !== 'CreditCard') return null;
  if (input.paymentMethodId != null) {
    const method = known?.id === input.paymentMethodId ? known : await findPaymentMethod(ctx.db, caller.accountId, input.paymentMethodId);
    if (!method || method.customerId !== customer.id) throw ApiError.badRequest(`customer ${customer.id} has no payment method ${input.paymentMethodId}`, 'paymentMethodId');
    return method;
  }
  if (!input.useDefaultPaymentMethod) throw ApiError.badRequest('required for CreditCard unless useDefaultPaymentMethod is true', 'paymentMethodId');
  const method = await findDefaultPaymentMethod(ctx.db, customer.id);
  if (!method) throw ApiError.badRequest('the customer has no payment method on file', 'useDefaultPaymentMethod');
  return method;
}

/** Explicit allocations must name the customer's posted invoices and fit what is open and what is paid. */
async function checkExplicitAllocations(db: Queryable, customerId: number, amount: Money, allocations: NonNullable<CollectPaymentInput['paymentAllocations']>) {
  const entries = await findOpenInvoiceEntries(db, customerId, allocations.map((a) => a.invoiceId));
  const parts = allocations.map((a, i) => {
    const entry = entries.find((e) => e.invoiceId === a.invoiceId);
    if (!entry) throw ApiError.badRequest(`no posted invoice ${a.invoiceId} for this customer`, `paymentAllocations[${i}].invoiceId`);
    if (money(a.amount).greaterThan(entry.openAmount)) throw ApiError.badRequest(`more than the invoice's outstanding ${entry.openAmount}`, `paymentAllocations[${i}].amount`);
    return { invoiceEntryId: entry.id, invoiceId: a.invoiceId, amount: money(a.amount) };
  });
  if (sumMoney(parts.map((p) => p.amount)).greaterThan(amount)) throw ApiError.badRequest('allocations add up to more than the payment', 'paymentAllocations');
  return parts;
}

/**
 * Collects a payment. A card is charged through the gateway first (outside any
 * transaction); a decline is recorded as a failed payment and answered 402 with
 * the gateway's code. A success becomes a ledger entry allocated as asked
 * (explicitly, or to open invoices oldest first); the rest stays unallocated,
 * a deposit that activation later applies.
 */
export async function collectPayment(ctx: AppContext, caller: Caller, input: CollectPaymentInput, now = new Date()): Promise<PaymentResponse> {
  return getPayment(ctx, caller, await recordPayment(ctx, caller, input, { now }));
}

export interface RecordPaymentOptions {
  now?: Date;
  /** Rows the caller already read in this request (saves reading them again). */
  known?: { customer?: CustomerRow; card?: PaymentMethodRow };
}

/**
 * Collects the payment (charging the card when it is one), records it in the
 * ledger and allocates it; returns the payment's id. For callers that do not
 * answer with the payment (the card-capture host answers with the card).
 */
export async function recordPayment(ctx: AppContext, caller: Caller, input: CollectPaymentInput, options: RecordPaymentOptions = {}): Promise<number> {
  const now = options.now ?? new Date();
  if (input.paymentAllocations?.length && input.autoAllocate) {
    throw ApiError.badRequest('give either autoAllocate or paymentAllocations, not both', 'autoAllocate');
  }
  const knownCustomer = options.known?.customer;
  const customer = knownCustomer?.id === input.customerId ? knownCustomer : await findCustomerRow(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw ApiError.notFound('customer', input.customerId);
  const amount = money(input.amount);
  if (amount.decimalPlaces() > minorUnits(customer.currency)) {
    throw ApiError.badRequest(`${customer.currency} has ${minorUnits(customer.currency)} decimals`, 'amount');
  }
  const card = await resolveCard(ctx, caller, customer, input, options.known?.card);
  if (input.paymentAllocations?.length) await checkExplicitAllocations(ctx.db, customer.id, amount, input.paymentAllocations);
  const effectiveAt = input.effectiveTimestamp ? new Date(input.effectiveTimestamp) : now;
  const base = {
    accountId: caller.accountId,
    customerId: customer.id,
    paymentMethodType: input.paymentMethod,
    paymentMethodId: card?.id ?? null,
    source: input.source,
    reference: input.reference ?? null,
    amount: amount.toString(),
    currency: customer.currency,
    effectiveAt,
  };

  let transactionId: string | null = null;
  if (card) {
    const outcome = await callGateway(ctx, (signal) =>
      ctx.payments.gateway.charge({ token: card.gatewayToken, amount, currency: customer.currency, idempotencyKey: randomUUID() }, signal),
    );
    if (!outcome.ok) {
      const failedId = await ctx.db.transaction().execute(async (trx) => {
        const id = await insertPayment(trx, { ...base, ledgerEntryId: null, status: 'Failed', gatewayTransactionId: null, declineCode: outcome.code, declineMessage: outcome.message });
        await recordChange(trx, caller, { entityType: 'Payment', entityId: id, action: 'create', changes: { status: 'Failed', amount: base.amount, declineCode: outcome.code } });
        return id;
      });
      throw new ApiError(402, [
        { Key: 'Api Error', Value: `payment declined: ${outcome.message}` },
        { Key: 'declineCode', Value: outcome.code },
        { Key: 'paymentActivityId', Value: String(failedId) },
      ]);
    }
    transactionId = outcome.value.transactionId;
  }

  const paymentId = await ctx.db.transaction().execute(async (trx) => {
    await lockCustomer(trx, caller.accountId, customer.id);
    const entryId = await addLedgerEntry(trx, { accountId: caller.accountId, customerId: customer.id, entryType: 'payment', amount, effectiveAt, description: input.reference ?? null });
    const id = await insertPayment(trx, { ...base, ledgerEntryId: entryId, status: 'Succeeded', gatewayTransactionId: transactionId, declineCode: null, declineMessage: null });
    if (input.paymentAllocations?.length) {
      // Checked again under the lock; if an invoice changed meanwhile the money stays unallocated rather than lost.
      const parts = await checkExplicitAllocations(trx, customer.id, amount, input.paymentAllocations).catch(() => []);
      await allocateExplicitly(trx, caller.accountId, entryId, parts);
    } else if (input.autoAllocate !== false) {
      await allocateAvailableFunds(trx, caller.accountId, customer.id, input.autoAllocateOrder ?? 'OldestToNewest', entryId);
    }
    await recordChange(trx, caller, { entityType: 'Payment', entityId: id, action: 'create', changes: { status: 'Succeeded', amount: base.amount, method: input.paymentMethod } });
    return id;
  });
  return paymentId;
}
