import type { LifecycleResponse, PlanResponse, SubscriptionResponse } from '@renew/billing-service/api-types';
import { API_ERROR_KEY, ApiError } from '@renew/billing-service/http';
import type { OrderSummary } from '../../checkout-contract.js';
import type { BillingForShopper, ProxyContext } from '../proxy-context.js';

type PlanProduct = PlanResponse['planProducts'][number];

/** The products whose quantity the shopper chooses: those with a maximum (the catalogue requires one for a range). */
export function choosableProducts(planProducts: PlanProduct[]): Array<PlanProduct & { maxQuantity: number }> {
  return planProducts.filter((p): p is PlanProduct & { maxQuantity: number } => p.maxQuantity !== undefined);
}

/** Step 5: the first invoice as the billing API previews it, with the renewal that follows it. */
export async function previewFor(
  ctx: ProxyContext,
  api: BillingForShopper,
  customerId: number,
  subscription: SubscriptionResponse,
  planProducts: PlanProduct[],
): Promise<Omit<OrderSummary, 'captureToken'>> {
  const { amount } = ctx;
  const preview = await api.call<LifecycleResponse>('POST', '/v1/customeractivation?preview=true', { customerId });
  const invoice = preview.invoicePreview;
  if (!invoice) throw ApiError.badRequest('there is nothing to pay: choose a plan first', API_ERROR_KEY, 'state_conflict');
  // The first period's exclusive end is the next period's start: the day of the next charge.
  const firstPeriod = invoice.draftCharges.find((c) => c.chargeType === 'Recurring' && c.subscriptionId === subscription.id);
  const coupon = subscription.coupons[0];
  return {
    customerId,
    currency: invoice.currency,
    lines: invoice.draftCharges.map((c) => ({
      // The billing API names a setup fee line in English ("Seat (setup fee)"): the product's own name, and the kind, go to the browser.
      name: planProducts.find((p) => p.code === c.productCode)?.name ?? c.name,
      kind: c.chargeType,
      quantity: c.quantity,
      amount: amount(c.amount),
    })),
    subtotal: amount(invoice.subtotal),
    totalDiscount: amount(invoice.totalDiscount),
    taxes: invoice.draftTaxes.map((t) => ({ name: t.name, amount: amount(t.amount) })),
    totalTaxes: amount(invoice.totalTaxes),
    total: amount(invoice.total),
    quantities: choosableProducts(planProducts).map((p) => ({
      code: p.code,
      name: p.name,
      quantity: subscription.subscriptionProducts.find((s) => s.productCode === p.code)?.quantity ?? p.quantity,
      minQuantity: p.minQuantity ?? 1,
      maxQuantity: p.maxQuantity,
    })),
    coupon: coupon ? { code: coupon.code, name: coupon.name } : null,
    renewal: {
      amount: amount(subscription.amount),
      interval: subscription.planFrequency.interval,
      numberOfIntervals: subscription.planFrequency.numberOfIntervals,
      nextChargeDate:
        firstPeriod?.endServiceDate ?? subscription.nextPeriodStartDate?.slice(0, 10) ?? invoice.effectiveTimestamp.slice(0, 10),
      plusTax: invoice.draftTaxes.length > 0,
      // remainingPeriods counts the first invoice too; null: a Forever coupon.
      discountContinues: subscription.coupons.some((c) => c.remainingPeriods === null || c.remainingPeriods > 1),
    },
  };
}
