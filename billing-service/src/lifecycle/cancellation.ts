import type { CustomerResponse } from '../customers/schemas.js';
import { getCustomer } from '../customers/service.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import { daysBetween } from '../invoices/engine/index.js';
import { utcDate } from '../invoices/billing-run.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { money, roundToCurrency, sumMoney, type Money } from '../money/money.js';
import { lockCustomerIn, setCustomerStatus } from './customer-status.js';
import { CANCELLATION_OPTIONS, type CancellationInput, type CancellationOption } from './schemas.js';

const OPTIONS_MESSAGE = `allowable options are ${CANCELLATION_OPTIONS.join(', ')}`;

/**
 * The revenue to reverse for a subscription's current period, per invoice: its
 * recurring charges on posted invoices for the period running today, with
 * their share of the invoice's taxes. Full reverses all of it; Unearned the
 * part of the period not yet served (days left / days in the period); None
 * nothing. Credits already recorded against an invoice (an earlier
 * cancellation, before an uncancel) are deducted, so a period is never
 * reversed twice.
 */
async function reversibleAmounts(db: Queryable, subscriptionIds: number[], option: CancellationOption, today: string, currency: string): Promise<Array<{ invoiceId: number; amount: Money }>> {
  if (option === 'None' || subscriptionIds.length === 0) return [];
  const lines = await db
    .selectFrom('invoiceCharges')
    .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
    .select(['invoices.id as invoiceId', 'invoiceCharges.taxableAmount', 'invoiceCharges.startServiceDate', 'invoiceCharges.endServiceDate', 'invoices.subtotal', 'invoices.totalDiscount', 'invoices.totalTaxes'])
    .where('invoiceCharges.subscriptionId', 'in', subscriptionIds)
    .where('invoiceCharges.kind', '=', 'Recurring')
    .where('invoices.status', '=', 'Posted')
    .where('invoiceCharges.startServiceDate', '<=', today)
    .where('invoiceCharges.endServiceDate', '>', today)
    .orderBy('invoices.id')
    .execute();
  if (lines.length === 0) return [];
  const invoiceIds = [...new Set(lines.map((line) => line.invoiceId))];
  const credited = await db
    .selectFrom('ledgerEntries')
    .select(['invoiceId', 'amount'])
    .where('entryType', '=', 'credit')
    .where('invoiceId', 'in', invoiceIds)
    .execute();
  return invoiceIds.map((invoiceId) => {
    const reversible = sumMoney(
      lines
        .filter((line) => line.invoiceId === invoiceId)
        .map((line) => {
          const taxable = money(line.subtotal).minus(line.totalDiscount);
          const withTax = taxable.isZero() ? money(line.taxableAmount) : money(line.taxableAmount).times(taxable.plus(line.totalTaxes)).dividedBy(taxable);
          const share = option === 'Full' ? money(1) : money(daysBetween(today, line.endServiceDate)).dividedBy(daysBetween(line.startServiceDate, line.endServiceDate));
          return roundToCurrency(withTax.times(share), currency);
        }),
    );
    const left = reversible.minus(sumMoney(credited.filter((c) => c.invoiceId === invoiceId).map((c) => money(c.amount))));
    return { invoiceId, amount: left.greaterThan(0) ? left : money(0) };
  });
}

/** Any status but Cancelled → Cancelled; subscriptions are cancelled with the same option. */
export async function cancelCustomer(ctx: AppContext, caller: Caller, input: CancellationInput, now = new Date()): Promise<void> {
  const option = CANCELLATION_OPTIONS.find((o) => typeof input.cancellationOption === 'string' && o.toLowerCase() === input.cancellationOption.toLowerCase());
  if (!option) throw ApiError.badRequest(OPTIONS_MESSAGE);
  await ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomerIn(trx, caller, input.customerId, ['Draft', 'Active', 'Hold', 'Suspended']);
    const cancelled = await trx
      .updateTable('subscriptions')
      .set({ status: 'Cancelled', cancelledAt: now, cancellationOption: option, modifiedAt: now })
      .where('customerId', '=', customer.id)
      .where('status', '!=', 'Cancelled')
      .returning(['id', 'status', 'name'])
      .execute();
    const reversals = (await reversibleAmounts(trx, cancelled.map((s) => s.id), option, utcDate(now), customer.currency)).filter((r) => r.amount.greaterThan(0));
    // One credit per invoice reversed, recorded against it.
    for (const reversal of reversals) {
      await addLedgerEntry(trx, {
        accountId: caller.accountId,
        customerId: customer.id,
        entryType: 'credit',
        amount: reversal.amount,
        invoiceId: reversal.invoiceId,
        effectiveAt: now,
        description: `${option} reversal on cancellation`,
      });
    }
    if (reversals.length > 0) await allocateAvailableFunds(trx, caller.accountId, customer.id);
    const credit = sumMoney(reversals.map((r) => r.amount));
    await setCustomerStatus(trx, caller, customer, 'Cancelled', now, { cancellationOption: option, credit: credit.toString() });
    // Draft subscriptions never started: only the ones the customer had are announced.
    const ended = cancelled.filter((s) => s.status !== 'Draft').map((s) => s.name);
    if (ended.length > 0) await ctx.notifier?.enqueue(trx, customer, { type: 'SubscriptionCancellation', subscriptions: ended });
  });
}

/** Cancelled → Active; the subscriptions cancelled with the customer come back with it. */
export async function uncancelCustomer(ctx: AppContext, caller: Caller, customerId: number, now = new Date()): Promise<CustomerResponse> {
  await ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomerIn(trx, caller, customerId, ['Cancelled']);
    await trx
      .updateTable('subscriptions')
      .set({ status: 'Active', cancelledAt: null, cancellationOption: null, modifiedAt: now })
      .where('customerId', '=', customer.id)
      .where('cancelledAt', '=', customer.statusAt)
      .where('activatedAt', 'is not', null)
      .execute();
    await setCustomerStatus(trx, caller, customer, 'Active', now);
  });
  return getCustomer(ctx, caller, customerId);
}
