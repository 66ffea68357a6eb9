import { configureLocalization, msg } from '@lit/localize';
import { ENGLISH, type MessageId } from './english.js';

export type { LocaleTemplates, MessageId } from './english.js';
/** A merchant's own words, per language: `{ en: { 'summary.total': 'To pay now' }, fr: { … } }`. */
export type CheckoutMessages = Partial<Record<CheckoutLocale | string, Partial<Record<MessageId, string>>>>;

export const SOURCE_LOCALE = 'en';
export const TARGET_LOCALES = ['fr', 'de', 'es'] as const;
export type CheckoutLocale = typeof SOURCE_LOCALE | (typeof TARGET_LOCALES)[number];

/**
 * @lit/localize in runtime mode: English is built in, every other language is a
 * chunk of its own loaded when a shopper needs it, so the first load does not grow
 * with the number of languages. The locale is the page's (one checkout per page).
 */
const { getLocale, setLocale } = configureLocalization({
  sourceLocale: SOURCE_LOCALE,
  targetLocales: TARGET_LOCALES,
  loadLocale: (locale) => {
    switch (locale) {
      case 'fr':
        return import('./locales/fr.js');
      case 'de':
        return import('./locales/de.js');
      default:
        return import('./locales/es.js');
    }
  },
});

let overrides: Partial<Record<MessageId, string>> = {};
/** The BCP 47 tag amounts and dates are formatted with: the one asked for (fr-CA), in the language of the words. */
let formattingTag = 'en';

/**
 * The language for this shopper: the element's `lang`, else the page's `<html lang>`, else the
 * browser's languages in order, else English. A region is kept for formatting (fr-CA, en-GB).
 */
export function chooseLocale(
  elementLang: string | null,
  pageLang: string,
  browserLanguages: readonly string[],
): { locale: CheckoutLocale; tag: string } {
  const supported = [SOURCE_LOCALE, ...TARGET_LOCALES] as readonly string[];
  for (const tag of [elementLang, pageLang, ...browserLanguages]) {
    if (!tag) continue;
    const language = tag.trim().toLowerCase().split('-')[0];
    if (language && supported.includes(language)) return { locale: language as CheckoutLocale, tag: tag.trim() };
  }
  return { locale: SOURCE_LOCALE, tag: SOURCE_LOCALE };
}

/** Switches every checkout element on the page to this language (loading it first), with the merchant's words for it. */
export async function useLocale(chosen: { locale: CheckoutLocale; tag: string }, messages: CheckoutMessages | undefined): Promise<void> {
  overrides = { ...messages?.[chosen.locale] };
  formattingTag = chosen.tag;
  await setLocale(chosen.locale);
}

export function currentLocale(): CheckoutLocale {
  return getLocale() as CheckoutLocale;
}

/** The string `id` in the shopper's language (the merchant's override first), `{0}`, `{1}`… filled in. */
export function t(id: MessageId, ...values: Array<string | number>): string {
  const template = overrides[id] ?? msg(ENGLISH[id], { id });
  return template.replace(/\{(\d+)\}/g, (whole, index: string) => String(values[Number(index)] ?? whole));
}

/** A decimal-string amount, exactly (Intl takes the string as is: no float on the way), in the shopper's language. */
export function formatMoney(amount: string, currency: string): string {
  return new Intl.NumberFormat(formattingTag, { style: 'currency', currency }).format(amount as unknown as number); // a decimal string: Intl reads it exactly (ES2023), typed as a number for older libs;
}

/** A price per unit, which may be finer than the currency's minor unit (0.002 USD a call): up to 6 decimals shown. */
export function formatUnitPrice(amount: string, currency: string): string {
  return new Intl.NumberFormat(formattingTag, { style: 'currency', currency, maximumFractionDigits: 6 }).format(
    amount as unknown as number,
  );
}

/** A count in the shopper's language (1,000; 1 000; 1.000). */
export function formatCount(count: number): string {
  return new Intl.NumberFormat(formattingTag).format(count);
}

/** A calendar date (YYYY-MM-DD, as the billing API gives it) in the shopper's language, without time zone shifts. */
export function formatDate(date: string): string {
  return new Intl.DateTimeFormat(formattingTag, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${date}T00:00:00Z`));
}

export function periodLabel(period: { interval: 'Monthly' | 'Yearly'; numberOfIntervals: number }): string {
  const yearly = period.interval === 'Yearly';
  if (period.numberOfIntervals === 1) return t(yearly ? 'period.year' : 'period.month');
  return t(yearly ? 'period.years' : 'period.months', period.numberOfIntervals);
}
