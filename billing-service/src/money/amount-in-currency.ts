import { Refusal } from '../refusals/refusal.js';
import { minorUnits, money, type Money } from './money.js';

/** The amount as money, refused (400 on `field`) when it has more decimals than the currency (USD 2, JPY 0). */
export function amountInCurrency(amount: string | number, currency: string, field: string): Money {
  const value = money(amount);
  const decimals = minorUnits(currency);
  if (value.decimalPlaces() > decimals)
    throw Refusal.invalid(`${currency} amounts have at most ${decimals} decimals`, field, 'value_invalid');
  return value;
}
