import type { UsageCharge } from '../catalog/usage-schema.js';
import { money, roundToCurrency, sumMoney, type Money } from '../money/money.js';

/**
 * Pricing usage (issue 41, pure): what a quantity of a metric costs under a usage charge of the catalogue, in one
 * currency. `freeUnits` come off the quantity first; then the charge's model prices the billable units:
 * - perUnit: each unit at `unitAmount`;
 * - package: `packageAmount` per block of `packageSize` units begun (1 unit into a block bills the whole block);
 * - graduated: each unit at the price of the tier it falls in, plus a tier's `flatAmount` once when a unit falls in it;
 * - volume: every unit at the price of the tier the total falls in, plus that tier's `flatAmount` (nothing at 0 units).
 * Tier bounds are inclusive (`upTo: 1000`: units 1 to 1000). Unit prices may be finer than the currency's minor unit
 * (0.002 USD a call); the line's amount is rounded ONCE, half up, to the minor unit; the tiers keep exact amounts.
 */
export interface PricedTier {
  /** The first and last unit of the tier the billed units fall in (last null: without end). */
  from: Money;
  to: Money | null;
  units: Money;
  unitAmount: Money;
  flatAmount: Money;
  /** Exact (not rounded). */
  amount: Money;
}

export interface PricedUsage {
  quantity: Money;
  /** The quantity less the free units (never below 0). */
  billedUnits: Money;
  tiers: PricedTier[];
  /** Rounded once to the currency's minor unit. */
  amount: Money;
}

type Price = UsageCharge['prices'][number];

/** The charge's price in `currency`, or undefined when it has none (a catalogue that cannot bill that currency). */
export function usagePriceIn(charge: UsageCharge, currency: string): Price | undefined {
  return charge.prices.find((p) => p.currency === currency.toUpperCase());
}

export function priceUsage(charge: UsageCharge, quantity: Money, currency: string): PricedUsage {
  const price = usagePriceIn(charge, currency);
  if (!price) throw new Error(`usage charge on ${charge.metric} has no price in ${currency}`);
  const free = money(charge.freeUnits);
  const billedUnits = quantity.greaterThan(free) ? quantity.minus(free) : money(0);
  const tiers = tiersOf(charge, price, billedUnits);
  return { quantity, billedUnits, tiers, amount: roundToCurrency(sumMoney(tiers.map((t) => t.amount)), currency) };
}

function tiersOf(charge: UsageCharge, price: Price, units: Money): PricedTier[] {
  if (units.isZero()) return [];
  switch (charge.model) {
    case 'perUnit': {
      const unitAmount = money(price.unitAmount ?? 0);
      return [{ from: money(1), to: null, units, unitAmount, flatAmount: money(0), amount: units.times(unitAmount) }];
    }
    case 'package': {
      const size = money(charge.packageSize ?? 1);
      const blocks = units.dividedBy(size).ceil();
      const packageAmount = money(price.packageAmount ?? 0);
      return [
        {
          from: money(1),
          to: null,
          units,
          unitAmount: packageAmount.dividedBy(size),
          flatAmount: money(0),
          amount: blocks.times(packageAmount),
        },
      ];
    }
    case 'graduated':
      return graduated(price.tiers ?? [], units);
    case 'volume':
      return volume(price.tiers ?? [], units);
  }
}

function graduated(tiers: NonNullable<Price['tiers']>, units: Money): PricedTier[] {
  const priced: PricedTier[] = [];
  let lower = money(0);
  for (const tier of tiers) {
    if (!units.greaterThan(lower)) break;
    const upper = tier.upTo === null ? null : money(tier.upTo);
    const inTier = upper === null || units.lessThan(upper) ? units.minus(lower) : upper.minus(lower);
    const unitAmount = money(tier.unitAmount);
    const flatAmount = money(tier.flatAmount);
    priced.push({
      from: lower.plus(1),
      to: upper,
      units: inTier,
      unitAmount,
      flatAmount,
      amount: inTier.times(unitAmount).plus(flatAmount),
    });
    if (upper === null) break;
    lower = upper;
  }
  return priced;
}

function volume(tiers: NonNullable<Price['tiers']>, units: Money): PricedTier[] {
  let lower = money(0);
  for (const tier of tiers) {
    const upper = tier.upTo === null ? null : money(tier.upTo);
    if (upper === null || units.lessThanOrEqualTo(upper)) {
      const unitAmount = money(tier.unitAmount);
      const flatAmount = money(tier.flatAmount);
      return [{ from: lower.plus(1), to: upper, units, unitAmount, flatAmount, amount: units.times(unitAmount).plus(flatAmount) }];
    }
    lower = upper;
  }
  throw new Error('the catalogue checks that the last tier has no end');
}
