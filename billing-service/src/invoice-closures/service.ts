import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { findInvoice, markPostedClosed } from '../invoices/repository.js';
import type { InvoiceResponse } from '../invoices/schemas.js';
import { getInvoice, invoiceStatus } from '../invoices/service.js';
import { closeInvoiceEntry, type InvoiceClosing } from '../ledger/closing.js';
import { reactivateIfPaidIn } from '../lifecycle/billing-clock.js';
import { money } from '../money/money.js';
import { findOpenInvoiceEntries } from '../payments/repository.js';
import { Refusal } from '../refusals/refusal.js';

/** What each closing does: the status the invoice takes, its webhook event, and the word for messages. */
const CLOSINGS = {
  void: { status: 'Void', event: 'invoice.voided', verb: 'voided' },
  write_off: { status: 'WrittenOff', event: 'invoice.writtenOff', verb: 'written off' },
} as const;

/**
 * POST /v1/Invoices/{id}/void (issue 40): a posted invoice nothing was paid on (no payment or credit allocated)
 * becomes Void. Its balance leaves AR through a `void` ledger entry (ledger/closing.ts), so dunning, collection and
 * payments skip it, and the period it billed counts as not billed (a later uncancel bills it again).
 */
export function voidInvoice(ctx: AppContext, caller: Caller, id: number, reason: string | null): Promise<InvoiceResponse> {
  return closeInvoice(ctx, caller, id, 'void', reason);
}

/**
 * POST /v1/Invoices/{id}/writeOff (issue 40): what a posted invoice still owes is written off, a `write_off` ledger
 * entry of its own (not a payment); the invoice becomes WrittenOff, AR falls, dunning stops.
 */
export function writeOffInvoice(ctx: AppContext, caller: Caller, id: number, reason: string): Promise<InvoiceResponse> {
  return closeInvoice(ctx, caller, id, 'write_off', reason);
}

/**
 * One transaction under the customer's lock: the checks, the invoice's status, the closing ledger entry, the audit
 * entry, the webhook, and, when the customer is Suspended and nothing is left overdue, its reactivation (the rule a
 * payment that clears the overdue debt follows: lifecycle/billing-clock.ts reactivateIfPaid).
 */
async function closeInvoice(
  ctx: AppContext,
  caller: Caller,
  id: number,
  kind: InvoiceClosing,
  reason: string | null,
): Promise<InvoiceResponse> {
  const now = await ctx.clock.now(caller.accountId);
  const closing = CLOSINGS[kind];
  await transactionWithRetry(ctx.db, async (trx) => {
    const found = await findInvoice(trx, caller.accountId, id);
    if (!found) throw Refusal.notFound('invoice', id);
    // the customer's lock first, as every change to its ledger takes it (lock order: README, Architecture)
    const customer = await lockCustomer(trx, caller.accountId, found.customerId);
    if (!customer) throw new Error(`customer ${found.customerId} of invoice ${id} is gone (customers are never deleted)`);
    const invoiceEntryId = await checkClosable(ctx, trx, { accountId: caller.accountId, id, customerId: customer.id }, kind);
    const closed = await markPostedClosed(trx, caller.accountId, id, closing.status);
    if (!closed) throw new Error(`invoice ${id} left Posted under its customer's lock`);
    const { amount } = await closeInvoiceEntry(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      invoiceEntryId,
      invoiceId: id,
      kind,
      at: now,
      description: reason ?? `invoice ${closed.invoiceNumber} ${closing.verb}`,
    });
    await recordChange(trx, caller, {
      entityType: 'Invoice',
      entityId: id,
      action: 'update',
      changes: {
        status: [invoiceStatus(found), closing.status],
        [kind === 'void' ? 'voidedAmount' : 'writtenOffAmount']: [null, amount.toString()],
        ...(reason ? { reason: [null, reason] } : {}),
      },
    });
    await ctx.webhooks?.invoice(trx, caller.accountId, customer.id, id, closing.event, now);
    if (customer.status === 'Suspended')
      await reactivateIfPaidIn(ctx, trx, customer, now, kind === 'void' ? 'overdue invoice voided' : 'overdue balance written off');
  });
  return getInvoice(ctx, caller, id);
}

/**
 * Refuses what cannot be closed (409 with its Code), read under the customer's lock: a Draft, an invoice already
 * closed, one a card payment in progress holds part of (its allocation reservation), for a void one with money
 * allocated, for a write-off one that owes nothing. Answers the invoice's ledger entry.
 */
async function checkClosable(
  ctx: AppContext,
  trx: Queryable,
  invoice: { accountId: number; id: number; customerId: number },
  kind: InvoiceClosing,
): Promise<number> {
  const current = await findInvoice(trx, invoice.accountId, invoice.id);
  if (!current) throw new Error(`invoice ${invoice.id} is gone (invoices are never deleted)`);
  const what = kind === 'void' ? 'voided' : 'written off';
  if (current.status === 'Draft')
    throw Refusal.conflict(`invoice ${invoice.id} is a Draft: only a posted invoice can be ${what}`, 'invoiceId', 'invoice_not_posted');
  if (current.status !== 'Posted')
    throw Refusal.conflict(`invoice ${invoice.id} is already ${current.status}`, 'invoiceId', 'invoice_closed');
  const [entry] = await findOpenInvoiceEntries(trx, invoice.customerId, [invoice.id], { instance: ctx.instance, ownChargeKey: null });
  if (!entry) throw new Error(`posted invoice ${invoice.id} has no ledger entry`);
  if (money(entry.reserved).greaterThan(0))
    throw Refusal.conflict(
      `a card payment of invoice ${invoice.id} is at the payment processor now: try again in a minute`,
      'invoiceId',
      'payment_in_progress',
    );
  if (kind === 'void' && money(current.totalPayments).greaterThan(0))
    throw Refusal.conflict(
      `${current.totalPayments} is paid on invoice ${invoice.id} (payments or credits): refund it first, or write off what is owed`,
      'invoiceId',
      'invoice_has_payments',
    );
  if (kind === 'write_off' && money(entry.openAmount).isZero())
    throw Refusal.conflict(`nothing is owed on invoice ${invoice.id}: there is nothing to write off`, 'invoiceId', 'invoice_nothing_owed');
  return entry.id;
}
