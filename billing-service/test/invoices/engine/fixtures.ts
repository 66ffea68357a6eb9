import { Decimal } from 'decimal.js';
import { minorUnits } from '../../../src/money/money.js';
import type { DraftInvoice, EngineCoupon, EngineInput, EngineProduct, EngineSubscription } from '../../../src/invoices/engine/index.js';

export const d = (value: Decimal.Value) => new Decimal(value);

export function product(overrides: Partial<EngineProduct> = {}): EngineProduct {
  return { productCode: 'PRO', name: 'Pro', quantity: d(1), unitPrice: d('19.99'), included: true, ...overrides };
}

export function coupon(overrides: Partial<EngineCoupon> = {}): EngineCoupon {
  return { code: 'TEN', kind: 'Percentage', value: d(10), duration: 'Once', periodsUsed: 0, ...overrides };
}

export function subscription(overrides: Partial<EngineSubscription> = {}): EngineSubscription {
  return {
    subscriptionId: 1,
    name: 'Subscription',
    interval: 'Monthly',
    numberOfIntervals: 1,
    isProrated: false,
    products: [product()],
    coupons: [],
    isFirstInvoice: false,
    periodStart: '2026-01-15',
    ...overrides,
  };
}

export function engineInput(overrides: Partial<EngineInput> = {}): EngineInput {
  return {
    currency: 'USD',
    effectiveDate: '2026-01-15',
    subscriptions: [subscription()],
    billingPeriods: {},
    taxRates: [],
    term: 'Net0',
    showZeroDollarCharges: false,
    rollUpTaxes: false,
    rollUpDiscounts: false,
    ...overrides,
  };
}

/**
 * A readable, exact picture of an invoice: every amount printed with the currency's minor-unit
 * decimals. Line: "<kind> <productCode> <amount>", then " -<discount name> <amount>" per discount.
 */
export function summarize(invoice: DraftInvoice) {
  const places = minorUnits(invoice.currency);
  const f = (x: Decimal) => x.toFixed(places);
  return {
    ids: invoice.subscriptionIds,
    lines: invoice.charges.map(
      (c) => `${c.kind} ${c.productCode} ${f(c.amount)}${c.discounts.map((x) => ` -${x.name} ${f(x.amount)}`).join('')}`,
    ),
    subtotal: f(invoice.subtotal),
    discount: f(invoice.totalDiscount),
    taxes: invoice.taxes.map((t) => `${t.name} ${t.rate.toString()} ${f(t.amount)}`),
    total: f(invoice.total),
    due: invoice.dueDate,
    next: invoice.nextPeriodStart,
  };
}
