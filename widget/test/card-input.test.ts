import { describe, expect, it } from 'vitest';
import { cardLayout, cardNumberComplete, formatExpiry, groupCardNumber, parseExpiry } from '../src/checkout/card-input.js';

describe('card entry as the shopper types', () => {
  it('groups the number as the network prints it and names the network', () => {
    expect(groupCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(groupCardNumber('424242')).toBe('4242 42');
    expect(groupCardNumber('3782-822463-10005')).toBe('3782 822463 10005');
    expect(groupCardNumber('42424242424242429999')).toBe('4242 4242 4242 4242');
    expect(cardLayout('37').label).toBe('American Express');
    expect(cardLayout('5555').label).toBe('Mastercard');
    expect(cardLayout('9').label).toBe('');
    expect(cardLayout('378282246310005').cvvLength).toBe(4);
    expect(cardNumberComplete('4242 4242 4242 4242')).toBe(true);
    expect(cardNumberComplete('3782 822463 1000')).toBe(false);
  });

  it('keeps one "MM / YY" field and splits it for the capture host', () => {
    expect(formatExpiry('1')).toBe('1');
    expect(formatExpiry('2')).toBe('02 / ');
    expect(formatExpiry('12')).toBe('12 / ');
    expect(formatExpiry('12', true)).toBe('12');
    expect(formatExpiry('1230')).toBe('12 / 30');
    expect(parseExpiry('12 / 30')).toEqual({ month: 12, year: 30 });
    expect(parseExpiry('12/2030')).toEqual({ month: 12, year: 30 });
    expect(parseExpiry('1230')).toEqual({ month: 12, year: 30 });
    expect(parseExpiry('12 / 3')).toBeUndefined();
    expect(parseExpiry('')).toBeUndefined();
  });
});
