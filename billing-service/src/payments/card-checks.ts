import { ApiError } from '../http/errors.js';
import { cardBrand, passesLuhn } from './gateway/card-brand.js';

export interface CardInput {
  cardNumber: string;
  expirationMonth: number;
  expirationYear: number;
  cvv: string;
}

/**
 * Checks a card can be valid before any gateway call: digits and Luhn, month
 * 1-12, a two-digit year not in the past, a CVV of the network's length (4 for
 * American Express, else 3). Returns the normalised number and four-digit year.
 */
export function checkCard(card: CardInput, now = new Date(), prefix = ''): { number: string; fullYear: number } {
  const number = card.cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !passesLuhn(number)) {
    throw ApiError.badRequest('not a valid card number', `${prefix}cardNumber`);
  }
  if (!Number.isInteger(card.expirationMonth) || card.expirationMonth < 1 || card.expirationMonth > 12) {
    throw ApiError.badRequest('must be 1-12', `${prefix}expirationMonth`);
  }
  if (!Number.isInteger(card.expirationYear) || card.expirationYear < 0 || card.expirationYear > 99) {
    throw ApiError.badRequest('must be two digits (YY)', `${prefix}expirationYear`);
  }
  const fullYear = 2000 + card.expirationYear;
  const thisYear = now.getUTCFullYear();
  const thisMonth = now.getUTCMonth() + 1;
  if (fullYear < thisYear || (fullYear === thisYear && card.expirationMonth < thisMonth)) {
    throw ApiError.badRequest('the card has expired', `${prefix}expirationYear`);
  }
  const cvvLength = cardBrand(number) === 'AmericanExpress' ? 4 : 3;
  if (!new RegExp(`^\\d{${cvvLength}}$`).test(card.cvv)) {
    throw ApiError.badRequest(`must be ${cvvLength} digits`, `${prefix}cvv`);
  }
  return { number, fullYear };
}
