import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { daysBetween } from '../invoices/engine/index.js';
import { utcDate } from '../invoices/billing-run.js';
import { addChargeCredits, creditedOnCharges, recurringChargesRunningOn } from '../invoices/repository.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { addLedgerEntry, creditsAgainstInvoices } from '../ledger/entries.js';
import { money, roundToCurrency, sumMoney, type Money } from '../money/money.js';
import type { CancellationOption } from './schemas.js';

/** A recurring line running today, what it is worth for the option, and what is left of that to credit. */
export interface ReversibleLine {
  chargeId: number;
  subscriptionId: number;
  /** What the line is worth for the option (with its share of tax), less what was credited for it before (never below 0). */
  left: Money;
}

/**
 * The revenue to reverse for a subscription's current period, per invoice: its
 * recurring charges on posted invoices for the period running today (not one an
 * unhold with ChargeForCurrentFullPeriod replaced), with their share of the
 * invoice's taxes. Full reverses all of it; Unearned the part of the period not
 * yet served (days left / days in the period); None nothing. What was credited
 * for a line before (an earlier cancellation, before an uncancel) is deducted
 * from that line, so a period is never reversed twice; another subscription's
 * credit on the same invoice is not. Credits against the invoice that no line
 * carries (recorded before credits were attributed to lines) are deducted from
 * the invoice as a whole.
 */
export async function reversibleAmounts(
  db: Queryable,
  subscriptionIds: number[],
  option: CancellationOption,
  today: string,
  currency: string,
): Promise<Array<{ invoiceId: number; amount: Money; lines: ReversibleLine[] }>> {
  if (option === 'None' || subscriptionIds.length === 0) return [];
  const running = await recurringChargesRunningOn(db, subscriptionIds, today);
  if (running.length === 0) return [];
  const invoiceIds = [...new Set(running.map((line) => line.invoiceId))];
  const [credited, attributed] = await Promise.all([creditsAgainstInvoices(db, invoiceIds), creditedOnCharges(db, invoiceIds)]);
  // Per line: its reversible amount (with its share of tax), rounded once.
  const lines = running.map((line) => {
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
    const rest = roundToCurrency(numerator.dividedBy(denominator), currency);
    const left = rest.minus(line.creditedAmount);
    return {
      invoiceId: line.invoiceId,
      chargeId: line.id,
      subscriptionId: Number(line.subscriptionId),
      left: left.greaterThan(0) ? left : money(0),
    };
  });
  return invoiceIds.map((invoiceId) => {
    const ofInvoice = lines.filter((l) => l.invoiceId === invoiceId).map(({ invoiceId: _, ...line }) => line);
    const unattributed = sumMoney(credited.filter((c) => c.invoiceId === invoiceId).map((c) => money(c.amount))).minus(
      attributed.get(invoiceId) ?? 0,
    );
    const left = sumMoney(ofInvoice.map((l) => l.left)).minus(unattributed.greaterThan(0) ? unattributed : 0);
    return { invoiceId, amount: left.greaterThan(0) ? left : money(0), lines: ofInvoice };
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
  const reversals = (await reversibleAmounts(trx, subscriptionIds, option, utcDate(now), customer.currency)).filter((r) =>
    r.amount.greaterThan(0),
  );
  for (const reversal of reversals) {
    // The credit is recorded against each line it reverses, line by line up to what is left of it.
    let toAttribute = reversal.amount;
    const chargeCredits: Array<{ chargeId: number; amount: string }> = [];
    for (const line of reversal.lines) {
      const part = line.left.lessThan(toAttribute) ? line.left : toAttribute;
      if (part.lessThanOrEqualTo(0)) continue;
      chargeCredits.push({ chargeId: line.chargeId, amount: part.toString() });
      toAttribute = toAttribute.minus(part);
    }
    await addChargeCredits(trx, chargeCredits);
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
