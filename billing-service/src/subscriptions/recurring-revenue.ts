import type { Decimal } from 'decimal.js';
import { money, roundToCurrency, sumMoney } from '../money/money.js';

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
  frequency: { interval: 'Monthly' | 'Yearly'; numberOfIntervals: number },
  currency: string,
): { gross: Decimal; net: Decimal; perPeriod: Decimal } {
  const months = (frequency.interval === 'Yearly' ? 12 : 1) * frequency.numberOfIntervals;
  const lines = products
    .filter((p) => p.included)
    .map((p) => {
      // Each line in whole minor units, as the invoice bills it.
      const amount = roundToCurrency(money(p.quantity).times(p.unitPrice), currency);
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

function atLeastZero(value: Decimal): Decimal {
  return value.isNegative() ? money(0) : value;
}
