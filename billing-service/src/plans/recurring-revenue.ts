import type { Decimal } from 'decimal.js';
import type { Selectable } from 'kysely';
import type { SubscriptionProductsTable } from '../db/schema.js';
import { money, roundToCurrency, sumMoney } from '../money/money.js';

/*
 * Recurring revenue and a product's charge per period: pure maths over a subscription's products
 * and its plan frequency, below every domain that shows it (customers, subscriptions, invoices).
 */

type SubscriptionProductRow = Selectable<SubscriptionProductsTable>;

/** What recurring revenue reads of a product. */
export type RevenueProductRow = Pick<
  SubscriptionProductRow,
  'quantity' | 'catalogPrice' | 'priceOverride' | 'included' | 'discountKind' | 'discountValue'
>;

/** An Active subscription as recurring revenue reads it. */
export interface RevenueSubscription {
  customerId: number;
  currency: string;
  interval: BillingInterval;
  numberOfIntervals: number;
  products: RevenueProductRow[];
}

export type BillingInterval = 'Monthly' | 'Yearly';

/**
 * Months in one interval: the monthly normalisation of recurring revenue, written once. The API's
 * monthlyRecurringRevenue divides by monthsPerPeriod; the console's revenue SQL is generated from
 * this table (plans/repository.ts monthsPerPeriodSql), so both divide by the same months.
 */
export const MONTHS_PER_INTERVAL: Readonly<Record<BillingInterval, number>> = { Monthly: 1, Yearly: 12 };

/** Months one billing period of a plan frequency covers (a yearly period: 12, every 2 months: 2). */
export function monthsPerPeriod(frequency: { interval: BillingInterval; numberOfIntervals: number }): number {
  return MONTHS_PER_INTERVAL[frequency.interval] * frequency.numberOfIntervals;
}

/** The price a product is billed at: the override when set, else the catalogue price. */
export function effectiveUnitPrice(product: Pick<SubscriptionProductRow, 'priceOverride' | 'catalogPrice'>): string {
  return product.priceOverride ?? product.catalogPrice;
}

/** A product's charge per period, in whole minor units as the invoice bills it (0 when not included). */
export function productAmount(
  product: Pick<SubscriptionProductRow, 'priceOverride' | 'catalogPrice' | 'quantity' | 'included'>,
  currency: string,
): Decimal {
  return product.included ? lineAmount(product.quantity, effectiveUnitPrice(product), currency) : money(0);
}

function lineAmount(quantity: Decimal.Value, unitPrice: Decimal.Value, currency: string): Decimal {
  return roundToCurrency(money(quantity).times(unitPrice), currency);
}

export interface RevenueProduct {
  quantity: Decimal.Value;
  unitPrice: Decimal.Value;
  included: boolean;
  discount: { type: 'Percentage' | 'Amount'; amount: Decimal.Value } | null;
}

/**
 * Monthly recurring revenue of one subscription: the recurring charges of its
 * included products per period, divided by the months in a period (a yearly
 * charge counts 1/12). Net MRR takes the product discounts off first (a
 * discount never takes a product below zero). Rounded to the currency.
 */
export function recurringRevenue(
  products: readonly RevenueProduct[],
  frequency: { interval: BillingInterval; numberOfIntervals: number },
  currency: string,
): { gross: Decimal; net: Decimal; perPeriod: Decimal } {
  const months = monthsPerPeriod(frequency);
  const lines = products
    .filter((p) => p.included)
    .map((p) => {
      const amount = lineAmount(p.quantity, p.unitPrice, currency);
      let discount = money(0);
      if (p.discount?.type === 'Percentage') discount = amount.times(p.discount.amount).dividedBy(100);
      if (p.discount?.type === 'Amount') discount = money(p.discount.amount);
      return { amount, net: atLeastZero(amount.minus(discount)) };
    });
  const perPeriod = sumMoney(lines.map((l) => l.amount));
  return {
    perPeriod: roundToCurrency(perPeriod, currency),
    gross: roundToCurrency(perPeriod.dividedBy(months), currency),
    net: roundToCurrency(sumMoney(lines.map((l) => l.net)).dividedBy(months), currency),
  };
}

/** Recurring revenue of one stored subscription, at the prices it bills. */
export function revenueOf(
  products: RevenueProductRow[],
  frequency: { interval: BillingInterval; numberOfIntervals: number },
  currency: string,
) {
  return recurringRevenue(
    products.map((p) => ({
      quantity: p.quantity,
      unitPrice: effectiveUnitPrice(p),
      included: p.included,
      discount: p.discountKind ? { type: p.discountKind as 'Percentage' | 'Amount', amount: p.discountValue ?? '0' } : null,
    })),
    frequency,
    currency,
  );
}

/** Recurring revenue per customer of Active subscriptions read already (see activeSubscriptionsJson). */
export function recurringRevenueByCustomer(subscriptions: readonly RevenueSubscription[]): Map<number, { gross: string; net: string }> {
  const totals = new Map<number, { gross: string; net: string }>();
  for (const s of subscriptions) {
    const revenue = revenueOf(s.products, s, s.currency);
    const before = totals.get(s.customerId) ?? { gross: '0', net: '0' };
    totals.set(s.customerId, {
      gross: money(before.gross).plus(revenue.gross).toString(),
      net: money(before.net).plus(revenue.net).toString(),
    });
  }
  return totals;
}

function atLeastZero(value: Decimal): Decimal {
  return value.isNegative() ? money(0) : value;
}
