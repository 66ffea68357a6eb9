import type { PlanOption } from '../checkout-contract.js';

/** Formats a decimal-string amount exactly (Intl takes the string as is: no float on the way). */
export function formatMoney(amount: string, currency: string): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount as Intl.StringNumericLiteral);
}

export function periodLabel(plan: Pick<PlanOption, 'interval' | 'numberOfIntervals'>): string {
  const unit = plan.interval === 'Yearly' ? 'year' : 'month';
  return plan.numberOfIntervals === 1 ? `per ${unit}` : `every ${plan.numberOfIntervals} ${unit}s`;
}
