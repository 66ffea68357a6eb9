import { de } from './portal-words/de.js';
import { en, type PortalText } from './portal-words/en.js';
import { es } from './portal-words/es.js';
import { fr } from './portal-words/fr.js';

export type { PortalText } from './portal-words/en.js';

/**
 * The portal pages' words in the four portal languages (the widget's and the card fields' languages), one file each in portal-words/.
 * Pure data: the page's script picks one table; amounts and dates are formatted by Intl in that language.
 * `{0}`, `{1}`… are filled in by `say`.
 */
export const PORTAL_LANGUAGES = ['en', 'fr', 'de', 'es'] as const;
export type PortalLanguage = (typeof PORTAL_LANGUAGES)[number];

const TABLES: Record<PortalLanguage, PortalText> = { en, fr, de, es };

export function portalLanguageOf(tag: string | null | undefined): PortalLanguage {
  const primary = (tag ?? '').trim().slice(0, 2).toLowerCase();
  return (PORTAL_LANGUAGES as readonly string[]).includes(primary) ? (primary as PortalLanguage) : 'en';
}

export function portalText(language: PortalLanguage): PortalText {
  return TABLES[language];
}

/** A table's string with `{0}`, `{1}`… filled in. */
export function say(template: string, ...values: Array<string | number>): string {
  return template.replace(/\{(\d+)\}/g, (whole, index: string) => String(values[Number(index)] ?? whole));
}
