import { invoiceTotals } from './compute-invoices.js';
import { emptyInvoice, type PurchasePricing } from './purchases.js';
import type { DraftInvoice, EngineUsage } from './types.js';
import { usageLine } from './usage-lines.js';

/**
 * The invoice of usage billed outside a renewal (a cancellation's final usage): its lines taxed as any, shown at 0
 * only with `showZeroDollarCharges`; no coupon (coupons are used up by periods, and this bills none); no invoice when
 * no line is left.
 */
export function usageInvoice(
  usages: ReadonlyArray<{ subscriptionId: number; usage: EngineUsage }>,
  pricing: PurchasePricing & { showZeroDollarCharges: boolean },
): DraftInvoice[] {
  const lines = usages
    .map(({ subscriptionId, usage }) => usageLine(subscriptionId, usage, pricing.currency))
    .filter((line) => pricing.showZeroDollarCharges || !line.amount.isZero());
  if (lines.length === 0) return [];
  return [{ ...emptyInvoice(pricing), ...invoiceTotals(lines, pricing) }];
}
