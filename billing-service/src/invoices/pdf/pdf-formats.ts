import { money } from '../../money/money.js';

// Intl takes decimal strings exactly (ES2023); the types of older libs only know numbers.
const exact = (value: string) => value as unknown as number;

/** Exactly `decimals` places, more if the value has them (a unit price of 0.0125). */
function places(value: string, decimals: number) {
  const digits = Math.max(decimals, money(value).decimalPlaces());
  return { minimumFractionDigits: digits, maximumFractionDigits: digits };
}

/** An amount as the language writes numbers (1,234.50 · 1 234,50 · 1.234,50), without a currency. */
export function formatAmount(value: string, decimals: number, language = 'en'): string {
  return new Intl.NumberFormat(language, places(value, decimals)).format(exact(value));
}

/** An amount with its currency as the language writes it (1 234,56 € in French, 1.234,56 € in German). */
export function formatMoney(value: string, currency: string, decimals: number, language = 'en'): string {
  return new Intl.NumberFormat(language, { style: 'currency', currency, ...places(value, decimals) }).format(exact(value));
}

/** A rate (a fraction: 0.13 is 13 %) as the language writes percentages, every decimal kept. */
export function formatRate(rate: string, language = 'en'): string {
  const digits = Math.max(0, money(rate).decimalPlaces() - 2);
  return new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: digits }).format(exact(rate));
}

export function formatQuantity(value: string, language = 'en'): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: 6 }).format(exact(value));
}

/** A calendar date (YYYY-MM-DD) in the language, without time zone shifts. */
export function formatDate(isoDate: string, language = 'en'): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`));
}

/** A country's name in the language, from its ISO 3166 alpha-2 code (the English name when Intl has none). */
export function countryName(iso: string, fallback: string, language = 'en'): string {
  return new Intl.DisplayNames(language, { type: 'region' }).of(iso) ?? fallback;
}
