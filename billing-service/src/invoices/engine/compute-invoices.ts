import { money, roundToCurrency, sumMoney, type Money } from '../../money/money.js';
import { billingPeriod, restOfPeriod, ruleFor } from './billing-periods.js';
import { applySubscriptionDiscounts, rollUpDiscounts, type DiscountableLine } from './discounts.js';
import { dueDate } from './due-date.js';
import { groupSubscriptions } from './grouping.js';
import { FULL_PERIOD, prorate, proratedAmount, prorationFactor } from './proration.js';
import { computeTaxes, totalOfTaxes } from './taxes.js';
import type { DraftCharge, DraftInvoice, EngineInput, EngineProduct, EngineSubscription } from './types.js';
import { usageLine } from './usage-lines.js';
import { validateInput } from './validate.js';

/** A line while it is built: the draft charge plus what discounting needs. */
type WorkLine = DraftCharge & DiscountableLine & { product: EngineProduct };

/** A usage line belongs to no product of the subscription: it carries no product discount. */
const USAGE_PRODUCT: EngineProduct = { productCode: '', name: '', quantity: money(0), unitPrice: money(0), included: true };

/** Suffix of a setup fee line's name. */
export const SETUP_FEE_SUFFIX = ' (setup fee)';

/**
 * The charge lines of one subscription for its period, discounted, before presentation.
 * Order: per product, the recurring line, then its setup fee line.
 */
function subscriptionLines(subscription: EngineSubscription, input: EngineInput): { lines: WorkLine[]; next: string; coupons: string[] } {
  const { currency } = input;
  const whole = billingPeriod(
    subscription.periodStart,
    subscription.interval,
    subscription.numberOfIntervals,
    ruleFor(subscription.interval, input.billingPeriods),
    subscription.anchorDay,
  );
  const period = subscription.billFrom != null ? restOfPeriod(whole, subscription.billFrom) : whole;
  const factor = prorationFactor(period, subscription.isProrated);
  const lines: WorkLine[] = [];
  const line = (product: EngineProduct, kind: DraftCharge['kind'], unitPrice: Money, f: typeof factor): WorkLine => {
    const amount = proratedAmount(product.quantity, unitPrice, f, currency);
    return {
      subscriptionId: subscription.subscriptionId,
      productCode: product.productCode,
      kind,
      name: kind === 'SetupFee' ? `${product.name}${SETUP_FEE_SUFFIX}` : product.name,
      description: product.description ?? null,
      quantity: money(product.quantity),
      unitPrice,
      proratedUnitPrice: prorate(unitPrice, f),
      amount,
      discounts: [],
      taxableAmount: amount,
      startServiceDate: period.start,
      endServiceDate: period.end,
      factor: f,
      product,
    };
  };
  for (const product of subscription.products) {
    if (!product.included) continue;
    lines.push(line(product, 'Recurring', money(product.unitPrice), factor));
    if (subscription.isFirstInvoice && product.setupFee != null && !product.setupFee.isZero()) {
      lines.push(line(product, 'SetupFee', money(product.setupFee), FULL_PERIOD));
    }
  }
  // usage of past periods in arrears (issue 41): never prorated, so its factor is the full period's
  for (const usage of subscription.usage ?? []) {
    lines.push({ ...usageLine(subscription.subscriptionId, usage, currency), factor: FULL_PERIOD, product: USAGE_PRODUCT });
  }
  const shown = input.showZeroDollarCharges ? lines : lines.filter((l) => !l.amount.isZero());
  // coupons discount what recurs each period: recurring lines and usage lines (issue 41: "coupons as for other lines")
  const coupons = applySubscriptionDiscounts(
    shown.filter((l) => l.kind === 'Recurring' || l.kind === 'Usage'),
    subscription.coupons,
    currency,
  );
  for (const l of shown) l.taxableAmount = l.amount.minus(sumMoney(l.discounts.map((d) => d.amount)));
  return { lines: shown, next: period.end, coupons };
}

function toDraftCharge(line: WorkLine, rollUp: boolean): DraftCharge {
  return {
    subscriptionId: line.subscriptionId,
    productCode: line.productCode,
    kind: line.kind,
    ...(line.metricCode === undefined ? {} : { metricCode: line.metricCode }),
    name: line.name,
    description: line.description,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    proratedUnitPrice: line.proratedUnitPrice,
    amount: line.amount,
    discounts: rollUp ? rollUpDiscounts(line.discounts) : line.discounts,
    taxableAmount: line.taxableAmount,
    startServiceDate: line.startServiceDate,
    endServiceDate: line.endServiceDate,
  };
}

function buildInvoice(subscriptions: EngineSubscription[], input: EngineInput): DraftInvoice {
  const charges: DraftCharge[] = [];
  const nextPeriodStart: Record<number, string> = {};
  const couponsApplied: Record<number, string[]> = {};
  for (const subscription of subscriptions) {
    const { lines, next, coupons } = subscriptionLines(subscription, input);
    charges.push(...lines.map((l) => toDraftCharge(l, input.rollUpDiscounts)));
    nextPeriodStart[subscription.subscriptionId] = next;
    couponsApplied[subscription.subscriptionId] = coupons;
  }
  return {
    currency: input.currency,
    effectiveDate: input.effectiveDate,
    dueDate: dueDate(input.effectiveDate, input.term),
    subscriptionIds: subscriptions.map((s) => s.subscriptionId),
    ...invoiceTotals(charges, input),
    nextPeriodStart,
    couponsApplied,
  };
}

/** The charges with an invoice's sums and taxes: each tax on the invoice's whole taxable amount, rounded once. */
export function invoiceTotals(
  charges: DraftCharge[],
  input: Pick<EngineInput, 'currency' | 'taxRates' | 'rollUpTaxes'>,
): Pick<DraftInvoice, 'charges' | 'subtotal' | 'totalDiscount' | 'taxes' | 'totalTaxes' | 'total'> {
  const subtotal = sumMoney(charges.map((c) => c.amount));
  const totalDiscount = sumMoney(charges.flatMap((c) => c.discounts.map((d) => d.amount)));
  const taxable = sumMoney(charges.map((c) => c.taxableAmount));
  const taxes = computeTaxes(taxable, input.taxRates, input.currency, input.rollUpTaxes);
  const totalTaxes = totalOfTaxes(taxes);
  const total = subtotal.minus(totalDiscount).plus(totalTaxes);
  // Every part is already rounded, so the sums are exact; this only guards the invariant.
  if (!roundToCurrency(total, input.currency).eq(total)) throw new Error('invoice engine: total is not a whole number of minor units');
  return { charges, subtotal, totalDiscount, taxes, totalTaxes, total };
}

/**
 * The draft invoices for billing `input.subscriptions` on `input.effectiveDate`: one invoice per
 * group (see groupSubscriptions), each with the subscriptions' recurring charges for the period
 * starting at their periodStart (or its rest from billFrom; prorated when partial and the frequency is prorated), setup fees
 * on a first invoice, discounts, taxes, totals and due date. Pure and deterministic: the same
 * input gives the same output, whatever the order of the subscriptions. Invalid input: RangeError.
 * No subscriptions: no invoices. A group whose lines are all dropped still gives an invoice
 * (total 0), which carries the subscriptions' next period starts.
 */
export function computeInvoices(input: EngineInput): DraftInvoice[] {
  validateInput(input);
  return groupSubscriptions(input.subscriptions, input.billingPeriods).map((group) => buildInvoice(group, input));
}
