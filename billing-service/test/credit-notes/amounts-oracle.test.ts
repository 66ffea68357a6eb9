/**
 * The credit note's money (src/credit-notes/amounts.ts) against an independent model written here from the README
 * ("Credit notes"): integers of the minor unit and exact fractions, rounded half up once. Random invoices (subtotal,
 * discounts, taxes) and lines, credits by amount or by quantity, in USD (2 decimals), JPY (0) and BHD (3).
 * RENEW_ORACLE_RUNS=20000 for a large run (default 3,000, about a second).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { creditLine, creditNoteTotals, isProblem, planRefunds } from '../../src/credit-notes/amounts.js';
import { money } from '../../src/money/money.js';

const RUNS = Number(process.env.RENEW_ORACLE_RUNS ?? 3000);
const DIGITS = { USD: 2, JPY: 0, BHD: 3 } as const;
type Currency = keyof typeof DIGITS;

/** n / d rounded half up (n, d > 0 or n = 0), in integers. */
const halfUp = (n: bigint, d: bigint) => (2n * n + d) / (2n * d);
const major = (units: bigint, currency: Currency) => money(units.toString()).dividedBy(10 ** DIGITS[currency]);

/** The model: every amount in minor units. */
function modelCredit(
  invoice: { taxable: bigint; taxes: bigint },
  line: { net: bigint; quantity: bigint; credited: bigint },
  request: { amount: bigint } | { quantity: bigint },
) {
  if ('quantity' in request && request.quantity > line.quantity) return 'quantity_exceeds_line';
  const net = 'quantity' in request ? halfUp(line.net * request.quantity, line.quantity) : request.amount;
  if (net <= 0n) return 'rounds_to_nothing';
  const tax = invoice.taxable > 0n ? halfUp(net * invoice.taxes, invoice.taxable) : 0n;
  const lineWithTax = invoice.taxable > 0n ? halfUp(line.net * (invoice.taxable + invoice.taxes), invoice.taxable) : line.net;
  if (net + tax > lineWithTax - line.credited) return 'exceeds_line';
  return { net, tax };
}

const cases = fc
  .record({
    currency: fc.constantFrom<Currency>('USD', 'JPY', 'BHD'),
    taxable: fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.constant(0n)),
    taxPermille: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 300n })),
    lineShare: fc.integer({ min: 1, max: 1000 }),
    quantity: fc.bigInt({ min: 1n, max: 50n }),
    creditedShare: fc.integer({ min: 0, max: 1000 }),
    byQuantity: fc.boolean(),
    askShare: fc.integer({ min: 0, max: 1100 }),
    askQuantity: fc.bigInt({ min: 1n, max: 60n }),
  })
  .map((c) => {
    const taxes = (c.taxable * c.taxPermille) / 1000n;
    const net = c.taxable > 0n ? (c.taxable * BigInt(c.lineShare)) / 1000n + 1n : BigInt(c.lineShare);
    const credited = (net * BigInt(c.creditedShare)) / 1000n;
    const amount = (net * BigInt(c.askShare)) / 1000n;
    return { ...c, taxes, net, credited, amount };
  });

describe('credit note amounts against an independent model', () => {
  it(`agree on every line's net, tax and refusal over ${RUNS} random cases in USD, JPY and BHD`, () => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(cases, (c) => {
        const invoice = {
          currency: c.currency,
          subtotal: major(c.taxable + 100n, c.currency),
          totalDiscount: major(100n, c.currency),
          totalTaxes: major(c.taxes, c.currency),
        };
        const line = {
          id: 1,
          quantity: money(c.quantity.toString()),
          taxableAmount: major(c.net, c.currency),
          creditedAmount: major(c.credited, c.currency),
        };
        const request = c.byQuantity ? { quantity: money(c.askQuantity.toString()) } : { amount: major(c.amount, c.currency) };
        const got = creditLine(invoice, line, request);
        const expected = modelCredit(
          { taxable: c.taxable, taxes: c.taxes },
          { net: c.net, quantity: c.quantity, credited: c.credited },
          c.byQuantity ? { quantity: c.askQuantity } : { amount: c.amount },
        );
        if (typeof expected === 'string') {
          seen.refused++;
          expect(isProblem(got) ? got.kind : 'accepted').toBe(expected);
          return;
        }
        seen.accepted++;
        expect(isProblem(got) ? got.kind : [got.amount.toString(), got.taxAmount.toString(), got.total.toString()]).toEqual([
          major(expected.net, c.currency).toString(),
          major(expected.tax, c.currency).toString(),
          major(expected.net + expected.tax, c.currency).toString(),
        ]);
      }),
      { numRuns: RUNS },
    );
    expect(seen.accepted).toBeGreaterThan(RUNS / 10);
    expect(seen.refused).toBeGreaterThan(RUNS / 20);
  });

  it('a total pays the invoice first, the excess after; refunds take the newest payments first, each up to what it paid', () => {
    const lines = [
      { amount: money('10.00'), taxAmount: money('1.30'), total: money('11.30') },
      { amount: money('5.00'), taxAmount: money('0.65'), total: money('5.65') },
    ];
    expect(creditNoteTotals(lines, money('4.00'))).toMatchObject({
      total: money('16.95'),
      appliedToInvoice: money('4.00'),
      excess: money('12.95'),
    });
    expect(creditNoteTotals(lines, money('20'))).toMatchObject({ appliedToInvoice: money('16.95'), excess: money(0) });
    const plan = planRefunds(money('12.95'), [
      { paymentId: 3, paid: money('10') },
      { paymentId: 7, paid: money('2.5') },
      { paymentId: 5, paid: money('1') },
    ]);
    expect(plan.map((p) => [p.paymentId, p.amount.toString()])).toEqual([
      [7, '2.5'],
      [5, '1'],
      [3, '9.45'],
    ]);
  });
});
