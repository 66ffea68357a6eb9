import type { Decimal } from 'decimal.js';
import { money, roundToCurrency, sumMoney, type Money } from '../../money/money.js';
import type { DraftTax } from './types.js';

/** Name of the single tax entry when taxes are rolled up. */
export const ROLLED_UP_TAX_NAME = 'Tax';

/**
 * Taxes of an invoice: each rate applies to the invoice's total taxable amount, each amount is
 * rounded once to the minor unit. rollUp: one entry "Tax" with the summed rate and the summed
 * (rounded) amounts, so the total is the same either way. No rates (tax exempt): no entries.
 */
export function computeTaxes(
  taxable: Decimal,
  rates: Array<{ name: string; rate: Decimal }>,
  currency: string,
  rollUp: boolean,
): DraftTax[] {
  const taxes = rates.map((r) => ({ name: r.name, rate: money(r.rate), amount: roundToCurrency(money(taxable).times(r.rate), currency) }));
  if (!rollUp || taxes.length === 0) return taxes;
  return [{ name: ROLLED_UP_TAX_NAME, rate: sumMoney(taxes.map((t) => t.rate)), amount: sumMoney(taxes.map((t) => t.amount)) }];
}

/** Σ of tax amounts. */
export function totalOfTaxes(taxes: DraftTax[]): Money {
  return sumMoney(taxes.map((t) => t.amount));
}
