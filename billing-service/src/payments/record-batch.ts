import { Refusal } from '../refusals/refusal.js';
import { recordChanges } from '../audit/audit-log.js';
import { lockCustomers } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { ErrorBody } from '../http/errors.js';
import {
  invoicesInPayingOrder,
  lockOpenEntriesOfCustomers,
  planAllocations,
  recordAllocations,
  type Allocation,
} from '../ledger/allocation.js';
import { addLedgerEntries } from '../ledger/entries.js';
import { minorUnits, money, toJsonAmount, type Money } from '../money/money.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import { insertPayments, selectPayments } from './repository.js';
import type { CollectPaymentInput, PaymentResponse } from './schemas.js';
import { toPaymentResponses } from './payment-responses.js';
import type { PaymentBase } from './record-steps.js';

/**
 * A payment recordPaymentBatch can take: no gateway call (every method but a card) and no explicit
 * allocations (those are re-checked against the invoices one payment at a time).
 */
export function paysInBatch(input: CollectPaymentInput): boolean {
  return input.paymentMethod !== 'CreditCard' && !input.paymentAllocations?.length;
}

export type BatchPaymentOutcome = { status: 'Succeeded'; paymentId: number } | { status: 'Refused'; errors: ErrorBody['Errors'] };

/** A batch payment that passed its checks, with where its outcome goes (`index`) and what it records. */
interface AcceptedPayment {
  index: number;
  input: CollectPaymentInput;
  customer: CustomerRow;
  amount: Money;
  base: PaymentBase;
}

/** A recorded batch payment: its ledger entry and payment ids. */
interface RecordedPayment extends AcceptedPayment {
  entryId: number;
  paymentId: number;
}

/** What a batch payment's allocations left: what each invoice it paid still owed right after it (its event shows that), and which it finished paying. */
interface PaidByPayment {
  owedAfter: Map<number | null, Money>;
  paidInvoiceIds: number[];
}

type OpenInvoice = { id: number; open: Money; invoiceId: number | null; dueAt: Date | null };

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
  const customers = await lockCustomers(
    trx,
    caller.accountId,
    inputs.map((i) => i.customerId),
  );
  const { outcomes, accepted } = checkBatch(caller, inputs, new Map(customers.map((c) => [c.id, c])), now);
  if (accepted.length === 0) return outcomes;
  const openInvoices = await openInvoicesOfCustomers(trx, caller, accepted);
  const recorded = await insertBatchPayments(trx, caller, accepted);
  const paid = await allocateBatch(trx, caller, recorded, openInvoices, now);
  await recordChanges(
    trx,
    recorded.map((r) => ({
      caller,
      entry: {
        entityType: 'Payment',
        entityId: r.paymentId,
        action: 'create' as const,
        changes: { status: 'Succeeded', amount: String(r.base.amount), method: r.input.paymentMethod },
      },
    })),
  );
  await announceBatch(ctx, trx, caller, recorded, paid, now);
  await emailBatch(ctx, trx, recorded);
  for (const r of recorded) outcomes[r.index] = { status: 'Succeeded', paymentId: r.paymentId };
  return outcomes;
}

/** Each input checked as recordPayment would: refused alone (its errors), or accepted (a placeholder outcome until recorded). */
function checkBatch(caller: Caller, inputs: CollectPaymentInput[], customers: Map<number, CustomerRow>, now: Date) {
  const outcomes: BatchPaymentOutcome[] = [];
  const accepted: AcceptedPayment[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      if (!paysInBatch(input)) throw new Error('recordPaymentBatch: this payment is not for a batch (paysInBatch)');
      const customer = customers.get(input.customerId);
      if (!customer) throw Refusal.notFound('customer', input.customerId);
      const amount = amountInCurrency(input.amount, customer.currency, 'amount');
      const base: PaymentBase = {
        accountId: caller.accountId,
        customerId: customer.id,
        paymentMethodType: input.paymentMethod,
        paymentMethodId: null,
        source: input.source,
        reference: input.reference ?? null,
        amount: amount.toString(),
        currency: customer.currency,
        effectiveAt: input.effectiveTimestamp ? new Date(input.effectiveTimestamp) : now,
      };
      accepted.push({ index, input, customer, amount, base });
      outcomes.push({ status: 'Succeeded', paymentId: 0 });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      outcomes.push({ status: 'Refused', errors: error.errors });
    }
  }
  return { outcomes, accepted };
}

/** Each customer's open invoices, locked, shared by its payments in order: a payment lowers what the next one finds open. */
async function openInvoicesOfCustomers(trx: Queryable, caller: Caller, accepted: AcceptedPayment[]) {
  const openInvoices = new Map<number, OpenInvoice[]>();
  for (const e of await lockOpenEntriesOfCustomers(trx, caller.accountId, [...new Set(accepted.map((a) => a.customer.id))])) {
    if (e.entryType !== 'invoice') continue;
    const list = openInvoices.get(e.customerId) ?? [];
    list.push({ id: e.id, open: money(e.openAmount), invoiceId: e.invoiceId, dueAt: e.dueAt });
    openInvoices.set(e.customerId, list);
  }
  return openInvoices;
}

/** The batch's ledger entries, then its payments, each in one statement. */
async function insertBatchPayments(trx: Queryable, caller: Caller, accepted: AcceptedPayment[]): Promise<RecordedPayment[]> {
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
  const withEntries = zip(accepted, entryIds, 'ledger entry').map(([a, entryId]) => ({ ...a, entryId }));
  const paymentIds = await insertPayments(
    trx,
    withEntries.map((a) => ({
      ...a.base,
      ledgerEntryId: a.entryId,
      status: 'Succeeded' as const,
      gatewayTransactionId: null,
      declineCode: null,
      declineMessage: null,
    })),
  );
  return zip(withEntries, paymentIds, 'payment').map(([a, paymentId]) => ({ ...a, paymentId }));
}

/** Each payment allocated to its customer's open invoices in turn (unless it asks not to be), then all allocations recorded at once. */
async function allocateBatch(
  trx: Queryable,
  caller: Caller,
  recorded: RecordedPayment[],
  openInvoices: Map<number, OpenInvoice[]>,
  now: Date,
): Promise<PaidByPayment[]> {
  const allocations: Allocation[] = [];
  const paid = recorded.map((r) => {
    const invoices = openInvoices.get(r.customer.id) ?? [];
    const own: Allocation[] = [];
    if (r.input.autoAllocate !== false) {
      const open = invoicesInPayingOrder(
        invoices.filter((inv) => inv.open.greaterThan(0)),
        r.input.autoAllocateOrder ?? 'OldestToNewest',
      );
      own.push(...planAllocations([{ id: r.entryId, open: r.amount }], open));
    }
    allocations.push(...own);
    return whatPaymentPaid(own, invoices);
  });
  await recordAllocations(trx, caller.accountId, allocations, now);
  return paid;
}

/** Read right after the payment's allocations were planned: planning lowers the invoices' `open` in place. */
function whatPaymentPaid(own: Allocation[], invoices: OpenInvoice[]): PaidByPayment {
  const invoiceOf = new Map(invoices.map((inv) => [inv.id, inv]));
  const openAfter = (al: Allocation) => {
    const invoice = invoiceOf.get(al.invoiceEntryId);
    if (!invoice) throw new Error('recordPaymentBatch: an allocation to an invoice the customer had not open');
    return invoice.open;
  };
  const owedAfter = new Map(own.map((al) => [al.invoiceId, openAfter(al)]));
  const paidInvoiceIds = [...new Set(own.flatMap((al) => (openAfter(al).isZero() && al.invoiceId !== null ? [al.invoiceId] : [])))].sort(
    (x, y) => x - y,
  );
  return { owedAfter, paidInvoiceIds };
}

/** payment.succeeded (and invoice.paid) for each payment; each event's data read once, after the batch's writes, only if some endpoint is subscribed. */
async function announceBatch(
  ctx: AppContext,
  trx: Queryable,
  caller: Caller,
  recorded: RecordedPayment[],
  paid: PaidByPayment[],
  now: Date,
) {
  if (!ctx.webhooks) return;
  const paymentIds = recorded.map((r) => r.paymentId);
  let responses: Promise<PaymentResponse[]> | undefined;
  // An invoice's balance is put back to what this payment left.
  const response = async (r: RecordedPayment, owedAfter: Map<number | null, Money>) => {
    responses ??= selectPayments(trx, caller.accountId)
      .where('payments.id', 'in', paymentIds)
      .orderBy('payments.id')
      .execute()
      .then((rows) => toPaymentResponses(trx, ctx.uris, rows));
    const found = (await responses).find((response) => response.id === r.paymentId);
    if (!found) throw new Error('recordPaymentBatch: a payment of the batch was not read back in its own transaction');
    return {
      ...found,
      invoiceAllocations: found.invoiceAllocations.map((al) => ({
        ...al,
        outstandingBalance: toJsonAmount(owedAfter.get(al.invoiceId)),
      })),
    };
  };
  await ctx.webhooks.paymentsSucceeded(
    trx,
    caller.accountId,
    zip(recorded, paid, 'allocation').map(([r, p]) => ({
      customerId: r.customer.id,
      data: () => response(r, p.owedAfter),
      paidInvoiceIds: p.paidInvoiceIds,
    })),
    now,
  );
}

/** The PaymentReceived e-mails of the batch, in one statement. */
async function emailBatch(ctx: AppContext, trx: Queryable, recorded: RecordedPayment[]) {
  await ctx.notifier?.enqueueMany(
    trx,
    recorded.map((r) => ({
      customer: r.customer,
      event: {
        type: 'PaymentReceived' as const,
        amount: r.amount.toFixed(minorUnits(r.customer.currency)),
        currency: r.customer.currency,
        reference: r.input.reference ?? null,
      },
    })),
  );
}

/** Pairs a batch's rows with what a multi-row statement returned for them, one for one in order. */
function zip<A, B>(rows: A[], returned: B[], what: string): Array<[A, B]> {
  return rows.map((row, i) => {
    const value = returned[i];
    if (value === undefined || returned.length !== rows.length)
      throw new Error(`recordPaymentBatch: ${returned.length} ${what} rows returned for ${rows.length} payments`);
    return [row, value];
  });
}
