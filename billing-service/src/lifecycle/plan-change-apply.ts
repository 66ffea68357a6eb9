import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { announcePostedInvoice, applyHeldFunds } from '../invoices/billing-run.js';
import { addChargeCredits, insertInvoice, markChargesReplaced } from '../invoices/repository.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { money } from '../money/money.js';
import { claimPendingChanges, countCouponUses, replaceProducts, updateSubscriptionRow } from '../subscriptions/repository.js';

import { nameAfterChange, quantitiesOf, type ComputedChange } from './plan-change-rules.js';
import { enqueueChangeEmail } from './plan-change-email.js';
import type { PlanChangeInvoice } from '../invoices/engine/index.js';

/**
 * Applies a computed change now, in the caller's transaction under the customer's lock: the running lines record
 * their credit and end on the change day (a later cancellation reverses the new lines, never the old days twice),
 * the change invoice is posted (number, lines, taxes, ledger entry), the subscription moves to its new plan
 * frequency, products and period, held funds are applied; audit entry and events.
 */
export async function applyNow(ctx: AppContext, trx: Queryable, caller: Caller, change: ComputedChange, now: Date): Promise<number> {
  const { invoice } = change;
  if (!invoice) throw new Error('applyNow: a change now is computed with its invoice (only periodEnd has none)');
  await addChargeCredits(
    trx,
    invoice.credits.map((c) => ({ chargeId: c.chargeId, amount: c.amount.toString() })),
  );
  // before the change invoice is written: only the old lines end today
  await markChargesReplaced(trx, [change.s.id], invoice.effectiveDate);
  const posted = await postChangeInvoice(trx, change, invoice, now);
  await moveSubscription(trx, caller, change, invoice, posted.id, now);
  await announceAppliedChange(ctx, trx, change, invoice, posted, now);
  await applyHeldFunds(trx, change.customer, { now, webhooks: ctx.webhooks });
  return posted.id;
}

/**
 * The change invoice, posted. A net below 0 (a downgrade now): nothing is owed on the invoice and what it gives back
 * is a credit (the ledger holds no negative amount), applied to open invoices or held for the next one. See
 * PLAN-CHANGES.md, "Posting".
 */
async function postChangeInvoice(trx: Queryable, change: ComputedChange, invoice: PlanChangeInvoice, now: Date) {
  const { customer, context } = change;
  const givesBack = invoice.total.lessThan(0);
  const posted = await insertInvoice(
    trx,
    {
      accountId: customer.accountId,
      customerId: customer.id,
      status: 'Posted',
      terms: context.settings.term,
      poNumber: context.settings.poNumber,
      postedAt: now,
    },
    invoice,
    { ledgerEntry: !givesBack },
  );
  if (givesBack) {
    const entry = { accountId: customer.accountId, customerId: customer.id, effectiveAt: now, openedAt: now };
    const dueAt = new Date(`${invoice.dueDate}T00:00:00Z`);
    await addLedgerEntry(trx, { ...entry, entryType: 'invoice', amount: money(0), invoiceId: posted.id, dueAt });
    await addLedgerEntry(trx, {
      ...entry,
      entryType: 'credit',
      amount: invoice.total.negated(),
      description: `plan change, invoice ${posted.invoiceNumber}: the credit exceeds the charge`,
    });
  }
  return posted;
}

/** The subscription on its new plan frequency, products and period, its coupons counted, a pending change withdrawn; the audit entry. */
async function moveSubscription(
  trx: Queryable,
  caller: Caller,
  change: ComputedChange,
  invoice: PlanChangeInvoice,
  invoiceId: number,
  now: Date,
) {
  const { s, target, products } = change;
  const today = invoice.effectiveDate;
  await updateSubscriptionRow(trx, s.id, {
    name: nameAfterChange(s, target),
    planFrequencyId: target.frequency.id,
    nextPeriodStart: invoice.nextPeriodStart,
    ...(invoice.anchorDay !== null ? { anchorDay: invoice.anchorDay, currentPeriodStart: today } : {}),
    modifiedAt: now,
  });
  await replaceProducts(trx, s.id, products);
  await countCouponUses(trx, s.id, invoice.couponsApplied, today, invoice.nextPeriodStart);
  // a change scheduled for the period end was computed against the plan this one replaces: withdrawn
  await claimPendingChanges(trx, [s.id]);
  await recordChange(trx, caller, {
    entityType: 'Subscription',
    entityId: s.id,
    action: 'update',
    changes: {
      planFrequencyId: [s.planFrequencyId, target.frequency.id],
      quantities: [quantitiesOf(change.before), quantitiesOf(products)],
      nextPeriodStartDate: [s.nextPeriodStart, invoice.nextPeriodStart],
      planChangeInvoiceId: invoiceId,
    },
  });
}

/** The posted invoice's events and e-mail, the subscription's events, the change's e-mail. */
async function announceAppliedChange(
  ctx: AppContext,
  trx: Queryable,
  change: ComputedChange,
  invoice: PlanChangeInvoice,
  posted: { id: number; invoiceNumber: number },
  now: Date,
) {
  const { s, customer } = change;
  await announcePostedInvoice(
    trx,
    customer,
    { id: posted.id, invoiceNumber: posted.invoiceNumber, total: invoice.total, dueDate: invoice.dueDate },
    { now, notifier: ctx.notifier, webhooks: ctx.webhooks },
  );
  for (const type of ['subscription.updated', 'subscription.changeApplied'] as const)
    await ctx.webhooks?.subscription(trx, customer.accountId, customer.id, s.id, type, now);
  const email = { number: posted.invoiceNumber, total: invoice.total };
  await enqueueChangeEmail(ctx, trx, customer, change, 'applied', invoice.effectiveDate, email, change.nextRenewal);
}
