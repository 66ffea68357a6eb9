/** Card networks the service names (Unknown: none of these). Free of Node imports: the widget uses it too. */
export type CardBrand = 'Visa' | 'MasterCard' | 'AmericanExpress' | 'Discover' | 'Unknown';

/** The card network from the number's leading digits (IIN ranges). */
export function cardBrand(number: string): CardBrand {
  if (/^4/.test(number)) return 'Visa';
  if (/^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/.test(number)) return 'MasterCard';
  if (/^3[47]/.test(number)) return 'AmericanExpress';
  if (/^(6011|65|64[4-9])/.test(number)) return 'Discover';
  return 'Unknown';
}

/** The Luhn checksum every card number carries. */
export function passesLuhn(number: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = number.length - 1; i >= 0; i--) {
    let digit = number.charCodeAt(i) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}
