import { cardBrand, passesLuhn } from './card-brand.js';

/** The network from the number, for the checkout widget to name it as the shopper types. */
export { cardBrand, type CardBrand } from './card-brand.js';

export interface CardInput {
  cardNumber: string;
  expirationMonth: number;
  expirationYear: number;
  cvv: string;
}

export type CardField = 'cardNumber' | 'expirationMonth' | 'expirationYear' | 'cvv';

/** The error codes of `cardProblem` (refusals/error-codes.ts), literal here: this file stays free of imports the browser would bundle. */
export type CardProblemCode = 'card_invalid' | 'card_expired';

export interface CardProblem {
  field: CardField;
  message: string;
  /** What a client branches on: `card_expired` for a past expiry, `card_invalid` for a value of bad form. */
  code: CardProblemCode;
}

/**
 * Whether a card can be valid before any gateway call: digits and Luhn, month
 * 1-12, a two-digit year not in the past, a CVV of the network's length (4 for
 * American Express, else 3). Pure and free of Node imports: the checkout widget
 * runs the same rules in the shopper's browser. Returns the first problem found.
 */
export function cardProblem(card: CardInput, now = new Date()): CardProblem | undefined {
  const number = normalizeCardNumber(card.cardNumber);
  if (!/^\d{12,19}$/.test(number) || !passesLuhn(number))
    return { field: 'cardNumber', message: 'not a valid card number', code: 'card_invalid' };
  if (!Number.isInteger(card.expirationMonth) || card.expirationMonth < 1 || card.expirationMonth > 12) {
    return { field: 'expirationMonth', message: 'must be 1-12', code: 'card_invalid' };
  }
  if (!Number.isInteger(card.expirationYear) || card.expirationYear < 0 || card.expirationYear > 99) {
    return { field: 'expirationYear', message: 'must be two digits (YY)', code: 'card_invalid' };
  }
  const fullYear = 2000 + card.expirationYear;
  const thisYear = now.getUTCFullYear();
  if (fullYear < thisYear || (fullYear === thisYear && card.expirationMonth < now.getUTCMonth() + 1)) {
    return { field: 'expirationYear', message: 'the card has expired', code: 'card_expired' };
  }
  const length = cvvLength(number);
  if (!new RegExp(`^\\d{${length}}$`).test(card.cvv)) return { field: 'cvv', message: `must be ${length} digits`, code: 'card_invalid' };
  return undefined;
}

export function normalizeCardNumber(cardNumber: string): string {
  return cardNumber.replace(/[\s-]/g, '');
}

export function cvvLength(number: string): 3 | 4 {
  return cardBrand(normalizeCardNumber(number)) === 'AmericanExpress' ? 4 : 3;
}
