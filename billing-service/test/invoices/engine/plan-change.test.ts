import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  couponsForChange,
  isDowngrade,
  nextPeriodStart,
  planChangeInvoice,
  unusedCredit,
  type EngineProduct,
  type PlanChangeInput,
  type PlanChangeInvoice,
  type RunningLine,
} from '../../../src/invoices/engine/index.js';
import { minorUnits } from '../../../src/money/money.js';
import { currencyArb, dateArb, decimalArb } from './arbitraries.js';
import { coupon, d, product } from './fixtures.js';

/** A running line that billed `quantity × unitPrice` for [start, end) with nothing credited yet. */
function runningLine(overrides: Partial<RunningLine> & Pick<RunningLine, 'startServiceDate' | 'endServiceDate'>): RunningLine {
  const quantity = overrides.quantity ?? d(1);
  const unitPrice = overrides.unitPrice ?? d('19.99');
  return {
    chargeId: 1,
    subscriptionId: 7,
    productCode: 'SEAT',
    name: 'Seat',
    description: null,
    quantity,
    unitPrice,
    taxableAmount: quantity.times(unitPrice),
    creditedAmount: d(0),
    ...overrides,
  };
}

function changeInput(overrides: Partial<PlanChangeInput> & Pick<PlanChangeInput, 'changeDate' | 'runningLines'>): PlanChangeInput {
  return {
    currency: 'USD',
    oldFrequency: { interval: 'Monthly', numberOfIntervals: 1 },
    subscription: {
      subscriptionId: 7,
      name: 'Subscription',
      interval: 'Monthly',
      numberOfIntervals: 1,
      isProrated: true,
      products: [product({ productCode: 'SEAT', name: 'Seat' })],
      coupons: [],
      periodStart: overrides.runningLines[0]?.startServiceDate ?? overrides.changeDate,
    },
    billingPeriods: {},
    taxRates: [],
    term: 'Net0',
    showZeroDollarCharges: false,
    rollUpTaxes: false,
    rollUpDiscounts: false,
    ...overrides,
  };
}

/** Every amount of the invoice printed with the currency's decimals: "<kind> <code> ×<qty> <start>→<end> <amount>". */
function picture(invoice: PlanChangeInvoice) {
  const f = (x: Decimal) => x.toFixed(minorUnits(invoice.currency));
  return {
    lines: invoice.charges.map(
      (c) =>
        `${c.kind} ${c.productCode} ×${c.quantity} ${c.startServiceDate}→${c.endServiceDate} ${f(c.amount)}` +
        c.discounts.map((x) => ` -${x.name} ${f(x.amount)}`).join(''),
    ),
    taxes: invoice.taxes.map((t) => `${t.name} ${f(t.amount)}`),
    total: f(invoice.total),
    next: invoice.nextPeriodStart,
    anchorDay: invoice.anchorDay,
  };
}

describe('plan change proration: the worked examples of PLAN-CHANGES.md', () => {
  it('1. Basic monthly → Pro monthly on day 10 of a 31-day month, USD, sales tax 4 %', () => {
    const invoice = planChangeInvoice(
      changeInput({
        changeDate: '2027-01-10',
        runningLines: [runningLine({ startServiceDate: '2027-01-01', endServiceDate: '2027-02-01', unitPrice: d('19.99') })],
        subscription: {
          ...changeInput({ changeDate: '2027-01-10', runningLines: [] }).subscription,
          periodStart: '2027-01-01',
          products: [
            product({ productCode: 'SEAT', name: 'Seat', quantity: d(5), unitPrice: d('8.00'), setupFee: null }),
            product({ productCode: 'SUPPORT', name: 'Priority support', quantity: d(1), unitPrice: d('9.00'), setupFee: d('25.00') }),
          ],
        },
        taxRates: [{ name: 'Sales tax', rate: d('0.04') }],
      }),
    );
    expect(picture(invoice)).toEqual({
      lines: [
        'Credit SEAT ×1 2027-01-10→2027-02-01 -14.19',
        'Recurring SEAT ×5 2027-01-10→2027-02-01 28.39',
        'Recurring SUPPORT ×1 2027-01-10→2027-02-01 6.39',
      ],
      taxes: ['Sales tax 0.82'],
      total: '21.41',
      next: '2027-02-01',
      anchorDay: null,
    });
    expect(invoice.credits.map((c) => [c.chargeId, c.amount.toFixed(2)])).toEqual([[1, '14.19']]);
  });

  it('2. 3 → 8 seats, JPY (0 decimals), tax 10 %', () => {
    const seat = (quantity: number) => product({ productCode: 'SEAT', name: 'Seat', quantity: d(quantity), unitPrice: d(980) });
    const invoice = planChangeInvoice(
      changeInput({
        currency: 'JPY',
        changeDate: '2027-03-22',
        runningLines: [runningLine({ startServiceDate: '2027-03-15', endServiceDate: '2027-04-15', quantity: d(3), unitPrice: d(980) })],
        subscription: {
          ...changeInput({ changeDate: '2027-03-22', runningLines: [] }).subscription,
          periodStart: '2027-03-15',
          products: [seat(8)],
        },
        taxRates: [{ name: 'Consumption tax', rate: d('0.10') }],
      }),
    );
    expect(picture(invoice)).toEqual({
      lines: ['Credit SEAT ×3 2027-03-22→2027-04-15 -2276', 'Recurring SEAT ×8 2027-03-22→2027-04-15 6070'],
      taxes: ['Consumption tax 379'],
      total: '4173',
      next: '2027-04-15',
      anchorDay: null,
    });
  });

  it('3. monthly → yearly on the 31st, BHD (3 decimals), VAT 10 %: a new full period, the anniversary moves', () => {
    const invoice = planChangeInvoice(
      changeInput({
        currency: 'BHD',
        changeDate: '2027-03-31',
        runningLines: [runningLine({ startServiceDate: '2027-03-15', endServiceDate: '2027-04-15', unitPrice: d('7.125') })],
        subscription: {
          ...changeInput({ changeDate: '2027-03-31', runningLines: [] }).subscription,
          interval: 'Yearly',
          isProrated: false,
          periodStart: '2027-03-15',
          products: [product({ productCode: 'SEAT', name: 'Seat', unitPrice: d('75.000') })],
        },
        taxRates: [{ name: 'VAT', rate: d('0.10') }],
      }),
    );
    expect(picture(invoice)).toEqual({
      lines: ['Credit SEAT ×1 2027-03-31→2027-04-15 -3.448', 'Recurring SEAT ×1 2027-03-31→2028-03-31 75.000'],
      taxes: ['VAT 7.155'],
      total: '78.707',
      next: '2028-03-31',
      anchorDay: 31,
    });
  });
});

describe('plan change proration: rules', () => {
  it('credits what the line billed after discounts, less what was credited before, never below 0', () => {
    const line = runningLine({ startServiceDate: '2027-01-01', endServiceDate: '2027-02-01', taxableAmount: d('17.99') });
    expect(unusedCredit(line, '2027-01-10', 'USD').toFixed(2)).toBe('12.77'); // 17.99 × 22 / 31 = 12.767…
    expect(unusedCredit({ ...line, creditedAmount: d('2.77') }, '2027-01-10', 'USD').toFixed(2)).toBe('10.00');
    expect(unusedCredit({ ...line, creditedAmount: d('20') }, '2027-01-10', 'USD').toFixed(2)).toBe('0.00');
    expect(unusedCredit(line, '2027-02-01', 'USD').toFixed(2)).toBe('0.00');
  });

  it('the change day is served by the new plan: a change on the first day credits the whole line', () => {
    const line = runningLine({ startServiceDate: '2027-01-01', endServiceDate: '2027-02-01' });
    expect(unusedCredit(line, '2027-01-01', 'USD').toFixed(2)).toBe('19.99');
  });

  it('same frequency: Percentage coupons that applied to the period apply again, Amount coupons do not, no period is used', () => {
    // both discounted the running period (their last use was for the period starting 2027-01-01)
    const coupons = [
      coupon({ code: 'WELCOME10', kind: 'Percentage', value: d(10), duration: 'Once', periodsUsed: 1, lastUsedOn: '2027-01-01' }),
      coupon({ code: 'FIVEOFF', kind: 'Amount', value: d(5), duration: 'Periods', periods: 3, periodsUsed: 1, lastUsedOn: '2027-01-01' }),
    ];
    const running = [runningLine({ startServiceDate: '2027-01-01', endServiceDate: '2027-02-01', taxableAmount: d('17.99') })];
    expect(couponsForChange(coupons, false, running)).toEqual([{ ...coupons[0], periodsUsed: 0 }]);
    expect(couponsForChange(coupons, true, running)).toEqual(coupons);
    const base = changeInput({ changeDate: '2027-01-10', runningLines: running });
    const invoice = planChangeInvoice({
      ...base,
      subscription: { ...base.subscription, coupons, products: [product({ productCode: 'SEAT', name: 'Seat', unitPrice: d('49.00') })] },
    });
    // 49.00 × 22 / 31 = 34.77 less 10 % (3.48); the credit 17.99 × 22 / 31 = 12.77.
    expect(picture(invoice).lines).toEqual([
      'Credit SEAT ×1 2027-01-10→2027-02-01 -12.77',
      'Recurring SEAT ×1 2027-01-10→2027-02-01 34.77 -WELCOME10 3.48',
    ]);
    expect(invoice.total.toFixed(2)).toBe('18.52');
    expect(invoice.couponsApplied).toEqual([]);
  });

  it('same frequency: a Percentage coupon whose last use was an earlier period (a Once used up before) does not discount the change', () => {
    const running = [runningLine({ startServiceDate: '2027-01-01', endServiceDate: '2027-02-01' })];
    const usedUp = coupon({
      code: 'WELCOME10',
      kind: 'Percentage',
      value: d(10),
      duration: 'Once',
      periodsUsed: 1,
      lastUsedOn: '2026-12-01',
    });
    const neverUsed = coupon({ code: 'LATE10', kind: 'Percentage', value: d(10), duration: 'Forever', periodsUsed: 0, lastUsedOn: null });
    expect(couponsForChange([usedUp, neverUsed], false, running)).toEqual([]);
  });

  it('same frequency: a coupon last used on a month that started the day the running year did did not discount that year', () => {
    // An uncancel re-billed 2027-03-10 → 2027-04-10 with the coupon (its last use), then a switch to yearly the same
    // day started 2027-03-10 → 2028-03-10 without it (used up): a seat change later in that year must not apply it.
    const running = [runningLine({ startServiceDate: '2027-03-10', endServiceDate: '2028-03-10' })];
    const monthUse = { duration: 'Periods' as const, periods: 2, periodsUsed: 2, lastUsedOn: '2027-03-10' };
    const rebilled = coupon({ code: 'HALF2', kind: 'Percentage', value: d(50), ...monthUse, lastUsedUntil: '2027-04-10' });
    expect(couponsForChange([rebilled], false, running, '2027-03-10')).toEqual([]);
    // the same coupon, had its last use been the year's, carries over
    const yearly = { ...rebilled, periodsUsed: 1, lastUsedUntil: '2028-03-10' };
    expect(couponsForChange([yearly], false, running, '2027-03-10')).toEqual([{ ...yearly, periodsUsed: 0 }]);
  });

  it('a same-frequency change is prorated by day even on a frequency with isProrated false', () => {
    const base = changeInput({
      changeDate: '2027-01-10',
      runningLines: [runningLine({ startServiceDate: '2027-01-01', endServiceDate: '2027-02-01' })],
    });
    const invoice = planChangeInvoice({ ...base, subscription: { ...base.subscription, isProrated: false } });
    expect(invoice.total.toFixed(2)).toBe('0.00');
  });

  it('a downgrade is a next renewal that charges less; anything else is an upgrade', () => {
    const p = (quantity: number, unitPrice: string, included = true) => ({ quantity, unitPrice, included });
    expect(isDowngrade([p(8, '980')], [p(2, '980')])).toBe(true);
    expect(isDowngrade([p(3, '980')], [p(8, '980')])).toBe(false);
    expect(isDowngrade([p(1, '7.125')], [p(1, '75.000')])).toBe(false); // monthly → yearly
    expect(isDowngrade([p(1, '19.99')], [p(1, '19.99')])).toBe(false);
    expect(isDowngrade([p(1, '19.99'), p(1, '9', false)], [p(1, '19.98')])).toBe(true);
  });
});

/** A running period on the anniversary grid and a change day within it. */
const periodAndDayArb = fc
  .record({ start: dateArb, interval: fc.constantFrom('Monthly' as const, 'Yearly' as const), n: fc.integer({ min: 1, max: 3 }) })
  .chain(({ start, interval, n }) => {
    const end = nextPeriodStart(start, interval, n);
    const days = Math.round((Date.parse(end) - Date.parse(start)) / 86_400_000);
    return fc.integer({ min: 0, max: days - 1 }).map((k) => ({ start, end, interval, n, changeDate: addDays(start, k) }));
  });

/** Catalogue prices are in the currency's minor unit (what a full period bills is then exactly quantity × price). */
const currencyAndPricesArb = currencyArb.chain((currency) => {
  const priceArb = decimalArb(10 ** Math.max(2, 5 - minorUnits(currency)), minorUnits(currency));
  return fc.tuple(fc.constant(currency), priceArb, priceArb);
});
const quantityArb = fc.integer({ min: 0, max: 50 });
const taxRatesArb = fc.array(
  fc.record({ name: fc.constantFrom('GST', 'VAT'), rate: fc.integer({ min: 0, max: 3000 }).map((n) => new Decimal(n).dividedBy(10_000)) }),
  { maxLength: 2 },
);

/** A change on the same frequency from (oldQuantity × oldPrice) to (newQuantity × newPrice), the old line billed in full. */
function sameFrequencyChange(
  c: { start: string; end: string; interval: 'Monthly' | 'Yearly'; n: number; changeDate: string },
  currency: string,
  old: { quantity: number; price: Decimal },
  next: { quantity: number; price: Decimal },
  taxRates: PlanChangeInput['taxRates'],
): PlanChangeInput {
  const seat = (q: number, price: Decimal): EngineProduct =>
    product({ productCode: 'SEAT', name: 'Seat', quantity: d(q), unitPrice: price });
  return {
    currency,
    changeDate: c.changeDate,
    oldFrequency: { interval: c.interval, numberOfIntervals: c.n },
    runningLines: [
      runningLine({
        startServiceDate: c.start,
        endServiceDate: c.end,
        quantity: d(old.quantity),
        unitPrice: old.price,
        taxableAmount: d(old.quantity).times(old.price).toDecimalPlaces(minorUnits(currency), Decimal.ROUND_HALF_UP),
      }),
    ],
    subscription: {
      subscriptionId: 7,
      name: 'Subscription',
      interval: c.interval,
      numberOfIntervals: c.n,
      isProrated: true,
      products: [seat(next.quantity, next.price)],
      coupons: [],
      periodStart: c.start,
    },
    billingPeriods: {},
    taxRates,
    term: 'Net0',
    showZeroDollarCharges: true,
    rollUpTaxes: false,
    rollUpDiscounts: false,
  };
}

const RUNS = { numRuns: 500 };

describe('plan change proration: properties (fast-check)', () => {
  it('a change to the same price and quantity credits exactly what it charges: net, taxes and total 0', () => {
    fc.assert(
      fc.property(periodAndDayArb, currencyAndPricesArb, quantityArb, taxRatesArb, (c, [currency, price], quantity, taxRates) => {
        const invoice = planChangeInvoice(sameFrequencyChange(c, currency, { quantity, price }, { quantity, price }, taxRates));
        expect(invoice.subtotal.isZero()).toBe(true);
        expect(invoice.total.isZero()).toBe(true);
        expect(invoice.nextPeriodStart).toBe(c.end);
      }),
      RUNS,
    );
  });

  it('an upgrade (no lower price, no fewer units) never nets below 0', () => {
    fc.assert(
      fc.property(
        periodAndDayArb,
        currencyAndPricesArb,
        quantityArb,
        quantityArb,
        taxRatesArb,
        (c, [currency, p1, p2], q1, q2, taxRates) => {
          const [oldQ, newQ] = q1 <= q2 ? [q1, q2] : [q2, q1];
          const [oldP, newP] = p1.lte(p2) ? [p1, p2] : [p2, p1];
          const invoice = planChangeInvoice(
            sameFrequencyChange(c, currency, { quantity: oldQ, price: oldP }, { quantity: newQ, price: newP }, taxRates),
          );
          expect(invoice.total.isNegative()).toBe(false);
          expect(
            isDowngrade([{ quantity: oldQ, unitPrice: oldP, included: true }], [{ quantity: newQ, unitPrice: newP, included: true }]),
          ).toBe(false);
        },
      ),
      RUNS,
    );
  });

  it('every amount is in the currency minor unit and the lines add up to the total; the credit never exceeds what was billed', () => {
    fc.assert(
      fc.property(
        periodAndDayArb,
        currencyAndPricesArb,
        quantityArb,
        quantityArb,
        taxRatesArb,
        (c, [currency, oldP, newP], oldQ, newQ, taxRates) => {
          const input = sameFrequencyChange(c, currency, { quantity: oldQ, price: oldP }, { quantity: newQ, price: newP }, taxRates);
          const invoice = planChangeInvoice(input);
          const places = minorUnits(currency);
          const amounts = [
            ...invoice.charges.flatMap((x) => [x.amount, x.taxableAmount, ...x.discounts.map((y) => y.amount)]),
            ...invoice.taxes.map((t) => t.amount),
            invoice.total,
          ];
          for (const amount of amounts) expect(amount.decimalPlaces()).toBeLessThanOrEqual(places);
          const sum = (xs: Decimal[]) => xs.reduce((a, b) => a.plus(b), new Decimal(0));
          expect(invoice.total.eq(sum(invoice.charges.map((x) => x.taxableAmount)).plus(sum(invoice.taxes.map((t) => t.amount))))).toBe(
            true,
          );
          const credited = sum(invoice.credits.map((x) => x.amount));
          expect(credited.lte(input.runningLines[0]!.taxableAmount)).toBe(true);
          expect(credited.isNegative()).toBe(false);
        },
      ),
      RUNS,
    );
  });
});
