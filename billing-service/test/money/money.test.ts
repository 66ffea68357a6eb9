import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorUnits, money, roundToCurrency, toJsonAmount } from '../../src/money/money.js';

describe('money', () => {
  it("takes each currency's minor unit from ISO 4217", () => {
    expect(minorUnits('USD')).toBe(2);
    expect(minorUnits('JPY')).toBe(0);
    expect(minorUnits('BHD')).toBe(3);
  });

  it('rounds half away from zero to the minor unit', () => {
    expect(roundToCurrency(money('2.345'), 'USD').toString()).toBe('2.35');
    expect(roundToCurrency(money('-2.345'), 'USD').toString()).toBe('-2.35');
    expect(roundToCurrency(money('2.344'), 'USD').toString()).toBe('2.34');
    expect(roundToCurrency(money('150.5'), 'JPY').toString()).toBe('151');
    expect(roundToCurrency(money('1.0005'), 'BHD').toString()).toBe('1.001');
  });

  it('adds exactly where floats do not', () => {
    expect(money('0.1').plus('0.2').toString()).toBe('0.3');
  });

  it('gives JSON numbers that print back as the same decimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }), (cents) => {
        const amount = money(cents.toString()).dividedBy(100);
        expect(String(toJsonAmount(amount))).toBe(amount.toString());
      }),
    );
  });
});
