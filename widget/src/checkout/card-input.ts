/**
 * Card entry as shoppers expect it from the best checkouts: the number grouped as it
 * is typed and its brand named, the expiry in one "MM / YY" field (split into month and
 * year for the capture host). Pure functions of the text typed; the card step wires
 * them to its inputs (and moves focus on when a field is complete). Kept on its own so
 * the payment step's card fields can be swapped for hosted ones without touching the rest.
 */
import { cardBrand, cvvLength, type CardBrand } from '@renew/billing-service/card-rules';

/** How each network prints its numbers: digit groups, and the length of a complete number. */
const LAYOUTS: Record<CardBrand, { label: string; groups: number[]; length: number }> = {
  Visa: { label: 'Visa', groups: [4, 4, 4, 4], length: 16 },
  MasterCard: { label: 'Mastercard', groups: [4, 4, 4, 4], length: 16 },
  AmericanExpress: { label: 'American Express', groups: [4, 6, 5], length: 15 },
  Discover: { label: 'Discover', groups: [4, 4, 4, 4], length: 16 },
  Unknown: { label: '', groups: [4, 4, 4, 4, 3], length: 19 },
};

export function digitsOf(text: string): string {
  return text.replace(/\D/g, '');
}

/** The network of the number typed so far, and how its numbers are printed ('' label while unknown). */
export function cardLayout(text: string) {
  const digits = digitsOf(text);
  return { ...LAYOUTS[cardBrand(digits)], cvvLength: cvvLength(digits) };
}

/** "4242424242424242" -> "4242 4242 4242 4242"; "378282246310005" -> "3782 822463 10005". */
export function groupCardNumber(text: string): string {
  const brand = cardLayout(text);
  const digits = digitsOf(text).slice(0, brand.length);
  const parts: string[] = [];
  let at = 0;
  for (const size of brand.groups) {
    if (at >= digits.length) break;
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  return parts.join(' ');
}

export function cardNumberComplete(text: string): boolean {
  return digitsOf(text).length === cardLayout(text).length;
}

/** What the shopper typed in the expiry field, shown as "MM / YY": "1" stays, "2" becomes "02 / ", "1230" "12 / 30". */
export function formatExpiry(text: string, deleting = false): string {
  let digits = digitsOf(text).slice(0, 4);
  // A first digit above 1 can only be a month of one digit.
  if (/^[2-9]$/.test(digits)) digits = `0${digits}`;
  if (digits.length < 2) return digits;
  if (digits.length === 2) return deleting ? digits : `${digits} / `;
  return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
}

/** "12 / 30" (or an autofilled "12/2030") -> { month: 12, year: 30 }; anything else -> undefined. */
export function parseExpiry(text: string): { month: number; year: number } | undefined {
  const [month = '', year = ''] = text.includes('/')
    ? text.split('/').map(digitsOf)
    : [digitsOf(text).slice(0, 2), digitsOf(text).slice(2)];
  if (month.length < 1 || month.length > 2 || (year.length !== 2 && year.length !== 4)) return undefined;
  return { month: Number(month), year: Number(year.slice(-2)) };
}
