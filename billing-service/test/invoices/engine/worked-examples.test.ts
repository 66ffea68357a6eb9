import { describe, expect, it } from 'vitest';
import { computeInvoices, type EngineInput } from '../../../src/invoices/engine/index.js';
import { coupon, d, engineInput, product, subscription, summarize } from './fixtures.js';

const specifiedDay1 = { Monthly: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 1 } } as const;
const gstHst = [
  { name: 'GST', rate: d('0.05') },
  { name: 'HST', rate: d('0.08') },
];
const proQty2 = product({ quantity: d(2), unitPrice: d('19.99') });

/** Worked examples: input → every invoice, with exact amounts (worked out by hand in the comments). */
const examples: Array<{ name: string; input: EngineInput; expected: Array<ReturnType<typeof summarize>> }> = [
  {
    // 2 × 19.99 = 39.98; setup fee per unit 2 × 10.00 = 20.00; anniversary Jan 15 → Feb 15.
    name: 'monthly 19.99 USD × 2 with a 10.00 setup fee, first invoice',
    input: engineInput({
      subscriptions: [subscription({ isFirstInvoice: true, products: [product({ ...proQty2, setupFee: d('10.00') })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 39.98', 'SetupFee PRO 20.00'],
        subtotal: '59.98',
        discount: '0.00',
        taxes: [],
        total: '59.98',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    name: 'the same subscription on a later invoice: no setup fee',
    input: engineInput({
      effectiveDate: '2026-02-15',
      subscriptions: [subscription({ periodStart: '2026-02-15', products: [product({ ...proQty2, setupFee: d('10.00') })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 39.98'],
        subtotal: '39.98',
        discount: '0.00',
        taxes: [],
        total: '39.98',
        due: '2026-02-15',
        next: { 1: '2026-03-15' },
      },
    ],
  },
  {
    // 19.99 × 17/31 = 10.96225… → 10.96 (Jan 15 → Feb 1 is 17 of January's 31 days).
    name: 'prorated SpecifiedDate day 1, activated 2026-01-15: 17 of 31 days',
    input: engineInput({ billingPeriods: specifiedDay1, subscriptions: [subscription({ isProrated: true })] }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 10.96'],
        subtotal: '10.96',
        discount: '0.00',
        taxes: [],
        total: '10.96',
        due: '2026-01-15',
        next: { 1: '2026-02-01' },
      },
    ],
  },
  {
    name: 'the same partial period on a non-prorated frequency: billed in full',
    input: engineInput({ billingPeriods: specifiedDay1, subscriptions: [subscription({ isProrated: false })] }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-01-15',
        next: { 1: '2026-02-01' },
      },
    ],
  },
  {
    name: 'prorated SpecifiedDate day 1, the next (full) period',
    input: engineInput({
      effectiveDate: '2026-02-01',
      billingPeriods: specifiedDay1,
      subscriptions: [subscription({ isProrated: true, periodStart: '2026-02-01' })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-02-01',
        next: { 1: '2026-03-01' },
      },
    ],
  },
  {
    // Net30 from March 10 = April 9.
    name: 'yearly plan 199.00, anniversary',
    input: engineInput({
      effectiveDate: '2026-03-10',
      term: 'Net30',
      subscriptions: [subscription({ interval: 'Yearly', periodStart: '2026-03-10', products: [product({ unitPrice: d('199.00') })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 199.00'],
        subtotal: '199.00',
        discount: '0.00',
        taxes: [],
        total: '199.00',
        due: '2026-04-09',
        next: { 1: '2027-03-10' },
      },
    ],
  },
  {
    // 199.00 × 184/365 = 100.3178… → 100.32 (2026-07-01 → 2027-01-01 is 184 of 365 days).
    name: 'yearly plan, prorated SpecifiedDate January 1, activated 2026-07-01',
    input: engineInput({
      effectiveDate: '2026-07-01',
      billingPeriods: { Yearly: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 1, month: 1 } },
      subscriptions: [
        subscription({ interval: 'Yearly', isProrated: true, periodStart: '2026-07-01', products: [product({ unitPrice: d('199.00') })] }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 100.32'],
        subtotal: '100.32',
        discount: '0.00',
        taxes: [],
        total: '100.32',
        due: '2026-07-01',
        next: { 1: '2027-01-01' },
      },
    ],
  },
  {
    name: 'two-yearly frequency (numberOfIntervals 2)',
    input: engineInput({
      effectiveDate: '2026-03-10',
      subscriptions: [
        subscription({ interval: 'Yearly', numberOfIntervals: 2, periodStart: '2026-03-10', products: [product({ unitPrice: d('350') })] }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 350.00'],
        subtotal: '350.00',
        discount: '0.00',
        taxes: [],
        total: '350.00',
        due: '2026-03-10',
        next: { 1: '2028-03-10' },
      },
    ],
  },
  {
    // 10 % of 39.98 = 3.998 → 4.00.
    name: '10 % coupon Once, first invoice',
    input: engineInput({ subscriptions: [subscription({ products: [proQty2], coupons: [coupon({ name: '10 % off' })] })] }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 39.98 -10 % off 4.00'],
        subtotal: '39.98',
        discount: '4.00',
        taxes: [],
        total: '35.98',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    name: '10 % coupon Once, already used',
    input: engineInput({ subscriptions: [subscription({ products: [proQty2], coupons: [coupon({ periodsUsed: 1 })] })] }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 39.98'],
        subtotal: '39.98',
        discount: '0.00',
        taxes: [],
        total: '39.98',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    // 5.00 spread over 30.00 and 10.00: 3.75 and 1.25.
    name: 'Amount coupon 5.00 spread proportionally over the lines',
    input: engineInput({
      subscriptions: [
        subscription({
          products: [product({ productCode: 'A', unitPrice: d(30) }), product({ productCode: 'B', unitPrice: d(10) })],
          coupons: [coupon({ code: 'SAVE5', kind: 'Amount', value: d(5), duration: 'Periods', periods: 3 })],
        }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring A 30.00 -SAVE5 3.75', 'Recurring B 10.00 -SAVE5 1.25'],
        subtotal: '40.00',
        discount: '5.00',
        taxes: [],
        total: '35.00',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    // 10.00 / 3 = 3.333… → 3.33 × 3 = 9.99; the remaining 0.01 goes to the largest line (the first on a tie).
    name: 'Amount coupon rounding remainder goes to the largest line',
    input: engineInput({
      subscriptions: [
        subscription({
          products: ['A', 'B', 'C'].map((code) => product({ productCode: code, unitPrice: d(10) })),
          coupons: [coupon({ code: 'OFF10', kind: 'Amount', value: d(10), duration: 'Forever' })],
        }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring A 10.00 -OFF10 3.34', 'Recurring B 10.00 -OFF10 3.33', 'Recurring C 10.00 -OFF10 3.33'],
        subtotal: '30.00',
        discount: '10.00',
        taxes: [],
        total: '20.00',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    // 10.00 − 8.00 product discount = 2.00 left; 50 % coupon = 5.00 capped to 2.00; the Amount coupon finds nothing left.
    name: 'product discount + coupons stacking, capped at zero',
    input: engineInput({
      taxRates: [{ name: 'GST', rate: d('0.05') }],
      subscriptions: [
        subscription({
          products: [product({ unitPrice: d(10), discount: { kind: 'Amount', value: d(8) } })],
          coupons: [
            coupon({ code: 'HALF', kind: 'Percentage', value: d(50), duration: 'Forever' }),
            coupon({ code: 'THREE', kind: 'Amount', value: d(3), duration: 'Forever' }),
          ],
        }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 10.00 -Product discount 8.00 -HALF 2.00'],
        subtotal: '10.00',
        discount: '10.00',
        taxes: ['GST 0.05 0.00'],
        total: '0.00',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    // 25 % of 39.98 = 9.995 → 10.00; 10 % of 39.98 (of the line amount) = 4.00; taxable 25.98:
    // GST 1.299 → 1.30, HST 2.0784 → 2.08.
    name: 'product Percentage discount + coupon, taxed after discounts',
    input: engineInput({
      taxRates: gstHst,
      subscriptions: [
        subscription({ products: [product({ ...proQty2, discount: { kind: 'Percentage', value: d(25) } })], coupons: [coupon()] }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 39.98 -Product discount 10.00 -TEN 4.00'],
        subtotal: '39.98',
        discount: '14.00',
        taxes: ['GST 0.05 1.30', 'HST 0.08 2.08'],
        total: '29.36',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    name: 'the same with rollUpDiscounts: one "Discounts" entry, same totals',
    input: engineInput({
      taxRates: gstHst,
      rollUpDiscounts: true,
      subscriptions: [
        subscription({ products: [product({ ...proQty2, discount: { kind: 'Percentage', value: d(25) } })], coupons: [coupon()] }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 39.98 -Discounts 14.00'],
        subtotal: '39.98',
        discount: '14.00',
        taxes: ['GST 0.05 1.30', 'HST 0.08 2.08'],
        total: '29.36',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    // GST 10.10 × 0.05 = 0.505 → 0.51; HST 10.10 × 0.08 = 0.808 → 0.81 (one rate at 13 % would give 1.313 → 1.31).
    name: 'taxes GST 5 % + HST 8 %',
    input: engineInput({ taxRates: gstHst, subscriptions: [subscription({ products: [product({ unitPrice: d('10.10') })] })] }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 10.10'],
        subtotal: '10.10',
        discount: '0.00',
        taxes: ['GST 0.05 0.51', 'HST 0.08 0.81'],
        total: '11.42',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    name: 'taxes GST 5 % + HST 8 % rolled up: one "Tax" entry, summed rate and amounts',
    input: engineInput({
      taxRates: gstHst,
      rollUpTaxes: true,
      subscriptions: [subscription({ products: [product({ unitPrice: d('10.10') })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 10.10'],
        subtotal: '10.10',
        discount: '0.00',
        taxes: ['Tax 0.13 1.32'],
        total: '11.42',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    // 1000 × 17/31 = 548.39 → 548; tax 10 % = 54.8 → 55.
    name: 'zero-decimal currency: 1000 JPY prorated 17/31',
    input: engineInput({
      currency: 'JPY',
      billingPeriods: specifiedDay1,
      taxRates: [{ name: 'Consumption tax', rate: d('0.10') }],
      subscriptions: [subscription({ isProrated: true, products: [product({ unitPrice: d(1000) })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 548'],
        subtotal: '548',
        discount: '0',
        taxes: ['Consumption tax 0.1 55'],
        total: '603',
        due: '2026-01-15',
        next: { 1: '2026-02-01' },
      },
    ],
  },
  {
    // 12.345 × 17/31 = 6.76983… → 6.770; VAT 5 % = 0.3385 → 0.339 (half away from zero).
    name: 'three-decimal currency: 12.345 BHD prorated 17/31',
    input: engineInput({
      currency: 'BHD',
      billingPeriods: specifiedDay1,
      taxRates: [{ name: 'VAT', rate: d('0.05') }],
      subscriptions: [subscription({ isProrated: true, products: [product({ unitPrice: d('12.345') })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 6.770'],
        subtotal: '6.770',
        discount: '0.000',
        taxes: ['VAT 0.05 0.339'],
        total: '7.109',
        due: '2026-01-15',
        next: { 1: '2026-02-01' },
      },
    ],
  },
  {
    name: 'MultipleInvoices: one invoice per subscription, in id order',
    input: engineInput({
      billingPeriods: { Monthly: { type: 'CustomerActivation', rule: 'MultipleInvoices' } },
      subscriptions: [subscription({ subscriptionId: 2, products: [product({ unitPrice: d(5) })] }), subscription({ subscriptionId: 1 })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
      {
        ids: [2],
        lines: ['Recurring PRO 5.00'],
        subtotal: '5.00',
        discount: '0.00',
        taxes: [],
        total: '5.00',
        due: '2026-01-15',
        next: { 2: '2026-02-15' },
      },
    ],
  },
  {
    name: 'Monthly MultipleInvoices, Yearly SingleInvoice: monthlies alone, yearlies together',
    input: engineInput({
      billingPeriods: {
        Monthly: { type: 'CustomerActivation', rule: 'MultipleInvoices' },
        Yearly: { type: 'CustomerActivation', rule: 'SingleInvoice' },
      },
      subscriptions: [
        subscription({ subscriptionId: 4, interval: 'Yearly', products: [product({ unitPrice: d(100) })] }),
        subscription({ subscriptionId: 3 }),
        subscription({ subscriptionId: 2, interval: 'Yearly', products: [product({ unitPrice: d(200) })] }),
        subscription({ subscriptionId: 1 }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
      {
        ids: [2, 4],
        lines: ['Recurring PRO 200.00', 'Recurring PRO 100.00'],
        subtotal: '300.00',
        discount: '0.00',
        taxes: [],
        total: '300.00',
        due: '2026-01-15',
        next: { 2: '2027-01-15', 4: '2027-01-15' },
      },
      {
        ids: [3],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-01-15',
        next: { 3: '2026-02-15' },
      },
    ],
  },
  {
    name: 'SingleInvoice (default) for both intervals: Monthly and Yearly on one invoice',
    input: engineInput({
      subscriptions: [
        subscription({ subscriptionId: 2, interval: 'Yearly', products: [product({ unitPrice: d(200) })] }),
        subscription({ subscriptionId: 1 }),
      ],
    }),
    expected: [
      {
        ids: [1, 2],
        lines: ['Recurring PRO 19.99', 'Recurring PRO 200.00'],
        subtotal: '219.99',
        discount: '0.00',
        taxes: [],
        total: '219.99',
        due: '2026-01-15',
        next: { 1: '2026-02-15', 2: '2027-01-15' },
      },
    ],
  },
  {
    name: 'included=false never charged; zero-priced product dropped (showZeroDollarCharges false)',
    input: engineInput({
      subscriptions: [
        subscription({
          products: [
            product({ productCode: 'OFF', unitPrice: d(5), setupFee: d(1), included: false }),
            product({ productCode: 'FREE', unitPrice: d(0) }),
            product(),
          ],
          isFirstInvoice: true,
        }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    name: 'showZeroDollarCharges true keeps the zero-priced line, still not the excluded product',
    input: engineInput({
      showZeroDollarCharges: true,
      subscriptions: [
        subscription({
          products: [
            product({ productCode: 'OFF', unitPrice: d(5), included: false }),
            product({ productCode: 'FREE', unitPrice: d(0) }),
            product(),
          ],
        }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring FREE 0.00', 'Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-01-15',
        next: { 1: '2026-02-15' },
      },
    ],
  },
  {
    name: 'setup fees are neither prorated nor discounted',
    input: engineInput({
      billingPeriods: specifiedDay1,
      subscriptions: [
        subscription({ isProrated: true, isFirstInvoice: true, products: [product({ setupFee: d('10.00') })], coupons: [coupon()] }),
      ],
    }),
    // 10.96 − 10 % (1.096 → 1.10); setup fee 10.00 in full.
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 10.96 -TEN 1.10', 'SetupFee PRO 10.00'],
        subtotal: '20.96',
        discount: '1.10',
        taxes: [],
        total: '19.86',
        due: '2026-01-15',
        next: { 1: '2026-02-01' },
      },
    ],
  },
  {
    // 10.00 × 17/31 Amount discount per period prorated: 5.48; 19.99 × 17/31 = 10.96 → 5.48 off.
    name: 'product Amount discount on a prorated partial period is prorated too',
    input: engineInput({
      billingPeriods: specifiedDay1,
      subscriptions: [subscription({ isProrated: true, products: [product({ discount: { kind: 'Amount', value: d(10) } })] })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 10.96 -Product discount 5.48'],
        subtotal: '10.96',
        discount: '5.48',
        taxes: [],
        total: '5.48',
        due: '2026-01-15',
        next: { 1: '2026-02-01' },
      },
    ],
  },
  {
    name: 'month-end anniversary: the period starting Feb 28 of a Jan 31 subscription ends Mar 31',
    input: engineInput({ effectiveDate: '2026-02-28', subscriptions: [subscription({ periodStart: '2026-02-28', anchorDay: 31 })] }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 19.99'],
        subtotal: '19.99',
        discount: '0.00',
        taxes: [],
        total: '19.99',
        due: '2026-02-28',
        next: { 1: '2026-03-31' },
      },
    ],
  },
  {
    // The quarter 2027-07-03 → 2027-10-03 (92 days), billed from 2027-08-10 (54 days left):
    // 100.00 × 54/92 = 58.6956… → 58.70; 46.95 × 54/92 = 27.5576… → 27.56. The next quarter stays on the 3rd.
    name: 'the rest of a prorated quarter, from billFrom to the anniversary',
    input: engineInput({
      effectiveDate: '2027-08-10',
      subscriptions: [
        subscription({
          numberOfIntervals: 3,
          isProrated: true,
          periodStart: '2027-07-03',
          billFrom: '2027-08-10',
          products: [product({ productCode: 'SEAT', unitPrice: d('100.00') }), product({ productCode: 'SUPPORT', unitPrice: d('46.95') })],
        }),
      ],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring SEAT 58.70', 'Recurring SUPPORT 27.56'],
        subtotal: '86.26',
        discount: '0.00',
        taxes: [],
        total: '86.26',
        due: '2027-08-10',
        next: { 1: '2027-10-03' },
      },
    ],
  },
  {
    // SpecifiedDate day 1, the partial first period 2026-01-15 → 2026-02-01 (full: January, 31 days), from the 20th: 19.99 × 12/31 = 7.7380… → 7.74.
    name: 'the rest of a partial SpecifiedDate period is prorated over its full period',
    input: engineInput({
      effectiveDate: '2026-01-20',
      billingPeriods: specifiedDay1,
      subscriptions: [subscription({ isProrated: true, billFrom: '2026-01-20' })],
    }),
    expected: [
      {
        ids: [1],
        lines: ['Recurring PRO 7.74'],
        subtotal: '7.74',
        discount: '0.00',
        taxes: [],
        total: '7.74',
        due: '2026-01-20',
        next: { 1: '2026-02-01' },
      },
    ],
  },
];

describe('invoice engine: worked examples', () => {
  it.each(examples)('$name', ({ input, expected }) => {
    expect(computeInvoices(input).map(summarize)).toEqual(expected);
  });

  it('an Amount coupon for 3 periods applies on 3 invoices and then stops', () => {
    let sub = subscription({
      products: [product({ productCode: 'A', unitPrice: d(30) }), product({ productCode: 'B', unitPrice: d(10) })],
      coupons: [coupon({ code: 'SAVE5', kind: 'Amount', value: d(5), duration: 'Periods', periods: 3 })],
    });
    const seen: Array<[string, string, string[]]> = [];
    for (let i = 0; i < 5; i++) {
      const [invoice] = computeInvoices(engineInput({ effectiveDate: sub.periodStart, subscriptions: [sub] }));
      seen.push([invoice!.effectiveDate, invoice!.total.toFixed(2), invoice!.couponsApplied[1]!]);
      const used = new Set(invoice!.couponsApplied[1]);
      sub = {
        ...sub,
        periodStart: invoice!.nextPeriodStart[1]!,
        coupons: sub.coupons.map((c) => (used.has(c.code) ? { ...c, periodsUsed: c.periodsUsed + 1 } : c)),
      };
    }
    expect(seen).toEqual([
      ['2026-01-15', '35.00', ['SAVE5']],
      ['2026-02-15', '35.00', ['SAVE5']],
      ['2026-03-15', '35.00', ['SAVE5']],
      ['2026-04-15', '40.00', []],
      ['2026-05-15', '40.00', []],
    ]);
  });

  it('keeps the prorated unit price unrounded and rounds the line amount once', () => {
    const [invoice] = computeInvoices(
      engineInput({
        billingPeriods: specifiedDay1,
        subscriptions: [subscription({ isProrated: true, products: [product({ quantity: d(3), unitPrice: d('19.99') })] })],
      }),
    );
    const [line] = invoice!.charges;
    // 19.99 × 17/31 = 10.962258064516129032…; × 3 = 32.886774… → 32.89 (rounding the unit price first would give 32.88).
    expect(line!.proratedUnitPrice.toFixed(18)).toBe('10.962258064516129032');
    expect(line!.amount.toFixed(2)).toBe('32.89');
    expect(line!.unitPrice.toFixed(2)).toBe('19.99');
    expect([line!.startServiceDate, line!.endServiceDate]).toEqual(['2026-01-15', '2026-02-01']);
  });

  it('gives no invoice for no subscriptions, and an invoice of 0 when every line is dropped', () => {
    expect(computeInvoices(engineInput({ subscriptions: [] }))).toEqual([]);
    const [invoice] = computeInvoices(engineInput({ subscriptions: [subscription({ products: [product({ unitPrice: d(0) })] })] }));
    expect(summarize(invoice!)).toMatchObject({ ids: [1], lines: [], total: '0.00', next: { 1: '2026-02-15' } });
  });

  it('uses up no coupon of a subscription whose recurring lines are all dropped (nothing to discount)', () => {
    const once = coupon({ code: 'ONCE', duration: 'Once' });
    const [dropped] = computeInvoices(
      engineInput({ subscriptions: [subscription({ products: [product({ included: false })], coupons: [once] })] }),
    );
    expect(dropped!.couponsApplied).toEqual({ 1: [] });
    const [zero] = computeInvoices(
      engineInput({
        subscriptions: [subscription({ isFirstInvoice: true, products: [product({ unitPrice: d(0), setupFee: d(5) })], coupons: [once] })],
        showZeroDollarCharges: false,
      }),
    );
    expect(zero!.charges.map((c) => c.kind)).toEqual(['SetupFee']);
    expect(zero!.couponsApplied).toEqual({ 1: [] });
  });

  it('reports coupons applied per subscription (also when they came to nothing)', () => {
    const [invoice] = computeInvoices(
      engineInput({
        subscriptions: [
          subscription({
            subscriptionId: 1,
            coupons: [coupon(), coupon({ code: 'ALWAYS', duration: 'Forever', kind: 'Amount', value: d(100) })],
          }),
          subscription({
            subscriptionId: 2,
            coupons: [coupon({ periodsUsed: 1 }), coupon({ code: 'P2', duration: 'Periods', periods: 2, periodsUsed: 1 })],
          }),
        ],
      }),
    );
    expect(invoice!.couponsApplied).toEqual({ 1: ['TEN', 'ALWAYS'], 2: ['P2'] });
    // 19.99: 10 % = 2.00, then 100.00 capped at the 17.99 left.
    expect(invoice!.charges[0]!.discounts.map((x) => [x.name, x.amount.toFixed(2)])).toEqual([
      ['TEN', '2.00'],
      ['ALWAYS', '17.99'],
    ]);
    expect(invoice!.charges[0]!.taxableAmount.toFixed(2)).toBe('0.00');
  });

  it('rejects input it cannot bill, naming the field', () => {
    expect(() => computeInvoices(engineInput({ currency: 'XYZ' }))).toThrow(/currency/);
    expect(() => computeInvoices(engineInput({ effectiveDate: '2026-02-30' }))).toThrow(/effectiveDate/);
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription(), subscription()] }))).toThrow(/appears twice/);
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription({ numberOfIntervals: 0 })] }))).toThrow(/numberOfIntervals/);
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription({ coupons: [coupon({ duration: 'Periods' })] })] }))).toThrow(
      /periods/,
    );
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription({ products: [product({ unitPrice: d(-1) })] })] }))).toThrow(
      /unitPrice/,
    );
    expect(() => computeInvoices(engineInput({ billingPeriods: { Monthly: { type: 'SpecifiedDate', rule: 'SingleInvoice' } } }))).toThrow(
      /day/,
    );
    expect(() =>
      computeInvoices(
        engineInput({
          billingPeriods: { Yearly: { type: 'SpecifiedDate', rule: 'SingleInvoice', day: 1 } },
          subscriptions: [subscription({ interval: 'Yearly' })],
        }),
      ),
    ).toThrow(/month/);
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription({ periodStart: '2026-01-15', anchorDay: 31 })] }))).toThrow(
      /anchorDay/,
    );
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription({ billFrom: '2026-02-15' })] }))).toThrow(/billFrom/);
    expect(() => computeInvoices(engineInput({ subscriptions: [subscription({ billFrom: '2026-01-14' })] }))).toThrow(/billFrom/);
  });
});
