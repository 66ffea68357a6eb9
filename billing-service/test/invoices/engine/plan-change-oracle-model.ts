/**
 * An independent reference model of a plan change's invoice (issue 28), written from the rule in
 * src/subscriptions/PLAN-CHANGES.md ("The proration rule"), used as an oracle by
 * plan-change-oracle.test.ts. Like oracle-model.ts, whose exact rationals and calendar it reuses, it
 * imports nothing from src/: its own day counts, its own rounding to the currency's minor unit (half
 * away from zero), its own discount and tax arithmetic.
 *
 * Where the note leaves a choice open, the choice is written in a comment marked "NOTE:".
 */
import {
  daysFromTo,
  modelDueDate,
  modelPeriod,
  modelSplit,
  parseYmd,
  Rational,
  sumOf,
  type ModelCoupon,
  type ModelProduct,
  type ModelRule,
} from './oracle-model.js';

/** ISO 4217 minor units of the currencies the change oracle covers (EUR: a second 2-decimal currency). */
export const CHANGE_MINOR_UNITS = { USD: 2, EUR: 2, JPY: 0, BHD: 3 } as const;
export type ChangeCurrency = keyof typeof CHANGE_MINOR_UNITS;

export interface ModelFrequency {
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
}

/** A recurring line running on the change day, on a posted invoice (money as decimal strings). */
export interface ModelRunningLine {
  chargeId: number;
  productCode: string;
  name: string;
  quantity: string;
  unitPrice: string;
  /** What the line billed after its discounts and coupons. */
  taxableAmount: string;
  /** What earlier credits took back of it. */
  creditedAmount: string;
  startServiceDate: string;
  /** Exclusive. */
  endServiceDate: string;
}

export interface ModelChangeInput {
  currency: ChangeCurrency;
  changeDate: string;
  term: string;
  oldFrequency: ModelFrequency;
  newFrequency: ModelFrequency;
  isProrated: boolean;
  /** The running period: its start on the billing grid and, for an anniversary, its remembered day. */
  periodStart: string;
  anchorDay?: number | null;
  runningLines: ModelRunningLine[];
  /** The products after the change (the new plan's, at the new quantities). */
  products: ModelProduct[];
  /** The subscription's coupons as stored: periodsUsed counts the running period's invoice. */
  coupons: ModelCoupon[];
  billingPeriods: { Monthly?: ModelRule; Yearly?: ModelRule };
  taxRates: Array<{ name: string; rate: string }>;
  showZeroDollarCharges: boolean;
  rollUpTaxes: boolean;
  rollUpDiscounts: boolean;
}

export interface ModelChangeLine {
  kind: 'Credit' | 'Recurring';
  productCode: string;
  name: string;
  quantity: Rational;
  unitPrice: Rational;
  /** Exact unit price × the line's share of its period (negative for a credit). */
  proratedUnitPrice: Rational;
  amount: Rational;
  discounts: Array<{ name: string; amount: Rational }>;
  taxableAmount: Rational;
  startServiceDate: string;
  endServiceDate: string;
  creditedChargeId?: number;
}

export interface ModelChangeInvoice {
  dueDate: string;
  lines: ModelChangeLine[];
  subtotal: Rational;
  totalDiscount: Rational;
  taxes: Array<{ name: string; rate: Rational; amount: Rational }>;
  totalTaxes: Rational;
  total: Rational;
  credits: Array<{ chargeId: number; amount: Rational }>;
  nextPeriodStart: string;
  anchorDay: number | null;
  couponsApplied: string[];
}

const DEFAULT_RULE: ModelRule = { type: 'CustomerActivation', rule: 'SingleInvoice' };

function activeWithUses(c: ModelCoupon, uses: number): boolean {
  if (c.duration === 'Once') return uses === 0;
  if (c.duration === 'Periods') return uses < (c.periods ?? 0);
  return true;
}

/**
 * Whether a coupon applied to the running period's invoice: its last use was on a day a running line bills
 * (that invoice's period), it has a use (periodsUsed counts that invoice) and it was active with the uses it had
 * before (periodsUsed − 1).
 */
export const appliedToRunningPeriod = (c: ModelCoupon, running: ModelRunningLine[]) =>
  c.lastUsedOn != null &&
  running.some((l) => {
    const used = parseYmd(c.lastUsedOn!);
    const endsWithIt = c.lastUsedUntil == null || c.lastUsedUntil === l.endServiceDate;
    return daysFromTo(parseYmd(l.startServiceDate), used) >= 0 && daysFromTo(used, parseYmd(l.endServiceDate)) > 0 && endsWithIt;
  }) &&
  c.periodsUsed >= 1 &&
  activeWithUses(c, c.periodsUsed - 1);

/** What the change posts on `changeDate` (PLAN-CHANGES.md, "The proration rule", steps 1-5). */
export function modelPlanChange(input: ModelChangeInput): ModelChangeInvoice {
  const places = CHANGE_MINOR_UNITS[input.currency];
  const round = (x: Rational) => x.roundHalfAwayFromZero(places);
  const c = parseYmd(input.changeDate);

  // Step 1, credits: round(taxable × days left / days of the line) − credited before, never below 0.
  const lines: ModelChangeLine[] = [];
  const credits: ModelChangeInvoice['credits'] = [];
  for (const line of input.runningLines) {
    const end = parseYmd(line.endServiceDate);
    const daysLeft = daysFromTo(c, end);
    const lineDays = daysFromTo(parseYmd(line.startServiceDate), end);
    const share = Rational.of(daysLeft, lineDays);
    const rest = round(Rational.parse(line.taxableAmount).times(share));
    const credit = rest.minus(Rational.parse(line.creditedAmount));
    // NOTE: the credit is a line "with a negative amount"; a credit of 0 has none, so no line.
    if (credit.sign() <= 0) continue;
    credits.push({ chargeId: line.chargeId, amount: credit });
    const unitPrice = Rational.parse(line.unitPrice);
    lines.push({
      kind: 'Credit',
      productCode: line.productCode,
      name: line.name,
      quantity: Rational.parse(line.quantity),
      // NOTE: "the old line's … unit price"; shown with the sign of the amount (quantity × unit price is a take-back).
      unitPrice: unitPrice.neg(),
      proratedUnitPrice: unitPrice.times(share).neg(),
      amount: credit.neg(),
      discounts: [],
      taxableAmount: credit.neg(),
      startServiceDate: input.changeDate,
      endServiceDate: line.endServiceDate,
      creditedChargeId: line.chargeId,
    });
  }

  const frequencySwitch =
    input.oldFrequency.interval !== input.newFrequency.interval ||
    input.oldFrequency.numberOfIntervals !== input.newFrequency.numberOfIntervals;
  const { interval, numberOfIntervals } = input.newFrequency;
  const rule = input.billingPeriods[interval] ?? DEFAULT_RULE;

  // Steps 2 and 3: where the charge lines run and which share of a full period they bill.
  let start: string;
  let end: string;
  let factor: Rational;
  if (!frequencySwitch) {
    // The rest of the same period, c → its end, over the days of the full period it belongs to, whatever isProrated says.
    const running = modelPeriod(input.periodStart, interval, numberOfIntervals, rule, input.anchorDay);
    start = input.changeDate;
    end = running.end;
    factor = Rational.of(daysFromTo(c, parseYmd(end)), running.fullDays);
  } else {
    // A new period from c, billed like a renewal. NOTE: the note says "a full new period … (not prorated)",
    // which is what an anniversary rule gives; under a SpecifiedDate rule the model bills as the engine's
    // README bills any period from c: to the customer's next billing date, prorated when the frequency is.
    const period = modelPeriod(input.changeDate, interval, numberOfIntervals, rule, null);
    start = input.changeDate;
    end = period.end;
    factor = period.partial && input.isProrated ? Rational.of(period.days, period.fullDays) : Rational.ONE;
  }

  const charges: Array<ModelChangeLine & { product: ModelProduct }> = [];
  for (const p of input.products) {
    if (!p.included) continue;
    const unitPrice = Rational.parse(p.unitPrice);
    const quantity = Rational.parse(p.quantity);
    // quantity × unit price × factor, one rounding; no setup fees (the subscription had its first invoice).
    const amount = round(quantity.times(unitPrice).times(factor));
    if (amount.isZero() && !input.showZeroDollarCharges) continue;
    charges.push({
      kind: 'Recurring',
      productCode: p.productCode,
      name: p.name,
      quantity,
      unitPrice,
      proratedUnitPrice: unitPrice.times(factor),
      amount,
      discounts: [],
      taxableAmount: amount,
      startServiceDate: start,
      endServiceDate: end,
      product: p,
    });
  }

  // Step 4, discounts: the product's first (Percentage of the amount, or Amount × the line's factor), then coupons.
  const left = (l: ModelChangeLine) => l.amount.minus(sumOf(l.discounts.map((x) => x.amount)));
  const discount = (l: ModelChangeLine, name: string, amount: Rational) => {
    const capped = amount.min(left(l));
    if (capped.sign() > 0) l.discounts.push({ name, amount: capped });
  };
  for (const l of charges) {
    const d = l.product.discount;
    if (!d) continue;
    const value = Rational.parse(d.value);
    discount(l, 'Product discount', round(d.kind === 'Percentage' ? l.amount.times(value).div(Rational.HUNDRED) : value.times(factor)));
  }
  const couponsApplied: string[] = [];
  for (const coupon of input.coupons) {
    const name = coupon.name ? coupon.name : coupon.code;
    const value = Rational.parse(coupon.value);
    if (!frequencySwitch) {
      // Same frequency: Percentage coupons that applied to the period being changed, using no period; no Amount coupon.
      if (coupon.kind !== 'Percentage' || !appliedToRunningPeriod(coupon, input.runningLines)) continue;
      for (const l of charges) discount(l, name, round(l.amount.times(value).div(Rational.HUNDRED)));
      continue;
    }
    // A frequency switch starts a period: the active coupons apply and count a use (none when no line is left to bill).
    if (!activeWithUses(coupon, coupon.periodsUsed) || charges.length === 0) continue;
    couponsApplied.push(coupon.code);
    if (coupon.kind === 'Percentage') {
      for (const l of charges) discount(l, name, round(l.amount.times(value).div(Rational.HUNDRED)));
    } else {
      const parts = modelSplit(round(value), charges.map(left), places);
      for (const [i, l] of charges.entries()) discount(l, name, parts[i]!);
    }
  }
  for (const { product: _product, ...l } of charges) {
    l.taxableAmount = left(l);
    if (input.rollUpDiscounts && l.discounts.length > 0)
      l.discounts = [{ name: 'Discounts', amount: sumOf(l.discounts.map((x) => x.amount)) }];
    lines.push(l);
  }

  // Step 4, taxes: each rate on the net taxable amount (credits negative), rounded once, half away from zero.
  const net = sumOf(lines.map((l) => l.taxableAmount));
  let taxes = input.taxRates.map((t) => {
    const rate = Rational.parse(t.rate);
    return { name: t.name, rate, amount: round(net.times(rate)) };
  });
  if (input.rollUpTaxes && taxes.length > 0) {
    taxes = [{ name: 'Tax', rate: sumOf(taxes.map((t) => t.rate)), amount: sumOf(taxes.map((t) => t.amount)) }];
  }

  // Step 5, totals: sums of rounded parts.
  const subtotal = sumOf(lines.map((l) => l.amount));
  const totalDiscount = sumOf(lines.flatMap((l) => l.discounts.map((x) => x.amount)));
  const totalTaxes = sumOf(taxes.map((t) => t.amount));
  return {
    dueDate: modelDueDate(input.changeDate, input.term),
    lines,
    subtotal,
    totalDiscount,
    taxes,
    totalTaxes,
    total: subtotal.minus(totalDiscount).plus(totalTaxes),
    credits,
    nextPeriodStart: end,
    // A frequency switch moves the anniversary to the change day.
    anchorDay: frequencySwitch ? c.d : null,
    couponsApplied,
  };
}

/** The running period's end, from the model's calendar (the test builds its running lines with it). */
export function modelRunningPeriodEnd(input: Pick<ModelChangeInput, 'periodStart' | 'anchorDay' | 'oldFrequency' | 'billingPeriods'>) {
  const { interval, numberOfIntervals } = input.oldFrequency;
  return modelPeriod(input.periodStart, interval, numberOfIntervals, input.billingPeriods[interval] ?? DEFAULT_RULE, input.anchorDay).end;
}
