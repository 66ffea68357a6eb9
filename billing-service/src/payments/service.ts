import { Refusal } from '../refusals/refusal.js';
import { randomUUID } from 'node:crypto';
import { auditEntry, recordChange, recordChanges } from '../audit/audit-log.js';
import { findCustomerRow, findCustomerRowOnce, lockCustomer, lockCustomers } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import { isDatabaseUnavailable } from '../db/connection-errors.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { ErrorBody } from '../http/errors.js';
import { IDEMPOTENCY_KEY_TTL_MS } from '../http/idempotency.js';
import { wallClockNow } from '../clock/account-clock.js';
import type { UriBuilder } from '../uri-builder.js';
import {
  allocateAvailableFunds,
  allocateExplicitly,
  allocateNewEntry,
  invoicesInPayingOrder,
  lockOpenEntriesOfCustomers,
  planAllocations,
  recordAllocations,
  type Allocation,
} from '../ledger/allocation.js';
import type { ResourceWebhooks } from '../outbox/webhook-events.js';
import { addLedgerEntries, addLedgerEntry } from '../ledger/entries.js';
import { minorUnits, money, sumMoney, toJsonAmount, type Money } from '../money/money.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import { findDefaultPaymentMethod, findPaymentMethod, type PaymentMethodRow } from '../payment-methods/repository.js';
import { insertValidatedCard, lockCustomerForNewCard, newCardAuditChanges, type CardReadyToStore } from '../payment-methods/service.js';
import { callGateway } from '../gateway/call-gateway.js';
import { gatewayIdempotencyKey } from '../gateway/payment-gateway.js';
import {
  findAllocations,
  findOpenInvoiceEntries,
  findRefundsOfPayments,
  findPayment,
  findPaymentByIdempotencyKey,
  isChargeRecorded,
  isDuplicateKeyedPayment,
  insertCardWithPayment,
  insertPayment,
  insertPaymentNeedingAttention,
  insertPayments,
  releaseAllocations,
  reserveAllocations,
  selectPayments,
  type NewPayment,
  type PaymentRow,
  type ReservationsCounted,
} from './repository.js';
import type { CollectPaymentInput, PaymentResponse } from './schemas.js';

export async function toPaymentResponses(db: Queryable, uris: UriBuilder, payments: PaymentRow[]): Promise<PaymentResponse[]> {
  const [allocations, refunds] = await Promise.all([
    findAllocations(
      db,
      payments.flatMap((p) => (p.ledgerEntryId ? [p.ledgerEntryId] : [])),
    ),
    findRefundsOfPayments(
      db,
      payments.map((p) => p.id),
    ),
  ]);
  return payments.map((p) => {
    const unallocated = p.status === 'Succeeded' ? (p.unallocated ?? '0') : '0';
    const own = refunds.filter((r) => r.paymentId === p.id);
    const refunded = sumMoney(own.filter((r) => r.status === 'Succeeded').map((r) => money(r.amount)));
    const held = sumMoney(own.filter((r) => r.status !== 'Failed').map((r) => money(r.amount)));
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
      refunds: own.map((r) => ({
        amount: toJsonAmount(r.amount),
        status: r.status,
        effectiveTimestamp: r.effectiveAt.toISOString(),
        id: r.id,
        uri: uris.resource('refunds', r.id),
      })),
      unallocatedAmount: toJsonAmount(unallocated),
      refundedAmount: toJsonAmount(refunded),
      refundableAmount: toJsonAmount(p.status === 'Succeeded' ? money(p.amount).minus(held) : money(0)),
      id: p.id,
      uri: uris.resource('payments', p.id),
    };
  });
}

/**
 * The customer a first payment is for, read before anything is charged: 404 for
 * an unknown customer, 400 on `field` when the amount has more decimals than the
 * customer's currency. Read once per transaction or read scope (findCustomerRowOnce): a capture's
 * steps share one read of the row.
 */
export async function customerForCollection(
  ctx: AppContext,
  caller: Caller,
  customerId: number,
  amount: string,
  field: string,
): Promise<CustomerRow> {
  const customer = await findCustomerRowOnce(ctx.db, caller.accountId, customerId);
  if (!customer) throw Refusal.notFound('customer', customerId);
  amountInCurrency(amount, customer.currency, field);
  return customer;
}

export async function getPayment(ctx: AppContext, caller: Caller, id: number): Promise<PaymentResponse> {
  const row = await findPayment(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('payment', id);
  const [response] = await toPaymentResponses(ctx.db, ctx.uris, [row]);
  return response!;
}

async function resolveCard(
  ctx: AppContext,
  caller: Caller,
  customer: CustomerRow,
  input: CollectPaymentInput,
): Promise<PaymentMethodRow | null> {
  if (input.paymentMethod !== 'CreditCard') return null;
  if (input.paymentMethodId != null) {
    const method = await findPaymentMethod(ctx.db, caller.accountId, input.paymentMethodId);
    if (!method || method.customerId !== customer.id)
      throw Refusal.invalid(`customer ${customer.id} has no payment method ${input.paymentMethodId}`, 'paymentMethodId');
    return method;
  }
  if (!input.useDefaultPaymentMethod)
    throw Refusal.invalid('required for CreditCard unless useDefaultPaymentMethod is true', 'paymentMethodId');
  const method = await findDefaultPaymentMethod(ctx.db, customer.id);
  if (!method) throw Refusal.invalid('the customer has no payment method on file', 'useDefaultPaymentMethod');
  return method;
}

/**
 * Explicit allocations must name the customer's posted invoices, be amounts of its currency, and fit
 * what is open (their sum per invoice: one invoice may be named twice) less what card payments in
 * progress hold of it (their allocation reservations, `counted`), and what is paid.
 */
async function checkExplicitAllocations(
  db: Queryable,
  counted: ReservationsCounted,
  customer: { id: number; currency: string },
  amount: Money,
  allocations: NonNullable<CollectPaymentInput['paymentAllocations']>,
) {
  const entries = await findOpenInvoiceEntries(
    db,
    customer.id,
    allocations.map((a) => a.invoiceId),
    counted,
  );
  const allocatedTo = new Map<number, Money>();
  const parts = allocations.map((a, i) => {
    const entry = entries.find((e) => e.invoiceId === a.invoiceId);
    if (!entry) throw Refusal.invalid(`no posted invoice ${a.invoiceId} for this customer`, `paymentAllocations[${i}].invoiceId`);
    const part = amountInCurrency(a.amount, customer.currency, `paymentAllocations[${i}].amount`);
    const sum = (allocatedTo.get(a.invoiceId) ?? money(0)).plus(part);
    const reserved = money(entry.reserved);
    if (sum.greaterThan(money(entry.openAmount).minus(reserved))) {
      const what = sum.equals(part) ? 'more than' : `with the earlier allocations to invoice ${a.invoiceId}, more than`;
      const held = reserved.isZero() ? '' : ` less ${reserved.toString()} held for payments in progress`;
      throw Refusal.invalid(`${what} the invoice's outstanding ${entry.openAmount}${held}`, `paymentAllocations[${i}].amount`);
    }
    allocatedTo.set(a.invoiceId, sum);
    return { invoiceEntryId: entry.id, invoiceId: a.invoiceId, amount: part };
  });
  if (sumMoney(parts.map((p) => p.amount)).greaterThan(amount))
    throw Refusal.invalid('allocations add up to more than the payment', 'paymentAllocations');
  return parts;
}

/**
 * What a collection is checked for before any charge: the customer, the amount in
 * its currency, the card (given or default), the allocations. Throws the 400/404.
 * Bulk jobs run it on every item when they are submitted. `chargeKey`: the gateway key the payment
 * will be charged under (an earlier run's reservation under it does not count against it).
 */
export async function checkPaymentRequest(ctx: AppContext, caller: Caller, input: CollectPaymentInput, chargeKey: string | null = null) {
  if (input.paymentAllocations?.length && input.autoAllocate) {
    throw Refusal.invalid('give either autoAllocate or paymentAllocations, not both', 'autoAllocate');
  }
  const customer = await findCustomerRow(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw Refusal.notFound('customer', input.customerId);
  const amount = amountInCurrency(input.amount, customer.currency, 'amount');
  const card = await resolveCard(ctx, caller, customer, input);
  if (input.paymentAllocations?.length)
    await checkExplicitAllocations(ctx.db, { instance: ctx.instance, ownChargeKey: chargeKey }, customer, amount, input.paymentAllocations);
  return { customer, amount, card };
}

/**
 * How long past the gateway's deadline an allocation reservation holds: recording a charge's answer
 * takes milliseconds; a holder that could not let go (its database away) frees the invoice then.
 */
const RESERVATION_MARGIN_MS = 60_000;

/**
 * Checks a card payment's explicit allocations under the customer's lock and reserves them for the
 * charge `chargeKey`, committed before the gateway is called: concurrent payments naming the same
 * invoices, on any instance, queue on the lock and see this reservation, so the ones that no longer
 * fit are refused (400) before their card is charged.
 */
async function reserveExplicitAllocations(
  ctx: AppContext,
  caller: Caller,
  customer: CustomerRow,
  amount: Money,
  allocations: NonNullable<CollectPaymentInput['paymentAllocations']>,
  chargeKey: string,
) {
  const counted = { instance: ctx.instance, ownChargeKey: chargeKey };
  await transactionWithRetry(ctx.db, async (trx) => {
    await lockCustomer(trx, caller.accountId, customer.id);
    const parts = await checkExplicitAllocations(trx, counted, customer, amount, allocations);
    await reserveAllocations(trx, counted, {
      accountId: caller.accountId,
      customerId: customer.id,
      heldForMs: ctx.payments.gatewayTimeoutMs + RESERVATION_MARGIN_MS,
      parts: parts.map((p) => ({ invoiceEntryId: p.invoiceEntryId, amount: p.amount.toString() })),
    });
  });
}

export interface CollectOptions {
  /**
   * The gateway charge's idempotency key (the client's Idempotency-Key, a bulk record's, the billing
   * clock's), namespaced by account before it reaches the gateway: collections retried with one key
   * charge once, on any instance. Default: a fresh key (a request without a key is not a retry of another).
   */
  idempotencyKey?: string;
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
    { Key: 'declineCode', Value: outcome.declineCode },
    { Key: 'paymentActivityId', Value: String(outcome.payment.id) },
  ]);
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
  const effectiveAt = input.effectiveTimestamp ? new Date(input.effectiveTimestamp) : now;
  const base: PaymentBase = {
    accountId: caller.accountId,
    customerId: customer.id,
    paymentMethodType: input.paymentMethod,
    paymentMethodId: card?.id ?? null,
    source: input.source,
    reference: input.reference ?? null,
    amount: amount.toString(),
    currency: customer.currency,
    effectiveAt,
    idempotencyKey: options.idempotencyKey ?? null,
  };

  // A card payment naming invoices reserves them before its card is charged, and lets go once the outcome is recorded.
  const reserves = card !== null && Boolean(input.paymentAllocations?.length);
  if (reserves) await reserveExplicitAllocations(ctx, caller, customer, amount, input.paymentAllocations!, chargeKey);
  try {
    let transactionId: string | null = null;
    if (card) {
      const outcome = await chargeToken(ctx, card.gatewayToken, amount, customer.currency, chargeKey);
      if (!outcome.ok) {
        const failedId = await onceUnderKey(ctx, caller, options.idempotencyKey, () =>
          ctx.db.transaction().execute(async (trx) => {
            if (reserves) await releaseAllocations(trx, chargeKey);
            const id = await insertFailedPayment(trx, caller, base, outcome, { webhooks: ctx.webhooks, now });
            await options.alsoInTransaction?.(trx, { id, status: 'Failed', declineCode: outcome.code, message: outcome.message });
            await ctx.notifier?.enqueue(trx, customer, {
              type: 'PaymentFailed',
              amount: amount.toFixed(minorUnits(customer.currency)),
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
      transactionId = outcome.value.transactionId;
    }

    const paymentId = await onceUnderKey(ctx, caller, options.idempotencyKey, () =>
      ctx.db.transaction().execute(async (trx) => {
        await lockCustomer(trx, caller.accountId, customer.id);
        if (reserves) await releaseAllocations(trx, chargeKey);
        const allocating = { counted: { instance: ctx.instance, ownChargeKey: chargeKey }, moneyMoved: card !== null };
        const id = await insertSucceededPayment(trx, caller, base, transactionId, input, allocating, { webhooks: ctx.webhooks, now });
        await options.alsoInTransaction?.(trx, { id, status: 'Succeeded' });
        await ctx.notifier?.enqueue(trx, customer, {
          type: 'PaymentReceived',
          amount: amount.toFixed(minorUnits(customer.currency)),
          currency: customer.currency,
          reference: input.reference ?? null,
        });
        return id;
      }),
    );
    if (typeof paymentId !== 'number') return paymentId;
    ctx.metrics?.paymentRecorded('Succeeded');
    return { status: 'Succeeded', payment: { id: paymentId } };
  } finally {
    // Released with the outcome when it was recorded (then this finds nothing); otherwise (the gateway
    // failed, recording failed) here. If even this fails, the reservation lapses at its held_until.
    if (reserves) await releaseAllocations(ctx.db, chargeKey).catch(() => undefined);
  }
}

/** The outcome of the payment already made under `key` in the key's present life, if one was. */
async function earlierOutcome(ctx: AppContext, caller: Caller, key: string): Promise<PaymentOutcome | undefined> {
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
async function onceUnderKey(
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

/**
 * A payment recordPaymentBatch can take: no gateway call (every method but a card) and no explicit
 * allocations (those are re-checked against the invoices one payment at a time).
 */
export function paysInBatch(input: CollectPaymentInput): boolean {
  return input.paymentMethod !== 'CreditCard' && !input.paymentAllocations?.length;
}

export type BatchPaymentOutcome = { status: 'Succeeded'; paymentId: number } | { status: 'Refused'; errors: ErrorBody['Errors'] };

/**
 * recordPayment for a batch of payments that need no gateway (paysInBatch), in the caller's
 * transaction, in a few multi-row statements: the batch's customers locked in id order, then their
 * ledger entries, payments, allocations, audit entries, webhook events and e-mails each written at
 * once. Each payment comes out as recordPayment would make it, in the order given: a customer's
 * payments pay its open invoices one after the other, in the order one payment at a time would
 * (exact, decimal.js). A payment recordPayment would refuse (unknown customer, too many decimals)
 * is refused alone, with the same errors. Returns one outcome per input, in order.
 */
export async function recordPaymentBatch(
  ctx: AppContext,
  trx: Queryable,
  caller: Caller,
  inputs: CollectPaymentInput[],
  now: Date,
): Promise<BatchPaymentOutcome[]> {
  const customers = new Map(
    (
      await lockCustomers(
        trx,
        caller.accountId,
        inputs.map((i) => i.customerId),
      )
    ).map((c) => [c.id, c]),
  );
  const outcomes: BatchPaymentOutcome[] = [];
  const accepted: Array<{ index: number; input: CollectPaymentInput; customer: CustomerRow; amount: Money; base: PaymentBase }> = [];
  for (const [index, input] of inputs.entries()) {
    try {
      if (!paysInBatch(input)) throw new Error('recordPaymentBatch: this payment is not for a batch (paysInBatch)');
      const customer = customers.get(input.customerId);
      if (!customer) throw Refusal.notFound('customer', input.customerId);
      const amount = amountInCurrency(input.amount, customer.currency, 'amount');
      const effectiveAt = input.effectiveTimestamp ? new Date(input.effectiveTimestamp) : now;
      const base: PaymentBase = {
        accountId: caller.accountId,
        customerId: customer.id,
        paymentMethodType: input.paymentMethod,
        paymentMethodId: null,
        source: input.source,
        reference: input.reference ?? null,
        amount: amount.toString(),
        currency: customer.currency,
        effectiveAt,
      };
      accepted.push({ index, input, customer, amount, base });
      outcomes.push({ status: 'Succeeded', paymentId: 0 });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      outcomes.push({ status: 'Refused', errors: error.errors });
    }
  }
  if (accepted.length === 0) return outcomes;

  // Each customer's open invoices, shared by its payments in order: a payment lowers what the next one finds open.
  const openInvoices = new Map<number, Array<{ id: number; open: Money; invoiceId: number | null; dueAt: Date | null }>>();
  for (const e of await lockOpenEntriesOfCustomers(trx, caller.accountId, [...new Set(accepted.map((a) => a.customer.id))])) {
    if (e.entryType !== 'invoice') continue;
    const list = openInvoices.get(e.customerId) ?? [];
    list.push({ id: e.id, open: money(e.openAmount), invoiceId: e.invoiceId, dueAt: e.dueAt });
    openInvoices.set(e.customerId, list);
  }
  const entryIds = await addLedgerEntries(
    trx,
    accepted.map((a) => ({
      accountId: caller.accountId,
      customerId: a.customer.id,
      entryType: 'payment' as const,
      amount: a.amount,
      effectiveAt: a.base.effectiveAt as Date,
      description: a.input.reference ?? null,
    })),
  );
  const paymentIds = await insertPayments(
    trx,
    accepted.map((a, i) => ({
      ...a.base,
      ledgerEntryId: entryIds[i]!,
      status: 'Succeeded' as const,
      gatewayTransactionId: null,
      declineCode: null,
      declineMessage: null,
    })),
  );
  const allocations: Allocation[] = [];
  const paid = accepted.map((a, i) => {
    const own: Allocation[] = [];
    if (a.input.autoAllocate !== false) {
      const open = invoicesInPayingOrder(
        (openInvoices.get(a.customer.id) ?? []).filter((inv) => inv.open.greaterThan(0)),
        a.input.autoAllocateOrder ?? 'OldestToNewest',
      );
      own.push(...planAllocations([{ id: entryIds[i]!, open: a.amount }], open));
    }
    allocations.push(...own);
    // What each invoice it paid still owed right after it (the payment's event shows that), and which it finished paying.
    const invoiceOf = new Map((openInvoices.get(a.customer.id) ?? []).map((inv) => [inv.id, inv]));
    const owedAfter = new Map(own.map((al) => [al.invoiceId, invoiceOf.get(al.invoiceEntryId)!.open]));
    const paidInvoiceIds = [
      ...new Set(own.filter((al) => invoiceOf.get(al.invoiceEntryId)!.open.isZero()).map((al) => al.invoiceId!)),
    ].sort((x, y) => x - y);
    return { owedAfter, paidInvoiceIds };
  });
  await recordAllocations(trx, caller.accountId, allocations, now);
  await recordChanges(
    trx,
    accepted.map((a, i) => ({
      caller,
      entry: {
        entityType: 'Payment',
        entityId: paymentIds[i]!,
        action: 'create' as const,
        changes: { status: 'Succeeded', amount: String(a.base.amount), method: a.input.paymentMethod },
      },
    })),
  );
  if (ctx.webhooks) {
    // Read once, after the batch's writes, if some endpoint is subscribed; an invoice's balance is put back to what this payment left.
    let responses: Promise<PaymentResponse[]> | undefined;
    const response = async (i: number) => {
      responses ??= selectPayments(trx, caller.accountId)
        .where('payments.id', 'in', paymentIds)
        .orderBy('payments.id')
        .execute()
        .then((rows) => toPaymentResponses(trx, ctx.uris, rows));
      const found = (await responses).find((r) => r.id === paymentIds[i])!;
      return {
        ...found,
        invoiceAllocations: found.invoiceAllocations.map((al) => ({
          ...al,
          outstandingBalance: toJsonAmount(paid[i]!.owedAfter.get(al.invoiceId)),
        })),
      };
    };
    await ctx.webhooks.paymentsSucceeded(
      trx,
      caller.accountId,
      accepted.map((a, i) => ({ customerId: a.customer.id, data: () => response(i), paidInvoiceIds: paid[i]!.paidInvoiceIds })),
      now,
    );
  }
  await ctx.notifier?.enqueueMany(
    trx,
    accepted.map((a) => ({
      customer: a.customer,
      event: {
        type: 'PaymentReceived' as const,
        amount: a.amount.toFixed(minorUnits(a.customer.currency)),
        currency: a.customer.currency,
        reference: a.input.reference ?? null,
      },
    })),
  );
  for (const [i, a] of accepted.entries()) outcomes[a.index] = { status: 'Succeeded', paymentId: paymentIds[i]! };
  return outcomes;
}

type PaymentBase = Omit<NewPayment, 'ledgerEntryId' | 'status' | 'gatewayTransactionId' | 'declineCode' | 'declineMessage'>;
type Declined = { ok: false; code: string; message: string };

function chargeToken(ctx: AppContext, token: string, amount: Money, currency: string, idempotencyKey: string) {
  return callGateway(ctx, (signal) => ctx.payments.gateway.charge({ token, amount, currency, idempotencyKey }, signal));
}

/** Where a payment's webhook events go, and when they happened (the account's time; a payment's effective time may be earlier). */
interface PaymentEvents {
  webhooks: ResourceWebhooks | undefined;
  now: Date;
}

async function insertFailedPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  outcome: Declined,
  events: PaymentEvents,
): Promise<number> {
  const id = await insertPayment(trx, {
    ...base,
    ledgerEntryId: null,
    status: 'Failed',
    gatewayTransactionId: null,
    declineCode: outcome.code,
    declineMessage: outcome.message,
  });
  await recordChange(trx, caller, {
    entityType: 'Payment',
    entityId: id,
    action: 'create',
    changes: { status: 'Failed', amount: String(base.amount), declineCode: outcome.code },
  });
  await events.webhooks?.payment(trx, caller.accountId, base.customerId, id, 'payment.failed', events.now);
  return id;
}

/**
 * How a new payment's explicit allocations are checked under the lock: against what is open less the
 * live reservations of other charges (`counted`); when they no longer fit, a payment whose money has
 * moved (a card charged) is kept unallocated, any other is refused (the 400 rolls it back).
 */
interface AllocationCheck {
  counted: ReservationsCounted;
  moneyMoved: boolean;
}

/** The payment's ledger entry, the payment, its allocation and the audit entry; the caller holds the customer's lock. */
async function insertSucceededPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  transactionId: string | null,
  allocation: Pick<CollectPaymentInput, 'paymentAllocations' | 'autoAllocate' | 'autoAllocateOrder' | 'reference' | 'paymentMethod'>,
  check: AllocationCheck,
  events: PaymentEvents,
): Promise<number> {
  const amount = money(String(base.amount));
  const entryId = await addLedgerEntry(trx, {
    accountId: caller.accountId,
    customerId: base.customerId,
    entryType: 'payment',
    amount,
    effectiveAt: base.effectiveAt as Date,
    description: allocation.reference ?? null,
  });
  const id = await insertPayment(trx, {
    ...base,
    ledgerEntryId: entryId,
    status: 'Succeeded',
    gatewayTransactionId: transactionId,
    declineCode: null,
    declineMessage: null,
  });
  const allocations = await allocateNewPayment(trx, caller, base, entryId, allocation, check, events.now);
  await recordChange(trx, caller, {
    entityType: 'Payment',
    entityId: id,
    action: 'create',
    changes: succeededPaymentAuditChanges(base, allocation.paymentMethod),
  });
  await announceSucceededPayment(trx, caller, base, id, allocations, events);
  return id;
}

/** A succeeded payment's ledger entry allocated as asked: explicitly, or to open invoices (the default), or not at all. */
async function allocateNewPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  entryId: number,
  allocation: Pick<CollectPaymentInput, 'paymentAllocations' | 'autoAllocate' | 'autoAllocateOrder'>,
  check: AllocationCheck,
  now: Date,
): Promise<Allocation[]> {
  if (allocation.paymentAllocations?.length) {
    // Checked again under the lock. A charged card's reservation held its amounts, but other movements
    // (automatic allocation, credits) may have taken them meanwhile: its money then stays unallocated rather than lost.
    const parts = await checkExplicitAllocations(
      trx,
      check.counted,
      { id: base.customerId, currency: base.currency },
      money(String(base.amount)),
      allocation.paymentAllocations,
    ).catch((error: unknown) => {
      if (error instanceof Refusal && check.moneyMoved) return [];
      throw error;
    });
    return allocateExplicitly(trx, caller.accountId, entryId, parts, now);
  }
  if (allocation.autoAllocate === false) return [];
  return allocateAvailableFunds(trx, caller.accountId, base.customerId, now, allocation.autoAllocateOrder ?? 'OldestToNewest', entryId);
}

const succeededPaymentAuditChanges = (base: PaymentBase, method: string) => ({ status: 'Succeeded', amount: String(base.amount), method });

/** payment.succeeded, and invoice.paid for the invoices its allocations paid off. */
async function announceSucceededPayment(
  trx: Queryable,
  caller: Caller,
  base: PaymentBase,
  id: number,
  allocations: Allocation[],
  events: PaymentEvents,
) {
  await events.webhooks?.payment(trx, caller.accountId, base.customerId, id, 'payment.succeeded', events.now);
  await events.webhooks?.paidInvoices(
    trx,
    caller.accountId,
    base.customerId,
    allocations.map((a) => a.invoiceId),
    events.now,
  );
}

/**
 * The card-capture host's card and first payment, stored together under the customer's lock: the
 * card, the ledger entry, the payment and both audit entries in one statement, then the payment
 * allocated to open invoices and the webhook events (the card's first, as insertValidatedCard emits it).
 */
async function storeCardWithSucceededPayment(
  trx: Queryable,
  caller: Caller,
  card: CardReadyToStore,
  base: PaymentBase,
  transactionId: string,
  events: PaymentEvents,
) {
  const isDefault = await lockCustomerForNewCard(trx, caller, card, false);
  const audit = (entityType: string, changes: Record<string, unknown>) => auditEntry(caller, { entityType, action: 'create', changes });
  const cardAudit = audit('PaymentMethod', newCardAuditChanges(card, isDefault, false));
  const stored = await insertCardWithPayment(
    trx,
    { ...card.values, isDefault, modifiedAt: events.now },
    { source: base.source, amount: String(base.amount), currency: base.currency, gatewayTransactionId: transactionId },
    {
      actor: cardAudit.actor,
      source: cardAudit.source,
      cardChanges: cardAudit.changes,
      paymentChanges: audit('Payment', succeededPaymentAuditChanges(base, 'CreditCard')).changes,
    },
  );
  await events.webhooks?.paymentMethod(trx, stored.card, 'paymentMethod.created', events.now);
  const allocations = await allocateNewEntry(
    trx,
    caller.accountId,
    { id: stored.ledgerEntryId, open: money(String(base.amount)) },
    stored.openInvoices,
    events.now,
  );
  await announceSucceededPayment(trx, caller, base, stored.paymentId, allocations, events);
  return stored;
}

/**
 * Charges a card that is validated but not stored yet (the card-capture host's
 * collection), then stores the card and the payment in one transaction: the
 * card is kept only with its payment. A declined charge stores the card already
 * removed, for the record, with the failed payment, and returns the decline.
 * If storing fails after a successful charge, the charge is refunded.
 */
export async function collectWithNewCard(
  ctx: AppContext,
  caller: Caller,
  card: CardReadyToStore,
  payment: { amount: string; source: CollectPaymentInput['source'] },
  now?: Date,
  options: {
    alsoInTransaction?: (trx: Queryable) => Promise<void>;
    /** The charge's idempotency key before its account namespace (the capture token's claim); default: a fresh one. */
    idempotencyKey?: string;
    /** Where a failed compensation is logged (at error level). */
    log?: ErrorLog;
    /**
     * Told when the charge went through but its record failed: 'paid back'; 'kept' (the refund failed: it
     * needs an operator); 'recorded' (the commit went through, its answer was lost). After a database
     * failure 'settling' comes at once, and the outcome later, once the database answers (the request
     * has been answered 503 meanwhile).
     */
    onUnrecordedCharge?: (outcome: 'settling' | 'paid back' | 'kept' | 'recorded') => void;
  } = {},
): Promise<
  (Extract<PaymentOutcome, { status: 'Succeeded' }> & { card: PaymentMethodRow }) | Extract<PaymentOutcome, { status: 'Declined' }>
> {
  now ??= await ctx.clock.now(caller.accountId);
  const { customer } = card;
  const amount = amountInCurrency(payment.amount, customer.currency, 'amount');
  const base: PaymentBase = {
    accountId: caller.accountId,
    customerId: customer.id,
    paymentMethodType: 'CreditCard',
    paymentMethodId: null,
    source: payment.source,
    reference: null,
    amount: amount.toString(),
    currency: customer.currency,
    effectiveAt: now,
  };
  const outcome = await chargeToken(
    ctx,
    String(card.values.gatewayToken),
    amount,
    customer.currency,
    gatewayIdempotencyKey(caller.accountId, options.idempotencyKey ?? randomUUID()),
  );
  if (!outcome.ok) {
    const failedId = await ctx.db.transaction().execute(async (trx) => {
      const removed = await insertValidatedCard(trx, caller, card, { removed: true, now });
      return insertFailedPayment(trx, caller, { ...base, paymentMethodId: removed.id }, outcome, { webhooks: ctx.webhooks, now });
    });
    ctx.metrics?.paymentRecorded('Failed');
    return { status: 'Declined', payment: { id: failedId }, declineCode: outcome.code, message: outcome.message };
  }
  let stored: { card: PaymentMethodRow; paymentId: number };
  try {
    stored = await ctx.db.transaction().execute(async (trx) => {
      await options.alsoInTransaction?.(trx);
      const { card: inserted, paymentId } = await storeCardWithSucceededPayment(trx, caller, card, base, outcome.value.transactionId, {
        webhooks: ctx.webhooks,
        now,
      });
      await ctx.notifier?.enqueue(trx, customer, {
        type: 'PaymentReceived',
        amount: amount.toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
        reference: null,
      });
      return { card: inserted, paymentId };
    });
  } catch (error) {
    const charge = { customerId: customer.id, transactionId: outcome.value.transactionId, amount, currency: customer.currency, now };
    if (isDatabaseUnavailable(error)) {
      // The commit may have gone through with its answer lost: pay back only once the database says it did not.
      options.onUnrecordedCharge?.('settling');
      void settleAfterOutage(ctx, caller, charge, options);
    } else {
      const paidBack = await compensateUnrecordedCharge(ctx, caller, charge, options.log);
      options.onUnrecordedCharge?.(paidBack ? 'paid back' : 'kept');
    }
    throw error;
  }
  ctx.metrics?.paymentRecorded('Succeeded');
  return { status: 'Succeeded', payment: { id: stored.paymentId }, card: stored.card };
}

/** How long a charge whose record met a database failure waits for the database before it is paid back unseen. */
const OUTAGE_WAIT_MS = 60_000;

/**
 * A charge whose record met a database failure: the failure may have hidden a commit (the connection
 * dropped at COMMIT). Once the database answers, a recorded charge is left alone; otherwise it is paid
 * back. A database away longer than OUTAGE_WAIT_MS: paid back unseen (the usual case by far is a
 * rolled-back transaction), with a warning to reconcile.
 */
async function settleAfterOutage(
  ctx: AppContext,
  caller: Caller,
  charge: Parameters<typeof compensateUnrecordedCharge>[2],
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
async function compensateUnrecordedCharge(
  ctx: AppContext,
  caller: Caller,
  charge: { customerId: number; transactionId: string; amount: Money; currency: string; now: Date },
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
    if (refund.ok) return true;
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
