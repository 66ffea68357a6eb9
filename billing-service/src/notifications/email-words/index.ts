import type { CustomerLanguage } from '../../catalog/schema.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import type { EmailWords } from './words.js';

export type { EmailWords, Message } from './words.js';

/** The words of customers' e-mails, per language (a language missing here fails the typecheck). */
export const EMAIL_WORDS: Record<CustomerLanguage, EmailWords> = { en, fr, de, es };
