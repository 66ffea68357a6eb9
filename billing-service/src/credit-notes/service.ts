import { takeCreditNoteNumber } from '../accounts/repository.js';
import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { addChargeCredits, findInvoice, findInvoiceLines, type InvoiceRow } from '../invoices/repository.js';
import { allocateAvailableFunds, recordAllocation } from '../ledger/allocation.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { reactivateIfPaidIn } from '../lifecycle/billing-clock.js';
import { money, sumMoney, type Money } from '../money/money.js';
import type { NotifiedCustomer } from '../outbox/notifications.js';
import { findOpenInvoiceEntries } from '../payments/repository.js';
import { Refusal } from '../refusals/refusal.js';
import { creditNoteTotals, planRefunds } from './amounts.js';
import { creditedLines, type PricedCredit } from './credited-lines.js';
import { findCreditNote, insertCreditNote, insertRefundPlan, lockInvoiceEntry, paymentsOfInvoice } from './repository.js';
import { toCreditNoteResponse, toCreditNoteResponses } from './responses.js';
import { refundCreditNote } from './refunds.js';
import type { CreateCreditNoteInput, CreditNoteResponse } from './schemas.js';

export async function getCreditNote(ctx: AppContext, caller: Caller, id: number): Promise<CreditNoteResponse> {
  const row = await findCreditNote(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('credit note', id);
  const [response] = await toCreditNoteResponses(ctx.db, ctx.uris, [row]);
  if (!response) throw new Error('toCreditNoteResponses answers one response per row');
  return response;
}

/** POST /v1/creditNotes/preview: what the credit note would be, nothing written (the same checks and figures). */
export async function previewCreditNote(ctx: AppContext, caller: Caller, input: CreateCreditNoteInput): Promise<CreditNoteResponse> {
  const invoice = await postedInvoice(ctx.db, caller, input.invoiceId);
  const entry = await lockInvoiceEntryOrFail(ctx.db, caller, invoice.id);
  const priced = await priceCredit(ctx.db, invoice, input);
  const totals = creditNoteTotals(
    priced.map((p) => p.credit),
    money(entry.openAmount),
  );
  const excessRefunded = input.refund ? planRefunds(totals.excess, await paidOnInvoice(ctx.db, invoice.id)) : [];
  return toCreditNoteResponse(
    { invoice, input, priced, totals, refunds: excessRefunded.map((r) => ({ amount: r.amount, refundId: null, succeeded: true })) },
    null,
    ctx.uris,
  );
}

/**
 * POST /v1/creditNotes (issue 40): one transaction under the customer's lock: the checks, the credit note and its
 * number, a `credit` ledger entry of its total allocated to the invoice up to what it owes, each credited line's
 * credit recorded on it (a later cancellation never credits it again), the audit entry and the webhook; a Suspended
 * customer left with nothing overdue is reactivated. The excess pays the customer's other open invoices (their
 * credit), or with `refund: true` is refunded on the invoice's payments after the commit (credit-notes/refunds.ts).
 */
export async function createCreditNote(ctx: AppContext, caller: Caller, input: CreateCreditNoteInput): Promise<CreditNoteResponse> {
  const now = await ctx.clock.now(caller.accountId);
  const id = await transactionWithRetry(ctx.db, async (trx) => {
    const found = await findInvoice(trx, caller.accountId, input.invoiceId);
    if (!found) throw Refusal.notFound('invoice', input.invoiceId);
    // the customer's lock first, as every change to its ledger takes it (lock order: README, Architecture)
    const customer = await lockCustomer(trx, caller.accountId, found.customerId);
    if (!customer) throw new Error(`customer ${found.customerId} of invoice ${found.id} is gone (customers are never deleted)`);
    const invoice = await postedInvoice(trx, caller, found.id);
    const entry = await lockInvoiceEntryOrFail(trx, caller, invoice.id);
    await refuseWhilePaymentInProgress(ctx, trx, invoice);
    const priced = await priceCredit(trx, invoice, input);
    const totals = creditNoteTotals(
      priced.map((p) => p.credit),
      money(entry.openAmount),
    );
    const number = await takeCreditNoteNumber(trx, caller.accountId);
    const ledgerEntryId = await addLedgerEntry(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      entryType: 'credit',
      amount: totals.total,
      invoiceId: invoice.id,
      effectiveAt: now,
      description: `credit note ${number}: ${input.reason}`,
    });
    if (totals.appliedToInvoice.greaterThan(0))
      await recordAllocation(trx, caller.accountId, ledgerEntryId, entry.id, totals.appliedToInvoice, now);
    const creditNoteId = await storeCreditNote(trx, {
      caller,
      customerId: customer.id,
      invoice,
      input,
      number,
      totals,
      priced,
      ledgerEntryId,
      now,
    });
    await addChargeCredits(
      trx,
      priced.map((p) => ({ chargeId: p.chargeId, amount: p.credit.total.toString() })),
    );
    const plan = input.refund ? planRefunds(totals.excess, await paidOnInvoice(trx, invoice.id)) : [];
    await insertRefundPlan(
      trx,
      creditNoteId,
      plan.map((p) => ({ paymentId: p.paymentId, amount: p.amount.toString() })),
    );
    // The excess is the customer's credit: it pays their other open invoices. With refunds to make it waits for them
    // (a refund reopens the invoice it paid, and the credit pays that back: credit-notes/refunds.ts).
    if (plan.length === 0) await allocateAvailableFunds(trx, caller.accountId, customer.id, now, 'OldestToNewest', ledgerEntryId);
    await recordChange(trx, caller, {
      entityType: 'CreditNote',
      entityId: creditNoteId,
      action: 'create',
      changes: { number, invoiceId: invoice.id, total: totals.total.toString(), reason: input.reason, refund: input.refund === true },
    });
    const created = await findCreditNote(trx, caller.accountId, creditNoteId);
    if (!created) throw new Error(`credit note ${creditNoteId} is gone in its own transaction`);
    await ctx.webhooks?.creditNoteCreated(
      trx,
      caller.accountId,
      customer.id,
      async () => (await toCreditNoteResponses(trx, ctx.uris, [created]))[0],
      now,
    );
    await ctx.webhooks?.paidInvoices(trx, caller.accountId, customer.id, [invoice.id], now);
    await notifyCustomer(ctx, trx, customer, { number, invoice, totals, refunding: sumMoney(plan.map((p) => p.amount)) });
    if (customer.status === 'Suspended') await reactivateIfPaidIn(ctx, trx, customer, now, 'overdue invoice credited');
    return creditNoteId;
  });
  await refundCreditNote(ctx, caller, id, now);
  return getCreditNote(ctx, caller, id);
}

/** The CreditNote e-mail: the refunds are made after the commit, so it says what they ask for. */
function notifyCustomer(
  ctx: AppContext,
  trx: Queryable,
  customer: NotifiedCustomer,
  note: { number: number; invoice: InvoiceRow; totals: ReturnType<typeof creditNoteTotals>; refunding: Money },
): Promise<void> | undefined {
  const { totals } = note;
  return ctx.notifier?.enqueue(trx, customer, {
    type: 'CreditNote',
    number: note.number,
    invoiceNumber: note.invoice.invoiceNumber,
    total: totals.total.toString(),
    applied: totals.appliedToInvoice.toString(),
    credited: totals.excess.minus(note.refunding).toString(),
    refunded: note.refunding.toString(),
    currency: note.invoice.currency,
  });
}

/** The credit note and its lines, as priced. */
function storeCreditNote(
  trx: Queryable,
  note: {
    caller: Caller;
    customerId: number;
    invoice: InvoiceRow;
    input: CreateCreditNoteInput;
    number: number;
    totals: ReturnType<typeof creditNoteTotals>;
    priced: PricedCredit[];
    ledgerEntryId: number;
    now: Date;
  },
): Promise<number> {
  const { totals, input } = note;
  return insertCreditNote(
    trx,
    {
      accountId: note.caller.accountId,
      customerId: note.customerId,
      invoiceId: note.invoice.id,
      number: note.number,
      currency: note.invoice.currency,
      reason: input.reason,
      refund: input.refund === true,
      subtotal: totals.subtotal.toString(),
      taxTotal: totals.taxTotal.toString(),
      total: totals.total.toString(),
      appliedToInvoice: totals.appliedToInvoice.toString(),
      ledgerEntryId: note.ledgerEntryId,
      createdAt: note.now,
    },
    note.priced.map((p) => ({
      invoiceChargeId: p.chargeId,
      description: p.description,
      quantity: p.quantity?.toString() ?? null,
      amount: p.credit.amount.toString(),
      taxAmount: p.credit.taxAmount.toString(),
    })),
  );
}

/** The invoice, refused unless posted and standing: a Draft owes nothing yet; a Void or WrittenOff one is closed. */
async function postedInvoice(db: Queryable, caller: Caller, invoiceId: number): Promise<InvoiceRow> {
  const invoice = await findInvoice(db, caller.accountId, invoiceId);
  if (!invoice) throw Refusal.notFound('invoice', invoiceId);
  if (invoice.status === 'Draft')
    throw Refusal.conflict(`invoice ${invoiceId} is a Draft: only a posted invoice can be credited`, 'invoiceId', 'invoice_not_posted');
  if (invoice.status !== 'Posted')
    throw Refusal.conflict(`invoice ${invoiceId} is ${invoice.status}: it takes no credit note`, 'invoiceId', 'invoice_closed');
  return invoice;
}

async function lockInvoiceEntryOrFail(db: Queryable, caller: Caller, invoiceId: number) {
  const entry = await lockInvoiceEntry(db, caller.accountId, invoiceId);
  if (!entry) throw new Error(`posted invoice ${invoiceId} has no ledger entry`);
  return entry;
}

/** A card payment of the invoice at the processor now holds part of it: a credit now could pay it twice over. */
async function refuseWhilePaymentInProgress(ctx: AppContext, trx: Queryable, invoice: InvoiceRow) {
  const [open] = await findOpenInvoiceEntries(trx, invoice.customerId, [invoice.id], { instance: ctx.instance, ownChargeKey: null });
  if (open && money(open.reserved).greaterThan(0))
    throw Refusal.conflict(
      `a card payment of invoice ${invoice.id} is at the payment processor now: try again in a minute`,
      'invoiceId',
      'payment_in_progress',
    );
}

/** The requested lines priced against the invoice's lines (refusals keyed on the request's line). */
async function priceCredit(db: Queryable, invoice: InvoiceRow, input: CreateCreditNoteInput): Promise<PricedCredit[]> {
  const { charges } = await findInvoiceLines(db, [invoice.id]);
  return creditedLines(invoice, charges, input.lines);
}

async function paidOnInvoice(db: Queryable, invoiceId: number) {
  return (await paymentsOfInvoice(db, invoiceId)).map((p) => ({ paymentId: p.paymentId, paid: money(p.paid) }));
}
