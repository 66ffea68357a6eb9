import { en, type MessageKey, type Messages } from './messages-en.js';
import { fr } from './messages-fr.js';
import { de } from './messages-de.js';
import { es } from './messages-es.js';

export const LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', fr: 'Français', de: 'Deutsch', es: 'Español' };

const TABLES: Record<Language, Messages> = { en, fr, de, es };
const STORAGE_KEY = 'renew-console-language';

function initialLanguage(): Language {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (stored && (LANGUAGES as readonly string[]).includes(stored)) return stored as Language;
  const browser = navigator.language.slice(0, 2).toLowerCase();
  return (LANGUAGES as readonly string[]).includes(browser) ? (browser as Language) : 'en';
}

let current: Language = initialLanguage();

export function language(): Language {
  return current;
}

export function setLanguage(next: Language) {
  current = next;
  localStorage.setItem(STORAGE_KEY, next);
  document.documentElement.lang = next;
}

/** The text of `key` in the chosen language, `{name}` placeholders filled from `params`. */
export function t(key: MessageKey, params: Record<string, string | number> = {}): string {
  return TABLES[current][key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** An amount in its currency, as the chosen language writes it. Amounts arrive as JSON numbers or decimal strings. */
export function money(amount: number | string | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined || amount === '') return '';
  const value = Number(amount);
  if (!currency) return new Intl.NumberFormat(current).format(value);
  return new Intl.NumberFormat(current, { style: 'currency', currency }).format(value);
}

export function number(value: number | string | null | undefined, options: Intl.NumberFormatOptions = {}): string {
  if (value === null || value === undefined || value === '') return '';
  return new Intl.NumberFormat(current, options).format(Number(value));
}

export function percent(value: number | string | null | undefined): string {
  return number(value, { style: 'percent', maximumFractionDigits: 2 });
}

/** A date and time (or a date alone) in the chosen language; UTC as the API keeps them. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  return new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeStyle: 'short' }).format(when);
}

export function date(iso: string | null | undefined): string {
  if (!iso) return '';
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  return new Intl.DateTimeFormat(current, { dateStyle: 'medium', timeZone: 'UTC' }).format(when);
}

/** "2026-11" as the chosen language names the month. */
export function month(yearMonth: string): string {
  const [year, monthNumber] = yearMonth.split('-').map(Number);
  if (!year || !monthNumber) return yearMonth;
  return new Intl.DateTimeFormat(current, { year: 'numeric', month: 'short', timeZone: 'UTC' }).format(Date.UTC(year, monthNumber - 1, 1));
}

export function roleName(role: string): string {
  const key = `role${role.charAt(0).toUpperCase()}${role.slice(1)}` as MessageKey;
  return key in en ? t(key) : role;
}
