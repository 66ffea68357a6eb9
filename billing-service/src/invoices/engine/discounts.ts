import type { Decimal } from 'decimal.js';
import { money, roundToCurrency, sumMoney, type Money } from '../../money/money.js';
import { prorate, type ProrationFactor } from './proration.js';
import type { DraftDiscount, EngineCoupon, EngineProduct } from './types.js';

/** Name of a product-level discount entry. */
export const PRODUCT_DISCOUNT_NAME = 'Product discount';
/** Name of the single entry per line when discounts are rolled up. */
export const ROLLED_UP_DISCOUNT_NAME = 'Discounts';

/** A recurring line being discounted: its rounded amount, its discounts so far, its proration. */
export interface DiscountableLine {
  amount: Money;
  discounts: DraftDiscount[];
  factor: ProrationFactor;
}

/**
 * Whether a coupon applies on this invoice: Once while periodsUsed is 0, Periods while
 * periodsUsed < periods, Forever always.
 */
export function couponIsActive(coupon: EngineCoupon): boolean {
  switch (coupon.duration) {
    case 'Once':
      return coupon.periodsUsed === 0;
    case 'Periods':
      return coupon.periodsUsed < (coupon.periods ?? 0);
    case 'Forever':
      return true;
  }
}

/** The part of a line's amount not yet discounted. */
export function remainingAmount(line: DiscountableLine): Money {
  return line.amount.minus(sumMoney(line.discounts.map((d) => d.amount)));
}

/** Adds a discount to a line, capped so the line does not go below zero; zero amounts are not recorded. */
function addDiscount(line: DiscountableLine, name: string, amount: Money) {
  const capped = minOf(amount, remainingAmount(line));
  if (capped.gt(0)) line.discounts.push({ name, amount: capped });
}

function minOf(a: Money, b: Money): Money {
  return a.lte(b) ? a : b;
}

/** value % of the line amount (value 10 = 10 %), rounded to the minor unit, capped at what is left. */
export function applyPercentage(line: DiscountableLine, name: string, percent: Decimal, currency: string) {
  addDiscount(line, name, roundToCurrency(line.amount.times(percent).dividedBy(100), currency));
}

/**
 * A product discount: Percentage of the line amount, or Amount off the line per period (prorated
 * with the line's factor on a partial prorated period, then rounded), capped at what is left.
 */
export function applyProductDiscount(line: DiscountableLine, discount: NonNullable<EngineProduct['discount']>, currency: string) {
  if (discount.kind === 'Percentage') applyPercentage(line, PRODUCT_DISCOUNT_NAME, discount.value, currency);
  else addDiscount(line, PRODUCT_DISCOUNT_NAME, roundToCurrency(prorate(discount.value, line.factor), currency));
}

/**
 * Splits `total` (rounded to the minor unit) over lines proportionally to their `capacities`
 * (rounded, ≥ 0): at most Σ capacities is allocated; each part is the exact share rounded half
 * away from zero; the rounding remainder goes to the line with the largest capacity (the first
 * on ties), spilling to the next largest only when a part would leave [0, its capacity].
 * The parts add up exactly to min(total, Σ capacities) and part i ≤ capacities[i].
 */
export function allocateProportionally(total: Decimal, capacities: Decimal[], currency: string): Money[] {
  const caps = capacities.map((c) => money(c));
  const sumCaps = sumMoney(caps);
  if (!sumCaps.gt(0) || !money(total).gt(0)) return caps.map(() => money(0));
  const target = minOf(roundToCurrency(money(total), currency), sumCaps);
  const parts = caps.map((c) => roundToCurrency(target.times(c).dividedBy(sumCaps), currency));
  let remainder = target.minus(sumMoney(parts));
  const order = caps.map((cap, i) => ({ cap, i })).sort((a, b) => b.cap.comparedTo(a.cap) || a.i - b.i);
  for (const { cap, i } of order) {
    if (remainder.isZero()) break;
    const part = parts[i];
    if (part === undefined) throw new Error('allocateProportionally: one part per capacity');
    // Positive remainder: add up to the line's room; negative: take back down to zero.
    const change = remainder.gt(0) ? minOf(remainder, cap.minus(part)) : minOf(remainder.negated(), part).negated();
    parts[i] = part.plus(change);
    remainder = remainder.minus(change);
  }
  return parts;
}

/** An Amount coupon: its value once per invoice, spread over the lines by what is left on each. */
export function applyAmountCoupon(lines: DiscountableLine[], name: string, value: Decimal, currency: string) {
  const parts = allocateProportionally(value, lines.map(remainingAmount), currency);
  for (const [i, line] of lines.entries()) {
    const part = parts[i];
    if (part === undefined) throw new Error('allocateProportionally answers one part per line');
    addDiscount(line, name, part);
  }
}

/**
 * Discounts of one subscription's recurring lines on one invoice: each line's product discount
 * first, then the active coupons in order. Returns the codes of the coupons applied (none without
 * a recurring line).
 */
export function applySubscriptionDiscounts(
  lines: Array<DiscountableLine & { product: EngineProduct }>,
  coupons: EngineCoupon[],
  currency: string,
): string[] {
  // No recurring line on this invoice (every line dropped): nothing for a coupon to discount, so none is used up.
  if (lines.length === 0) return [];
  for (const line of lines) if (line.product.discount) applyProductDiscount(line, line.product.discount, currency);
  const applied: string[] = [];
  for (const coupon of coupons) {
    if (!couponIsActive(coupon)) continue;
    applied.push(coupon.code);
    const name = coupon.name || coupon.code;
    if (coupon.kind === 'Percentage') for (const line of lines) applyPercentage(line, name, coupon.value, currency);
    else applyAmountCoupon(lines, name, coupon.value, currency);
  }
  return applied;
}

/** rollUpDiscounts: one entry named "Discounts" with the summed amount (none when the line has no discount). */
export function rollUpDiscounts(discounts: DraftDiscount[]): DraftDiscount[] {
  if (discounts.length === 0) return [];
  return [{ name: ROLLED_UP_DISCOUNT_NAME, amount: sumMoney(discounts.map((d) => d.amount)) }];
}
