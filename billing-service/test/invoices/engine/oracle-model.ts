/**
 * An independent reference model of the invoice engine (src/invoices/engine/README.md), used as an
 * oracle by oracle.test.ts. It shares no code with the engine: no import from src/, no decimal.js.
 *
 * - Money is exact: a rational number with a bigint numerator and denominator (`Rational`), so
 *   proration (days / fullDays) and proportional splits are never approximated. Rounding happens
 *   only where the README says an amount is rounded: half away from zero, to the currency's
 *   ISO 4217 minor unit (USD 2, JPY 0, BHD 3 decimals).
 * - Dates are its own calendar arithmetic (`Ymd`, day counts from 0001-01-01, month stepping with
 *   clamping), written from the README's rules rather than from the engine's month-index formulas.
 *
 * Where the README leaves a choice open, the model follows the README's wording and the choice is
 * noted in a comment marked "README:".
 */

// ---------------------------------------------------------------------------------------------
// Exact rational arithmetic
// ---------------------------------------------------------------------------------------------

const abs = (x: bigint) => (x < 0n ? -x : x);

function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

const pow10 = (k: number) => 10n ** BigInt(k);

/** How often the model rounded, and how often the exact value was a tie (…5 exactly) that went away from zero. */
export const roundingStats = { roundings: 0, ties: 0 };

/** A rational number num/den, den > 0, in lowest terms. */
export class Rational {
  private constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {}

  static of(num: bigint | number, den: bigint | number = 1n): Rational {
    let n = BigInt(num);
    let d = BigInt(den);
    if (d === 0n) throw new RangeError('Rational: zero denominator');
    if (d < 0n) [n, d] = [-n, -d];
    const g = gcd(n, d) || 1n;
    return new Rational(n / g, d / g);
  }

  static readonly ZERO = Rational.of(0n);
  static readonly ONE = Rational.of(1n);
  static readonly HUNDRED = Rational.of(100n);

  /** Parses a plain decimal ("12.345", "-0.5", "7"); no exponents. */
  static parse(text: string): Rational {
    const m = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
    if (!m) throw new RangeError(`Rational.parse: not a plain decimal: ${JSON.stringify(text)}`);
    const frac = m[3] ?? '';
    const n = BigInt(m[2] + frac) * (m[1] ? -1n : 1n);
    return Rational.of(n, pow10(frac.length));
  }

  plus(o: Rational) {
    return Rational.of(this.num * o.den + o.num * this.den, this.den * o.den);
  }
  minus(o: Rational) {
    return Rational.of(this.num * o.den - o.num * this.den, this.den * o.den);
  }
  times(o: Rational) {
    return Rational.of(this.num * o.num, this.den * o.den);
  }
  div(o: Rational) {
    if (o.num === 0n) throw new RangeError('Rational: division by zero');
    return Rational.of(this.num * o.den, this.den * o.num);
  }
  neg() {
    return Rational.of(-this.num, this.den);
  }
  cmp(o: Rational): -1 | 0 | 1 {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  eq(o: Rational) {
    return this.cmp(o) === 0;
  }
  lt(o: Rational) {
    return this.cmp(o) < 0;
  }
  gt(o: Rational) {
    return this.cmp(o) > 0;
  }
  isZero() {
    return this.num === 0n;
  }
  sign() {
    return this.num < 0n ? -1 : this.num > 0n ? 1 : 0;
  }
  min(o: Rational) {
    return this.cmp(o) <= 0 ? this : o;
  }
  abs() {
    return this.num < 0n ? this.neg() : this;
  }

  /** Whether the value is a whole number of 10^-places. */
  fitsPlaces(places: number) {
    return (this.num * pow10(places)) % this.den === 0n;
  }

  /** Rounded to `places` decimals, half away from zero (2.345 → 2.35, −2.345 → −2.35). */
  roundHalfAwayFromZero(places: number): Rational {
    roundingStats.roundings++;
    const scaled = abs(this.num) * pow10(places);
    let q = scaled / this.den;
    const twiceRest = 2n * (scaled % this.den);
    if (twiceRest === this.den) roundingStats.ties++;
    if (twiceRest >= this.den) q += 1n;
    return Rational.of(this.num < 0n ? -q : q, pow10(places));
  }

  /** Exact decimal text with exactly `places` decimals; throws when the value needs more. */
  toFixed(places: number): string {
    if (!this.fitsPlaces(places)) throw new RangeError(`Rational.toFixed: ${this.toString()} does not fit ${places} decimals`);
    const scaled = (this.num * pow10(places)) / this.den;
    const digits = abs(scaled)
      .toString()
      .padStart(places + 1, '0');
    const int = digits.slice(0, digits.length - places);
    const frac = places > 0 ? `.${digits.slice(digits.length - places)}` : '';
    return `${scaled < 0n ? '-' : ''}${int}${frac}`;
  }

  /** Exact decimal text when the value has at most 40 decimals ("0.13", "75.455"), else "num/den". */
  toString() {
    for (let places = 0; places <= 40; places++) {
      if (this.fitsPlaces(places)) return this.toFixed(places);
    }
    return `${this.num}/${this.den}`;
  }
}

export const sumOf = (values: Rational[]) => values.reduce((a, b) => a.plus(b), Rational.ZERO);

// ---------------------------------------------------------------------------------------------
// Currencies (ISO 4217 minor units, for the three currencies the oracle covers)
// ---------------------------------------------------------------------------------------------

export const MINOR_UNITS = { USD: 2, JPY: 0, BHD: 3 } as const;
export type ModelCurrency = keyof typeof MINOR_UNITS;

// ---------------------------------------------------------------------------------------------
// Calendar
// ---------------------------------------------------------------------------------------------

export interface Ymd {
  y: number;
  m: number; // 1-12
  d: number;
}

const leap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
export const monthLength = (y: number, m: number) => (m === 2 && leap(y) ? 29 : MONTH_LENGTHS[m - 1]);

export function parseYmd(text: string): Ymd {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) throw new RangeError(`not a date: ${text}`);
  const ymd = { y: Number(m[1]), m: Number(m[2]), d: Number(m[3]) };
  if (ymd.m < 1 || ymd.m > 12 || ymd.d < 1 || ymd.d > monthLength(ymd.y, ymd.m)!) throw new RangeError(`not a date: ${text}`);
  return ymd;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');
export const formatYmd = ({ y, m, d }: Ymd) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;

/** Days since 0001-01-01 (proleptic Gregorian): whole years before, whole months before, then days. */
export function dayCount({ y, m, d }: Ymd): number {
  const yb = y - 1;
  let days = 365 * yb + Math.floor(yb / 4) - Math.floor(yb / 100) + Math.floor(yb / 400);
  for (let month = 1; month < m; month++) days += monthLength(y, month)!;
  return days + d - 1;
}

export const daysFromTo = (from: Ymd, to: Ymd) => dayCount(to) - dayCount(from);
const sameDate = (a: Ymd, b: Ymd) => a.y === b.y && a.m === b.m && a.d === b.d;
const before = (a: Ymd, b: Ymd) => dayCount(a) < dayCount(b);

/** The month `k` months after (y, m) (k may be negative), on `day` clamped to that month's length. */
export function monthsLater(y: number, m: number, k: number, day: number): Ymd {
  let year = y;
  let month = m + k;
  while (month > 12) {
    month -= 12;
    year++;
  }
  while (month < 1) {
    month += 12;
    year--;
  }
  return { y: year, m: month, d: Math.min(day, monthLength(year, month)!) };
}

/** `date` + n days (n ≥ 0), one day at a time. */
export function addDaysTo(date: Ymd, n: number): Ymd {
  let { y, m, d } = date;
  for (let i = 0; i < n; i++) {
    d++;
    if (d > monthLength(y, m)!) {
      d = 1;
      m++;
      if (m > 12) {
        m = 1;
        y++;
      }
    }
  }
  return { y, m, d };
}

// ---------------------------------------------------------------------------------------------
// Input and output of the model (plain values; money as decimal strings)
// ---------------------------------------------------------------------------------------------

export interface ModelProduct {
  productCode: string;
  name: string;
  quantity: string;
  unitPrice: string;
  setupFee?: string | null;
  included: boolean;
  discount?: { kind: 'Percentage' | 'Amount'; value: string } | null;
}

export interface ModelCoupon {
  code: string;
  name?: string | null;
  kind: 'Percentage' | 'Amount';
  value: string;
  duration: 'Once' | 'Periods' | 'Forever';
  periods?: number | null;
  periodsUsed: number;
  /** The first service day of the period its last use discounted (plan changes read it). */
  lastUsedOn?: string | null;
  /** The end (exclusive) of that period. */
  lastUsedUntil?: string | null;
}

export interface ModelSubscription {
  subscriptionId: number;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  isProrated: boolean;
  products: ModelProduct[];
  coupons: ModelCoupon[];
  isFirstInvoice: boolean;
  periodStart: string;
  anchorDay?: number | null;
}

export interface ModelRule {
  type: 'CustomerActivation' | 'FirstSubscriptionActivation' | 'SpecifiedDate';
  rule: 'SingleInvoice' | 'MultipleInvoices' | 'OneInvoicePerDay' | 'Prompt';
  day?: number | null;
  month?: number | null;
}

export interface ModelInput {
  currency: ModelCurrency;
  effectiveDate: string;
  term: string;
  subscriptions: ModelSubscription[];
  billingPeriods: { Monthly?: ModelRule; Yearly?: ModelRule };
  taxRates: Array<{ name: string; rate: string }>;
  showZeroDollarCharges: boolean;
  rollUpTaxes: boolean;
  rollUpDiscounts: boolean;
  /** One-time purchases (README "Purchases"): billed on the first invoice, or on one of their own. */
  purchases?: ModelPurchase[];
}

export interface ModelPurchase {
  purchaseId: number;
  productCode: string;
  name: string;
  quantity: string;
  unitPrice: string;
}

export interface ModelDiscount {
  name: string;
  amount: Rational;
}

export interface ModelCharge {
  /** null: a purchase's line. */
  subscriptionId: number | null;
  productCode: string;
  kind: 'Recurring' | 'SetupFee' | 'Purchase';
  name: string;
  /** Exact unitPrice × proration factor (the engine keeps 40 significant digits of it). */
  proratedUnitPrice: Rational;
  amount: Rational;
  discounts: ModelDiscount[];
  taxableAmount: Rational;
  startServiceDate: string;
  endServiceDate: string;
}

export interface ModelTax {
  name: string;
  rate: Rational;
  amount: Rational;
}

export interface ModelInvoice {
  subscriptionIds: number[];
  dueDate: string;
  charges: ModelCharge[];
  subtotal: Rational;
  totalDiscount: Rational;
  taxes: ModelTax[];
  totalTaxes: Rational;
  total: Rational;
  nextPeriodStart: Record<number, string>;
  couponsApplied: Record<number, string[]>;
}

export interface ModelPeriod {
  start: string;
  end: string;
  fullStart: string;
  partial: boolean;
  days: number;
  fullDays: number;
}

// ---------------------------------------------------------------------------------------------
// Billing periods
// ---------------------------------------------------------------------------------------------

const DEFAULT_RULE: ModelRule = { type: 'CustomerActivation', rule: 'SingleInvoice' };
const ruleOf = (s: ModelSubscription, input: ModelInput) => input.billingPeriods[s.interval] ?? DEFAULT_RULE;
const monthsPer = (interval: 'Monthly' | 'Yearly') => (interval === 'Yearly' ? 12 : 1);

/** The period billed from `periodStart` (README "Billing periods"). */
export function modelPeriod(
  periodStart: string,
  interval: 'Monthly' | 'Yearly',
  numberOfIntervals: number,
  rule: ModelRule = DEFAULT_RULE,
  anchorDay?: number | null,
): ModelPeriod {
  const start = parseYmd(periodStart);
  const step = monthsPer(interval);
  if (rule.type !== 'SpecifiedDate') {
    // Anniversary: numberOfIntervals months/years later, on the remembered anniversary day, clamped.
    const end = monthsLater(start.y, start.m, numberOfIntervals * step, anchorDay ?? start.d);
    const days = daysFromTo(start, end);
    return { start: periodStart, end: formatYmd(end), fullStart: periodStart, partial: false, days, fullDays: days };
  }
  const day = rule.day!;
  // Billing dates: day `day` (clamped) of every month, or of month `rule.month` only for Yearly.
  const isBillingMonth = (m: number) => interval === 'Monthly' || m === rule.month;
  // The first billing date strictly after periodStart: walk the months from periodStart's month.
  let first: Ymd | undefined;
  for (let k = 0; k <= 12 && !first; k++) {
    const candidate = monthsLater(start.y, start.m, k, day);
    if (isBillingMonth(candidate.m) && before(start, candidate)) first = candidate;
  }
  if (!first) throw new Error('model: no billing date within a year');
  // … moved on by numberOfIntervals − 1 intervals; the full period is the numberOfIntervals
  // intervals that end there.
  const end = monthsLater(first.y, first.m, (numberOfIntervals - 1) * step, day);
  const fullStart = monthsLater(end.y, end.m, -numberOfIntervals * step, day);
  return {
    start: periodStart,
    end: formatYmd(end),
    fullStart: formatYmd(fullStart),
    partial: !sameDate(fullStart, start),
    days: daysFromTo(start, end),
    fullDays: daysFromTo(fullStart, end),
  };
}

// ---------------------------------------------------------------------------------------------
// Due date
// ---------------------------------------------------------------------------------------------

export function modelDueDate(effectiveDate: string, term: string): string {
  const date = parseYmd(effectiveDate);
  if (term === 'MFI1') return formatYmd(monthsLater(date.y, date.m, 1, 1));
  const m = /^Net(\d+)$/.exec(term);
  if (!m) throw new RangeError(`model: unknown term ${term}`);
  return formatYmd(addDaysTo(date, Number(m[1])));
}

// ---------------------------------------------------------------------------------------------
// Invoices
// ---------------------------------------------------------------------------------------------

interface WorkLine extends ModelCharge {
  factor: Rational;
  product: ModelProduct;
}

const left = (line: WorkLine) => line.amount.minus(sumOf(line.discounts.map((x) => x.amount)));

function couponActive(c: ModelCoupon): boolean {
  if (c.duration === 'Once') return c.periodsUsed === 0;
  if (c.duration === 'Periods') return c.periodsUsed < (c.periods ?? 0);
  return true;
}

/**
 * The README's Amount-coupon split: `value` over the lines in proportion to what is left on each;
 * each share rounded half away from zero; the rounding remainder (either sign) to the line with
 * the most left (the first on a tie), the rest, if that line cannot take it all without going
 * below zero or beyond what is left on it, to the next largest, and so on. The parts add up to
 * the value, or to everything left when that is less.
 */
export function modelSplit(value: Rational, lefts: Rational[], places: number): Rational[] {
  const total = sumOf(lefts);
  if (total.isZero() || value.isZero()) return lefts.map(() => Rational.ZERO);
  const target = value.min(total);
  const parts = lefts.map((l) => target.times(l).div(total).roundHalfAwayFromZero(places));
  let remainder = target.minus(sumOf(parts));
  const byMostLeft = lefts.map((_, i) => i).sort((a, b) => lefts[b]!.cmp(lefts[a]!) || a - b);
  for (const i of byMostLeft) {
    if (remainder.isZero()) break;
    const room = remainder.sign() > 0 ? lefts[i]!.minus(parts[i]!) : parts[i];
    const move = remainder.abs().min(room!);
    const signed = remainder.sign() > 0 ? move : move.neg();
    parts[i] = parts[i]!.plus(signed);
    remainder = remainder.minus(signed);
  }
  return parts;
}

/** Adds a discount capped at what is left on the line; a discount that comes to 0 is not listed. */
function discount(line: WorkLine, name: string, amount: Rational) {
  const capped = amount.min(left(line));
  if (capped.sign() > 0) line.discounts.push({ name, amount: capped });
}

function subscriptionLines(s: ModelSubscription, input: ModelInput) {
  const places = MINOR_UNITS[input.currency];
  const round = (x: Rational) => x.roundHalfAwayFromZero(places);
  const period = modelPeriod(s.periodStart, s.interval, s.numberOfIntervals, ruleOf(s, input), s.anchorDay);
  // Proration: a partial period on a prorated frequency charges days / fullDays of the price.
  const factor = s.isProrated && period.partial ? Rational.of(period.days, period.fullDays) : Rational.ONE;

  const lines: WorkLine[] = [];
  const make = (p: ModelProduct, kind: 'Recurring' | 'SetupFee', price: Rational, f: Rational): WorkLine => {
    // quantity × unitPrice × days / fullDays, rounded once.
    const amount = round(Rational.parse(p.quantity).times(price).times(f));
    return {
      subscriptionId: s.subscriptionId,
      productCode: p.productCode,
      kind,
      name: kind === 'SetupFee' ? `${p.name} (setup fee)` : p.name,
      proratedUnitPrice: price.times(f),
      amount,
      discounts: [],
      taxableAmount: amount,
      startServiceDate: period.start,
      endServiceDate: period.end,
      factor: f,
      product: p,
    };
  };
  for (const p of s.products) {
    if (!p.included) continue;
    lines.push(make(p, 'Recurring', Rational.parse(p.unitPrice), factor));
    const fee = p.setupFee == null ? Rational.ZERO : Rational.parse(p.setupFee);
    // Setup fees: first invoice only, never prorated; null/undefined/0 gives no line.
    if (s.isFirstInvoice && !fee.isZero()) lines.push(make(p, 'SetupFee', fee, Rational.ONE));
  }
  // showZeroDollarCharges false drops every line whose amount (before discounts) is 0.
  const shown = input.showZeroDollarCharges ? lines : lines.filter((l) => !l.amount.isZero());
  const recurring = shown.filter((l) => l.kind === 'Recurring');

  // Product discounts first (Percentage of the line amount, or Amount per period prorated with the
  // line's factor), each rounded, then the active coupons in input order.
  for (const line of recurring) {
    const d = line.product.discount;
    if (!d) continue;
    const value = Rational.parse(d.value);
    discount(
      line,
      'Product discount',
      round(d.kind === 'Percentage' ? line.amount.times(value).div(Rational.HUNDRED) : value.times(line.factor)),
    );
  }
  const applied: string[] = [];
  // README: a subscription whose recurring lines are all dropped uses up no coupon.
  for (const c of recurring.length > 0 ? s.coupons : []) {
    if (!couponActive(c)) continue;
    applied.push(c.code);
    // README: "its name, else its code"; an empty name counts as no name.
    const name = c.name ? c.name : c.code;
    const value = Rational.parse(c.value);
    if (c.kind === 'Percentage') {
      // Of the amount before any discount: stacked percentages add up, not compound.
      for (const line of recurring) discount(line, name, round(line.amount.times(value).div(Rational.HUNDRED)));
    } else {
      // README: silent on a coupon value finer than the minor unit (JPY 10.5, USD 0.005): "the parts
      // add up exactly to the coupon value" cannot hold then. The model takes the value rounded
      // half away from zero to the minor unit first (as every other amount), which is also what
      // the engine does; the oracle's generators give such values now and then.
      const parts = modelSplit(round(value), recurring.map(left), places);
      for (const [i, line] of recurring.entries()) discount(line, name, parts[i]!);
    }
  }
  for (const line of shown) line.taxableAmount = left(line);
  return { lines: shown, next: period.end, applied };
}

/** What the engine should return for `input` (README "Rules"). */
export function modelInvoices(input: ModelInput): ModelInvoice[] {
  const places = MINOR_UNITS[input.currency];
  const sorted = [...input.subscriptions].sort((a, b) => a.subscriptionId - b.subscriptionId);
  // Grouping: MultipleInvoices → one invoice per subscription; every other rule shares one
  // invoice (Monthly and Yearly together). Invoices in order of their first subscription id.
  const groups: ModelSubscription[][] = [];
  let shared: ModelSubscription[] | undefined;
  for (const s of sorted) {
    if (ruleOf(s, input).rule === 'MultipleInvoices') groups.push([s]);
    else if (shared) shared.push(s);
    else {
      shared = [s];
      groups.push(shared);
    }
  }

  const invoices = groups.map((group) => {
    const charges: ModelCharge[] = [];
    const nextPeriodStart: Record<number, string> = {};
    const couponsApplied: Record<number, string[]> = {};
    for (const s of group) {
      const { lines, next, applied } = subscriptionLines(s, input);
      for (const { factor: _f, product: _p, ...charge } of lines) {
        if (input.rollUpDiscounts && charge.discounts.length > 0) {
          charge.discounts = [{ name: 'Discounts', amount: sumOf(charge.discounts.map((x) => x.amount)) }];
        }
        charges.push(charge);
      }
      nextPeriodStart[s.subscriptionId] = next;
      couponsApplied[s.subscriptionId] = applied;
    }
    return { subscriptionIds: group.map((s) => s.subscriptionId), charges, nextPeriodStart, couponsApplied };
  });
  // Purchases: quantity × unit price rounded once, never discounted, always shown, dated the invoice day,
  // after the plan lines of the first invoice (or alone on an invoice of their own), ascending purchase id.
  const purchases = [...(input.purchases ?? [])].sort((a, b) => a.purchaseId - b.purchaseId);
  if (purchases.length > 0) {
    if (invoices.length === 0) invoices.push({ subscriptionIds: [], charges: [], nextPeriodStart: {}, couponsApplied: {} });
    for (const p of purchases) {
      const unitPrice = Rational.parse(p.unitPrice);
      const amount = Rational.parse(p.quantity).times(unitPrice).roundHalfAwayFromZero(places);
      invoices[0]!.charges.push({
        subscriptionId: null,
        productCode: p.productCode,
        kind: 'Purchase',
        name: p.name,
        proratedUnitPrice: unitPrice,
        amount,
        discounts: [],
        taxableAmount: amount,
        startServiceDate: input.effectiveDate,
        endServiceDate: input.effectiveDate,
      });
    }
  }
  return invoices.map(({ subscriptionIds, charges, nextPeriodStart, couponsApplied }) => {
    const subtotal = sumOf(charges.map((c) => c.amount));
    const totalDiscount = sumOf(charges.flatMap((c) => c.discounts.map((x) => x.amount)));
    // Each rate on the invoice's total taxable amount, rounded once per rate.
    const taxable = sumOf(charges.map((c) => c.taxableAmount));
    let taxes: ModelTax[] = input.taxRates.map((t) => {
      const rate = Rational.parse(t.rate);
      return { name: t.name, rate, amount: taxable.times(rate).roundHalfAwayFromZero(places) };
    });
    if (input.rollUpTaxes && taxes.length > 0) {
      taxes = [{ name: 'Tax', rate: sumOf(taxes.map((t) => t.rate)), amount: sumOf(taxes.map((t) => t.amount)) }];
    }
    const totalTaxes = sumOf(taxes.map((t) => t.amount));
    return {
      subscriptionIds,
      dueDate: modelDueDate(input.effectiveDate, input.term),
      charges,
      subtotal,
      totalDiscount,
      taxes,
      totalTaxes,
      total: subtotal.minus(totalDiscount).plus(totalTaxes),
      nextPeriodStart,
      couponsApplied,
    };
  });
}
