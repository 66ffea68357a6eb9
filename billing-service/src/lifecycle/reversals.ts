import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { daysBetween } from '../invoices/engine/index.js';
import { utcDate } from '../invoices/billing-run.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { money, roundToCurrency, sumMoney, type Money } from '../money/money.js';
import type { CancellationOption } from './schemas.js';

/**
 * The revenue to reverse for a subscription's current period, per invoice: its
 * recurring charges on posted invoices for the period running today, with
 * their share of the invoice's taxes. Full reverses all of it; Unearned the
 * part of the period not yet served (days left / days in the period); None
 * nothing. Credits already recorded against an invoice (an earlier
 * cancellation, before an uncancel) are deducted, so a period is never
 * reversed twice.
 */
export async function reversibleAmounts(
  db: Queryable,
  subscriptionIds: number[],
  option: CancellationOption,
  today: string,
  currency: string,
): Promise<Array<{ invoiceId: number; amount: Money; periods: Array<{ subscriptionId: number; end: string }> }>> {
  if (option === 'None' || subscriptionIds.length === 0) return [];
  const lines = await db
    .selectFrom('invoiceCharges')
    .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
    .select(['invoices.id as invoiceId', 'invoiceCharges.subscriptionId', 'invoiceCharges.taxableAmount', 'invoiceCharges.startServiceDate', 'invoiceCharges.endServiceDate', 'invoices.subtotal', 'invoices.totalDiscount', 'invoices.totalTaxes'])
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
    const periods = lines.filter((line) => line.invoiceId === invoiceId).map((line) => ({ subscriptionId: Number(line.subscriptionId), end: line.endServiceDate }));
    return { invoiceId, amount: left.greaterThan(0) ? left : money(0), periods };
  });
}

/**
 * Reverses the subscriptions' current period as `option` says (see reversibleAmounts): one credit
 * per invoice reversed, recorded against it, then applied to open invoices. Returns the total
 * credited. Cancellation uses it, and unhold with ChargeForCurrentFullPeriod (the unserved rest of
 * the old period, which the new full period replaces).
 */
export async function creditReversals(
  trx: Queryable,
  caller: Caller,
  customer: { id: number; currency: string },
  subscriptionIds: number[],
  option: CancellationOption,
  now: Date,
  description: string,
): Promise<Money> {
  const reversals = (await reversibleAmounts(trx, subscriptionIds, option, utcDate(now), customer.currency)).filter((r) => r.amount.greaterThan(0));
  for (const reversal of reversals) {
    await addLedgerEntry(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      entryType: 'credit',
      amount: reversal.amount,
      invoiceId: reversal.invoiceId,
      effectiveAt: now,
      description,
    });
  }
  if (reversals.length > 0) await allocateAvailableFunds(trx, caller.accountId, customer.id);
  return sumMoney(reversals.map((r) => r.amount));
}

