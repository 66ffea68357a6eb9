import currencyCodes from 'currency-codes';

/** ISO 4217 data (currency-codes package): minor unit digits and numeric code of a currency. */
export interface CurrencyInfo {
  code: string;
  numericCode: number;
  minorUnits: number;
  name: string;
}

export function findCurrency(code: string): CurrencyInfo | undefined {
  const found = currencyCodes.code(code.toUpperCase());
  if (!found) return undefined;
  return {
    code: found.code,
    numericCode: Number(found.number),
    minorUnits: found.digits,
    name: found.currency,
  };
}

export function findCurrencyByNumber(numericCode: number): CurrencyInfo | undefined {
  const found = currencyCodes.number(String(numericCode).padStart(3, '0'));
  return found ? findCurrency(found.code) : undefined;
}
