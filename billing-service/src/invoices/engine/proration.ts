import type { Decimal } from 'decimal.js';
import { money, roundToCurrency, type Money } from '../../money/money.js';
import type { BillingPeriod } from './billing-periods.js';

/**
 * Proration factor days / fullDays, kept as two integers so every use divides once, exactly
 * (decimal.js at 40 significant digits), and rounds once.
 */
export interface ProrationFactor {
  days: number;
  fullDays: number;
}

export const FULL_PERIOD: ProrationFactor = Object.freeze({ days: 1, fullDays: 1 });

/**
 * The factor a period's recurring charges are multiplied by: days / fullDays for a partial
 * period on a prorated frequency, else 1 (a non-prorated frequency bills a partial period in full).
 */
export function prorationFactor(period: BillingPeriod, isProrated: boolean): ProrationFactor {
  if (!isProrated || !period.partial) return FULL_PERIOD;
  return { days: period.days, fullDays: period.fullDays };
}

/** value × factor, unrounded (40 significant digits). */
export function prorate(value: Decimal.Value, factor: ProrationFactor): Money {
  if (factor.days === factor.fullDays) return money(value);
  return money(value).times(factor.days).dividedBy(factor.fullDays);
}

/**
 * The line amount quantity × unitPrice × factor, with a single rounding to the currency's
 * minor unit (equal to round(quantity × prorate(unitPrice, factor)), the division done last).
 */
export function proratedAmount(quantity: Decimal.Value, unitPrice: Decimal.Value, factor: ProrationFactor, currency: string): Money {
  return roundToCurrency(prorate(money(quantity).times(unitPrice), factor), currency);
}
