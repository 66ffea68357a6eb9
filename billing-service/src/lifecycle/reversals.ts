import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { daysBetween } from '../invoices/engine/index.js';
import { utcDate } from '../invoices/billing-run.js';
import { recurringChargesRunningOn } from '../invoices/repository.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { addLedgerEntry, creditsAgainstInvoices } from '../ledger/entries.js';
import { money, roundToCurrency, sumMoney, type Money } from '../money/money.js';
import type { CancellationOption } from './schemas.js';

/**
 * The revenue to reverse for a subscription's current period, per invoice: its
 * recurring charges on posted invoices for the period running today, with
 * their share of the invoice's taxes. Full reverses all of it; Unearned the
 * part of the period not yet served (days left / days in the period); None
 * nothing. Credits already recorded against an invoice (an earlier
 * cancellation, before an uncancel) are deducted, so a period is never
 * reversed twice. `periods` lists the invoice's lines running today, each
 * with its `rest`: what it is worth for the option, before those credits.
 */
export async function reversibleAmounts(
  db: Queryable,
  subscriptionIds: number[],
  option: CancellationOption,
  today: string,
  currency: string,
): Promise<Array<{ invoiceId: number; amount: Money; periods: Array<{ subscriptionId: number; end: string; rest: Money }> }>> {
  if (option === 'None' || subscriptionIds.length === 0) return [];
  const lines = await recurringChargesRunningOn(db, subscriptionIds, today);
  if (lines.length === 0) return [];
  const invoiceIds = [...new Set(lines.map((line) => line.invoiceId))];
  const credited = await creditsAgainstInvoices(db, invoiceIds);
  // Per line: its reversible amount (with its share of tax), rounded once.
  const reversibleLines = lines.map((line) => {
    // One fraction, divided once before the one rounding: an exact half (0.645) stays exact.
    const taxable = money(line.subtotal).minus(line.totalDiscount);
    let numerator = money(line.taxableAmount);
    let denominator = money(1);
    if (!taxable.isZero()) {
      numerator = numerator.times(taxable.plus(line.totalTaxes));
      denominator = taxable;
    }
    if (option !== 'Full') {
      numerator = numerator.times(daysBetween(today, line.endServiceDate));
      denominator = denominator.times(daysBetween(line.startServiceDate, line.endServiceDate));
    }
    return { line, amount: roundToCurrency(numerator.dividedBy(denominator), currency) };
  });
  return invoiceIds.map((invoiceId) => {
    const ofInvoice = reversibleLines.filter(({ line }) => line.invoiceId === invoiceId);
    const reversible = sumMoney(ofInvoice.map((l) => l.amount));
    const left = reversible.minus(sumMoney(credited.filter((c) => c.invoiceId === invoiceId).map((c) => money(c.amount))));
    const periods = ofInvoice.map(({ line, amount }) => ({ subscriptionId: Number(line.subscriptionId), end: line.endServiceDate, rest: amount }));
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
  if (reversals.length > 0) await allocateAvailableFunds(trx, caller.accountId, customer.id, now);
  return sumMoney(reversals.map((r) => r.amount));
}

