import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorUnits } from '../../../src/money/money.js';
import {
  addDays,
  allocateProportionally,
  billingPeriod,
  computeInvoices,
  proratedAmount,
  type BillingPeriodRule,
  type DraftInvoice,
} from '../../../src/invoices/engine/index.js';
import { currencyArb, dateArb, decimalArb, inputArb } from './arbitraries.js';
import { engineInput, product, subscription } from './fixtures.js';

const sum = (values: Decimal[]) => values.reduce((a, b) => a.plus(b), new Decimal(0));
const RUNS = { numRuns: 300 };

function everyAmount(invoice: DraftInvoice): Decimal[] {
  return [
    ...invoice.charges.flatMap((c) => [c.amount, c.taxableAmount, ...c.discounts.map((x) => x.amount)]),
    ...invoice.taxes.map((t) => t.amount),
    invoice.subtotal,
    invoice.totalDiscount,
    invoice.totalTaxes,
    invoice.total,
  ];
}

describe('invoice engine properties', () => {
  it('(a) lines add up to the total, every amount in whole minor units', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        for (const invoice of computeInvoices(input)) {
          const amounts = invoice.charges.map((c) => c.amount);
          const discounts = invoice.charges.flatMap((c) => c.discounts.map((x) => x.amount));
          const taxes = invoice.taxes.map((t) => t.amount);
          expect(invoice.subtotal.eq(sum(amounts))).toBe(true);
          expect(invoice.totalDiscount.eq(sum(discounts))).toBe(true);
          expect(invoice.totalTaxes.eq(sum(taxes))).toBe(true);
          expect(invoice.total.eq(sum(amounts).minus(sum(discounts)).plus(sum(taxes)))).toBe(true);
          for (const amount of everyAmount(invoice)) expect(amount.decimalPlaces()).toBeLessThanOrEqual(minorUnits(input.currency));
          expect(invoice.total.isNegative()).toBe(false);
        }
      }),
      RUNS,
    );
  });

  it('(a) rolling up taxes and discounts changes the presentation only', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const totals = (rollUp: boolean) =>
          computeInvoices({ ...input, rollUpTaxes: rollUp, rollUpDiscounts: rollUp }).map((i) =>
            [i.subtotal, i.totalDiscount, i.totalTaxes, i.total, ...i.charges.map((c) => c.taxableAmount)].map(String),
          );
        expect(totals(true)).toEqual(totals(false));
      }),
      RUNS,
    );
  });

  it('(b) prorated pieces of a full period add up to the full charge within ±1 minor unit per piece', () => {
    fc.assert(
      fc.property(
        currencyArb,
        dateArb,
        fc.constantFrom('Monthly' as const, 'Yearly' as const),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 1, max: 12 }),
        fc.oneof(decimalArb(1000, 2), decimalArb(100_000, 0), decimalArb(100, 4)),
        decimalArb(20, 0),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (currency, date, interval, numberOfIntervals, day, month, unitPrice, quantity, where) => {
          const rule: BillingPeriodRule = { type: 'SpecifiedDate', rule: 'SingleInvoice', day, month };
          const { fullStart, fullEnd, fullDays } = billingPeriod(date, interval, numberOfIntervals, rule);
          const split = Math.min(fullDays - 1, Math.max(1, Math.floor(where * fullDays)));
          const splitDate = addDays(fullStart, split);
          const bill = (periodStart: string) =>
            computeInvoices(
              engineInput({
                currency,
                showZeroDollarCharges: true,
                billingPeriods: { [interval]: rule },
                subscriptions: [
                  subscription({
                    interval,
                    numberOfIntervals,
                    isProrated: true,
                    periodStart,
                    products: [product({ quantity, unitPrice })],
                  }),
                ],
              }),
            )[0]!.charges[0];
          const full = bill(fullStart);
          expect(full!.amount.eq(quantity.times(unitPrice).toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP))).toBe(true);
          // The first piece, up to the split, and the rest of the period, prorated the same way.
          const first = proratedAmount(quantity, unitPrice, { days: split, fullDays }, currency);
          const rest = proratedAmount(quantity, unitPrice, { days: fullDays - split, fullDays }, currency);
          const unit = new Decimal(10).pow(-minorUnits(currency));
          const gap = first.plus(rest).minus(full!.amount).abs();
          expect(gap.lte(unit.times(2))).toBe(true); // ±1 minor unit per piece
          expect(gap.lte(unit)).toBe(true); // in fact: three roundings of at most ½ unit each
          // When the rest is a period the engine bills (a subscription starting at the split: always
          // for one interval; for several, a start within the first interval, since a later start
          // belongs to the period beginning at the billing date before it), the engine agrees.
          const restPeriod = billingPeriod(splitDate, interval, numberOfIntervals, rule);
          if (restPeriod.fullStart === fullStart) {
            const billed = bill(splitDate);
            expect([billed!.startServiceDate, billed!.endServiceDate]).toEqual([splitDate, fullEnd]);
            expect(billed!.amount.eq(rest)).toBe(true);
          }
          if (numberOfIntervals === 1) expect(restPeriod.fullStart).toBe(fullStart);
        },
      ),
      RUNS,
    );
  });

  it('(c) a discount never takes a line below zero', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        for (const invoice of computeInvoices(input)) {
          for (const charge of invoice.charges) {
            const discounts = sum(charge.discounts.map((x) => x.amount));
            expect(charge.taxableAmount.isNegative()).toBe(false);
            expect(discounts.lte(charge.amount)).toBe(true);
            expect(charge.taxableAmount.eq(charge.amount.minus(discounts))).toBe(true);
            for (const x of charge.discounts) expect(x.amount.gt(0)).toBe(true);
            if (charge.kind === 'SetupFee') expect(charge.discounts).toEqual([]);
          }
        }
      }),
      RUNS,
    );
  });

  it('(c) an Amount is allocated exactly, within each line, proportionally up to one remainder', () => {
    fc.assert(
      fc.property(
        currencyArb,
        decimalArb(500, 2),
        fc.array(decimalArb(300, 2), { minLength: 1, maxLength: 6 }),
        (currency, total, rawCaps) => {
          const places = minorUnits(currency);
          const caps = rawCaps.map((c) => c.toDecimalPlaces(places));
          const parts = allocateProportionally(total, caps, currency);
          const capsSum = sum(caps);
          const expected = Decimal.min(total.toDecimalPlaces(places, Decimal.ROUND_HALF_UP), capsSum);
          expect(sum(parts).eq(capsSum.gt(0) ? expected : 0)).toBe(true);
          parts.forEach((p, i) => {
            expect(p.isNegative()).toBe(false);
            expect(p.lte(caps[i]!)).toBe(true);
            expect(p.decimalPlaces()).toBeLessThanOrEqual(places);
          });
        },
      ),
      RUNS,
    );
  });

  it('(d) the same input always gives the same output, whatever the order of the subscriptions', () => {
    fc.assert(
      fc.property(
        inputArb.chain((input) =>
          fc
            .shuffledSubarray(input.subscriptions, { minLength: input.subscriptions.length, maxLength: input.subscriptions.length })
            .map((shuffled) => ({ input, shuffled })),
        ),
        ({ input, shuffled }) => {
          const first = computeInvoices(input);
          expect(computeInvoices(input)).toEqual(first);
          const reordered = computeInvoices({ ...input, subscriptions: shuffled });
          expect(reordered).toEqual(first);
          expect(sum(reordered.map((i) => i.total)).eq(sum(first.map((i) => i.total)))).toBe(true);
        },
      ),
      RUNS,
    );
  });

  it('does not change its input', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const before = JSON.stringify(input);
        computeInvoices(input);
        expect(JSON.stringify(input)).toBe(before);
      }),
      { numRuns: 100 },
    );
  });
});
