import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { TERMS } from '../../../src/catalog/schema.js';
import {
  addDays,
  type BillingPeriodRule,
  type EngineCoupon,
  type EngineInput,
  type EngineProduct,
  type EngineSubscription,
} from '../../../src/invoices/engine/index.js';

/** A decimal with up to `places` decimals, from 0 to max. */
export const decimalArb = (max: number, places: number) =>
  fc.integer({ min: 0, max: Math.round(max * 10 ** places) }).map((n) => new Decimal(n).dividedBy(10 ** places));

/** A YYYY-MM-DD date from 2020 to 2030. */
export const dateArb = fc.integer({ min: 0, max: 4017 }).map((n) => addDays('2020-01-01', n));

export const currencyArb = fc.constantFrom('USD', 'EUR', 'JPY', 'BHD', 'KWD', 'CLF');

export const productArb: fc.Arbitrary<EngineProduct> = fc.record(
  {
    productCode: fc.constantFrom('A', 'B', 'C', 'D'),
    name: fc.constantFrom('Alpha', 'Beta', 'Gamma'),
    description: fc.option(fc.constant('desc')),
    quantity: fc.oneof(decimalArb(20, 0), decimalArb(10, 3)),
    unitPrice: fc.oneof(decimalArb(1000, 2), decimalArb(100, 4), decimalArb(100_000, 0), fc.constant(new Decimal(0))),
    setupFee: fc.option(decimalArb(200, 2)),
    included: fc.integer({ min: 0, max: 4 }).map((n) => n > 0), // mostly included
    discount: fc.option(
      fc.oneof(
        fc.record({ kind: fc.constant('Percentage' as const), value: decimalArb(150, 1) }),
        fc.record({ kind: fc.constant('Amount' as const), value: decimalArb(500, 2) }),
      ),
    ),
  },
  { requiredKeys: ['productCode', 'name', 'quantity', 'unitPrice', 'included'] },
);

export const couponArb: fc.Arbitrary<EngineCoupon> = fc.record({
  code: fc.constantFrom('C1', 'C2', 'C3', 'C4'),
  name: fc.option(fc.constantFrom('Welcome', 'Loyalty')),
  kind: fc.constantFrom('Percentage' as const, 'Amount' as const),
  value: fc.oneof(decimalArb(100, 0), decimalArb(300, 2)),
  duration: fc.constantFrom('Once' as const, 'Periods' as const, 'Forever' as const),
  periods: fc.integer({ min: 1, max: 5 }),
  periodsUsed: fc.integer({ min: 0, max: 6 }),
});

export const subscriptionArb = (id: fc.Arbitrary<number>): fc.Arbitrary<EngineSubscription> =>
  fc.record({
    subscriptionId: id,
    name: fc.constant('Subscription'),
    interval: fc.constantFrom('Monthly' as const, 'Yearly' as const),
    numberOfIntervals: fc.integer({ min: 1, max: 4 }),
    isProrated: fc.boolean(),
    products: fc.array(productArb, { maxLength: 4 }),
    coupons: fc.array(couponArb, { maxLength: 3 }),
    isFirstInvoice: fc.boolean(),
    periodStart: dateArb,
  });

export const ruleArb: fc.Arbitrary<BillingPeriodRule> = fc.record({
  type: fc.constantFrom('CustomerActivation' as const, 'FirstSubscriptionActivation' as const, 'SpecifiedDate' as const),
  rule: fc.constantFrom('SingleInvoice' as const, 'MultipleInvoices' as const, 'OneInvoicePerDay' as const, 'Prompt' as const),
  day: fc.integer({ min: 1, max: 31 }),
  month: fc.integer({ min: 1, max: 12 }),
});

export const inputArb: fc.Arbitrary<EngineInput> = fc.record({
  currency: currencyArb,
  effectiveDate: dateArb,
  subscriptions: fc.uniqueArray(subscriptionArb(fc.integer({ min: 1, max: 50 })), { selector: (s) => s.subscriptionId, maxLength: 5 }),
  billingPeriods: fc.record({ Monthly: ruleArb, Yearly: ruleArb }, { requiredKeys: [] }),
  taxRates: fc.array(
    fc.record({
      name: fc.constantFrom('GST', 'HST', 'PST', 'VAT'),
      rate: fc.integer({ min: 0, max: 3000 }).map((n) => new Decimal(n).dividedBy(10_000)),
    }),
    { maxLength: 3 },
  ),
  term: fc.constantFrom(...TERMS),
  showZeroDollarCharges: fc.boolean(),
  rollUpTaxes: fc.boolean(),
  rollUpDiscounts: fc.boolean(),
});
