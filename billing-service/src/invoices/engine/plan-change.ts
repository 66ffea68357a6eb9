import type { Decimal } from 'decimal.js';
import { money, roundToCurrency, sumMoney, type Money } from '../../money/money.js';
import { computeInvoices } from './compute-invoices.js';
import { daysBetween, parseDate } from './dates.js';
import { dueDate } from './due-date.js';
import { prorate } from './proration.js';
import { computeTaxes, totalOfTaxes } from './taxes.js';
import type { DraftCharge, EngineCoupon, EngineInput, EngineSubscription, Interval } from './types.js';

/*
 * A plan change applied mid-period (issue 28; rule and worked examples in
 * src/subscriptions/PLAN-CHANGES.md): the unused part of what the running period's lines billed is
 * credited, the new plan is charged, and the invoice's taxes are computed on the net. Pure: the
 * caller passes the lines, the change day (the account clock's UTC day) and the customer's settings.
 */

/** A recurring line of the subscription running on the change day, on a posted invoice (as cancellation's reversal reads it). */
export interface RunningLine {
  chargeId: number;
  subscriptionId: number;
  productCode: string;
  name: string;
  description: string | null;
  quantity: Decimal;
  unitPrice: Decimal;
  /** What the line billed after its discounts and coupons. */
  taxableAmount: Decimal;
  /** What credits reversed of it before (an earlier cancellation before an uncancel). */
  creditedAmount: Decimal;
  startServiceDate: string;
  /** Exclusive. */
  endServiceDate: string;
}

/** An invoice line of a change: the engine's charge, or the credit of a running line (`Credit`, negative amount). */
export interface PlanChangeCharge extends Omit<DraftCharge, 'kind'> {
  kind: DraftCharge['kind'] | 'Credit';
  /** For a credit: the running line it credits. */
  creditedChargeId?: number;
}

/** What a change computes: its invoice (credits first, then the new charges) and how the subscription moves. */
export interface PlanChangeInvoice {
  currency: string;
  effectiveDate: string;
  dueDate: string;
  subscriptionId: number;
  charges: PlanChangeCharge[];
  /** Σ amount (credits negative). */
  subtotal: Money;
  totalDiscount: Money;
  taxes: Array<{ name: string; rate: Money; amount: Money }>;
  totalTaxes: Money;
  /** subtotal − totalDiscount + totalTaxes; below 0 when the credits exceed the charges. */
  total: Money;
  /** What to record on each credited running line (its creditedAmount grows by it). */
  credits: Array<{ chargeId: number; amount: Money }>;
  /** Where the next period starts: the running period's end, or the end of the new period a frequency switch starts. */
  nextPeriodStart: string;
  /** A frequency switch moves the anniversary to the change day (its day of month); otherwise null: unchanged. */
  anchorDay: number | null;
  /** Codes of the coupons that used a period (a frequency switch only: it starts a period). */
  couponsApplied: string[];
}

export interface PlanChangeInput {
  currency: string;
  /** YYYY-MM-DD: the change day, served by the new plan. */
  changeDate: string;
  /** The frequency the subscription is on before the change. */
  oldFrequency: { interval: Interval; numberOfIntervals: number };
  /** The subscription's recurring lines running on changeDate, on posted invoices. */
  runningLines: RunningLine[];
  /**
   * The subscription after the change: the new frequency, products (quantities, prices, discounts) and its
   * coupons as stored (periodsUsed counting the running period). periodStart/anchorDay: the running period's.
   */
  subscription: Omit<EngineSubscription, 'billFrom' | 'isFirstInvoice'>;
  billingPeriods: EngineInput['billingPeriods'];
  taxRates: EngineInput['taxRates'];
  term: EngineInput['term'];
  showZeroDollarCharges: boolean;
  rollUpTaxes: boolean;
  rollUpDiscounts: boolean;
}

/**
 * The unused part of what a running line billed, from `changeDate` to its end:
 * round(taxableAmount × days left / days of the line) − what was credited before, never below 0
 * (cancellation's Unearned rule, without the tax share: the change invoice taxes its net).
 */
export function unusedCredit(line: RunningLine, changeDate: string, currency: string): Money {
  const left = daysBetween(changeDate, line.endServiceDate);
  const days = daysBetween(line.startServiceDate, line.endServiceDate);
  if (left <= 0 || days <= 0) return money(0);
  const rest = roundToCurrency(money(line.taxableAmount).times(Math.min(left, days)).dividedBy(days), currency);
  const credit = rest.minus(line.creditedAmount);
  return credit.greaterThan(0) ? credit : money(0);
}

/** Whether the change moves to another interval or number of intervals (a new period starts on the change day). */
export function isFrequencySwitch(input: Pick<PlanChangeInput, 'oldFrequency' | 'subscription'>): boolean {
  return (
    input.oldFrequency.interval !== input.subscription.interval ||
    input.oldFrequency.numberOfIntervals !== input.subscription.numberOfIntervals
  );
}

/**
 * The coupons as the change invoice sees them. Same frequency: the running period already used its coupons, so
 * a Percentage coupon applies when it discounted that period (its last use was for a period one of the running
 * lines bills; the engine then sees the uses it had before it, periodsUsed − 1) and Amount coupons (once per
 * period, given already) do not. A coupon attached after the period was billed, or used up on an earlier period,
 * did not discount it and does not discount the change. A frequency switch starts a period: billed as a renewal,
 * coupons as stored.
 */
export function couponsForChange(
  coupons: EngineCoupon[],
  frequencySwitch: boolean,
  runningLines: RunningLine[],
  periodStart?: string | null,
): EngineCoupon[] {
  if (frequencySwitch) return coupons;
  // With the running period's start: a use from it on (a line of an earlier change in the same period starts after
  // the use and bills the same period, so the lines alone would drop the coupon on a second change).
  const discountedRunningPeriod = (c: EngineCoupon) => {
    const usedOn = c.lastUsedOn;
    if (!usedOn || c.periodsUsed <= 0) return false;
    return runningLines.some(
      (l) =>
        (periodStart ? periodStart : l.startServiceDate) <= usedOn &&
        usedOn < l.endServiceDate &&
        // the period it discounted ends when the running one does (a re-billed month that started on the day a
        // yearly period later started is not that year)
        (!c.lastUsedUntil || c.lastUsedUntil === l.endServiceDate),
    );
  };
  return coupons
    .filter((c) => c.kind === 'Percentage' && discountedRunningPeriod(c))
    .map((c) => ({ ...c, periodsUsed: c.periodsUsed - 1 }));
}

function creditCharge(line: RunningLine, amount: Money, changeDate: string): PlanChangeCharge {
  const factor = { days: daysBetween(changeDate, line.endServiceDate), fullDays: daysBetween(line.startServiceDate, line.endServiceDate) };
  return {
    subscriptionId: line.subscriptionId,
    productCode: line.productCode,
    kind: 'Credit',
    name: line.name,
    description: line.description,
    quantity: money(line.quantity),
    // Shown negated: the credit takes back this much of the old price per unit.
    unitPrice: money(line.unitPrice).negated(),
    proratedUnitPrice: prorate(line.unitPrice, factor).negated(),
    amount: amount.negated(),
    discounts: [],
    taxableAmount: amount.negated(),
    startServiceDate: changeDate,
    endServiceDate: line.endServiceDate,
    creditedChargeId: line.chargeId,
  };
}

/**
 * The invoice a change applied on `changeDate` posts: a credit per running line for its unused part, then the new
 * plan's recurring lines (same frequency: the rest of the running period, prorated by day over its full period,
 * the engine's billFrom rule, whatever isProrated says; a frequency switch: a new period from the change day),
 * their discounts, the customer's taxes on the net, totals. Every amount is rounded once to the currency's minor
 * unit. No setup fees (the subscription had its first invoice).
 */
export function planChangeInvoice(input: PlanChangeInput): PlanChangeInvoice {
  const { currency, changeDate } = input;
  parseDate(changeDate, 'changeDate');
  const frequencySwitch = isFrequencySwitch(input);

  const credits: PlanChangeInvoice['credits'] = [];
  const creditLines: PlanChangeCharge[] = [];
  for (const line of input.runningLines) {
    const amount = unusedCredit(line, changeDate, currency);
    if (amount.isZero()) continue;
    credits.push({ chargeId: line.chargeId, amount });
    creditLines.push(creditCharge(line, amount, changeDate));
  }

  const subscription: EngineSubscription = frequencySwitch
    ? { ...input.subscription, periodStart: changeDate, anchorDay: null, billFrom: null, isFirstInvoice: false }
    : { ...input.subscription, isProrated: true, billFrom: changeDate, isFirstInvoice: false };
  subscription.coupons = couponsForChange(input.subscription.coupons, frequencySwitch, input.runningLines, input.subscription.periodStart);
  // Taxes are the change invoice's, on its net: the engine computes the charges untaxed.
  const [charged] = computeInvoices({
    currency,
    effectiveDate: changeDate,
    subscriptions: [subscription],
    billingPeriods: input.billingPeriods,
    taxRates: [],
    term: input.term,
    showZeroDollarCharges: input.showZeroDollarCharges,
    rollUpTaxes: false,
    rollUpDiscounts: input.rollUpDiscounts,
  });
  const nextPeriodStart = charged?.nextPeriodStart[subscription.subscriptionId];
  if (!charged || nextPeriodStart === undefined) throw new Error('computeInvoices bills the one subscription it is given');
  const charges: PlanChangeCharge[] = [...creditLines, ...charged.charges];
  const subtotal = sumMoney(charges.map((c) => c.amount));
  const totalDiscount = sumMoney(charges.flatMap((c) => c.discounts.map((d) => d.amount)));
  const taxes = computeTaxes(sumMoney(charges.map((c) => c.taxableAmount)), input.taxRates, currency, input.rollUpTaxes);
  const totalTaxes = totalOfTaxes(taxes);
  return {
    currency,
    effectiveDate: changeDate,
    dueDate: dueDate(changeDate, input.term),
    subscriptionId: subscription.subscriptionId,
    charges,
    subtotal,
    totalDiscount,
    taxes,
    totalTaxes,
    total: subtotal.minus(totalDiscount).plus(totalTaxes),
    credits,
    nextPeriodStart,
    anchorDay: frequencySwitch ? parseDate(changeDate).day : null,
    couponsApplied: frequencySwitch ? (charged.couponsApplied[subscription.subscriptionId] ?? []) : [],
  };
}

/**
 * Whether a change is a downgrade: the next renewal would charge less before discounts and taxes (Σ quantity ×
 * unit price per period of the new frequency below that of the old). Anything else is an upgrade.
 */
export function isDowngrade(
  oldProducts: ReadonlyArray<{ quantity: Decimal.Value; unitPrice: Decimal.Value; included: boolean }>,
  newProducts: ReadonlyArray<{ quantity: Decimal.Value; unitPrice: Decimal.Value; included: boolean }>,
): boolean {
  const perPeriod = (products: typeof oldProducts) =>
    sumMoney(products.filter((p) => p.included).map((p) => money(p.quantity).times(p.unitPrice)));
  return perPeriod(newProducts).lessThan(perPeriod(oldProducts));
}
