import { Decimal } from 'decimal.js';
import { findCurrency } from '../catalog/currencies.js';

/**
 * Money is decimal.js in code and `numeric` in the database, never a float.
 *
 * Rounding rule (one for every currency): round half away from zero to the
 * currency's ISO 4217 minor unit (USD 2 places, JPY 0, BHD 3). Amounts leave
 * the service as JSON numbers, converted only at the very end.
 */
export const MoneyDecimal = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

export function money(value: Decimal.Value): Money {
  return new MoneyDecimal(value);
}

export function minorUnits(currency: string): number {
  return findCurrency(currency)?.minorUnits ?? 2;
}

export function roundToCurrency(amount: Decimal, currency: string): Money {
  return amount.toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP);
}

/** The JSON number for an amount. Exact for every amount with up to 15 significant digits. */
export function toJsonAmount(amount: Decimal | string | null | undefined): number {
  if (amount === null || amount === undefined) return 0;
  return Number(typeof amount === 'string' ? amount : amount.toString());
}

export function sumMoney(values: Iterable<Decimal.Value>): Money {
  let total = money(0);
  for (const v of values) total = total.plus(v);
  return total;
}
