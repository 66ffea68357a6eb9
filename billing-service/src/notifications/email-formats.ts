import type { CustomerLanguage } from '../catalog/schema.js';

/** Amounts, dates and lists written the way a language writes them (Intl), for a customer's e-mail. */
export interface EmailFormats {
  /** A decimal-string amount, exactly (Intl reads the string as is: no float on the way). */
  money(amount: string, currency: string): string;
  /** A calendar date, YYYY-MM-DD, without time zone shifts. */
  date(isoDate: string): string;
  /** A month and year (a card's expiry). */
  monthYear(month: number, year: number): string;
  quantity(value: string): string;
  /** A rate as a fraction ("0.2" is 20 %). */
  percent(rate: string): string;
  list(items: string[]): string;
}

// Intl takes decimal strings exactly (ES2023); the types of older libs only know numbers.
const exact = (value: string) => value as unknown as number;

export function emailFormats(language: CustomerLanguage): EmailFormats {
  const dates = new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' });
  const months = new Intl.DateTimeFormat(language, { month: 'long', year: 'numeric', timeZone: 'UTC' });
  return {
    money: (amount, currency) => new Intl.NumberFormat(language, { style: 'currency', currency }).format(exact(amount)),
    date: (isoDate) => dates.format(new Date(`${isoDate.slice(0, 10)}T00:00:00Z`)),
    monthYear: (month, year) => months.format(new Date(Date.UTC(year, month - 1, 1))),
    quantity: (value) => new Intl.NumberFormat(language, { maximumFractionDigits: 6 }).format(exact(value)),
    percent: (rate) => new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 4 }).format(exact(rate)),
    list: (items) => new Intl.ListFormat(language, { style: 'long', type: 'conjunction' }).format(items),
  };
}
