import type { z } from 'zod';
import type { CaptureTokenResponse, CustomerResponse, SubscriptionResponse } from '@renew/billing-service/api-types';
import { ApiError } from '@renew/billing-service/http';
import type { OrderSummary } from '../../checkout-contract.js';
import type { BillingForShopper, Exchange, ProxyContext } from '../proxy-context.js';
import type { PROXY_ROUTES } from '../proxy-routes.js';
import { CHECKOUT_COMPLETE, shopperRefusal } from '../shopper-refusal.js';
import { choosableProducts, previewFor } from './order-summary.js';

type OrderBody = z.infer<typeof PROXY_ROUTES.order.body>;

/** Step 4: the subscription as the shopper configured it, then step 5: the previewed first invoice. */
export async function order(ctx: ProxyContext, exchange: Exchange): Promise<OrderSummary> {
  const api = ctx.billingFor(exchange);
  const { customerId } = exchange.params as { customerId: number };
  ctx.requireSession(exchange, customerId);
  const { planFrequencyId, quantities = {}, couponCode } = exchange.body as OrderBody;
  const plan = (await ctx.catalogPlans(exchange.headers)).find((p) => p.planFrequencies.some((f) => f.id === planFrequencyId));
  const choosable = choosableProducts(plan?.planProducts ?? []);
  checkQuantities(choosable, quantities);
  let subscription = await draftSubscription(api, customerId, planFrequencyId);
  const wantedQuantity = (code: string) => quantities[code] ?? choosable.find((p) => p.code === code)?.quantity;
  const wantedCoupons = couponCode ? [couponCode.toUpperCase()] : [];
  const changed =
    subscription.subscriptionProducts.some(
      (p) => wantedQuantity(p.productCode) !== undefined && p.quantity !== wantedQuantity(p.productCode),
    ) || subscription.coupons.map((c) => c.code.toUpperCase()).join() !== wantedCoupons.join();
  if (changed) subscription = await applyChoice(api, subscription, wantedQuantity, couponCode);
  const summary = await previewFor(ctx, api, customerId, subscription, plan?.planProducts ?? []);
  // The capture host adds the shopper's card to this customer only with a token, for at most the total.
  const { token } = await api.call<CaptureTokenResponse>('POST', '/v1/captureTokens', {
    customerId,
    maxCollectionAmount: summary.total,
  });
  return { ...summary, captureToken: token };
}

/** The catalogue's bounds, checked here: the billing API lets the merchant's back office set any quantity. */
function checkQuantities(choosable: ReturnType<typeof choosableProducts>, quantities: Record<string, number>): void {
  for (const [code, quantity] of Object.entries(quantities)) {
    const product = choosable.find((p) => p.code === code);
    if (!product) throw ApiError.badRequest('the quantity of this product cannot be chosen', `quantities.${code}`, 'quantity_fixed');
    const min = product.minQuantity ?? 1;
    if (quantity < min || quantity > product.maxQuantity) {
      throw ApiError.badRequest(`must be between ${min} and ${product.maxQuantity}`, `quantities.${code}`, 'quantity_out_of_bounds');
    }
  }
}

/** The checkout's one Draft subscription of this plan: the existing one (a repeated request), or a new one. */
async function draftSubscription(api: BillingForShopper, customerId: number, planFrequencyId: number): Promise<SubscriptionResponse> {
  // Checked before anything is written: once activated, the session may only read its own invoice.
  const customer = await api.call<CustomerResponse>('GET', `/v1/customers/${customerId}`);
  // One plan per checkout; a repeated request (double click, retry) is answered like the first.
  const existing = await api.call<SubscriptionResponse[]>('GET', `/v1/customers/${customerId}/subscriptions`);
  if (customer.status !== 'Draft' || existing.some((s) => s.status !== 'Draft'))
    throw ApiError.conflict(CHECKOUT_COMPLETE, 'customerId', 'checkout_complete');
  if (existing.some((s) => s.planFrequency.id !== planFrequencyId)) {
    throw ApiError.conflict(
      'this checkout already has another plan: start a new checkout to change it',
      'planFrequencyId',
      'state_conflict',
    );
  }
  return existing[0] ?? (await api.call<SubscriptionResponse>('POST', '/v1/subscriptions', { customerId, planFrequencyId }));
}

/** The chosen quantities and coupon, on the Draft subscription; a refused coupon is an error on the coupon field. */
async function applyChoice(
  api: BillingForShopper,
  subscription: SubscriptionResponse,
  quantity: (code: string) => number | undefined,
  couponCode: string | undefined,
): Promise<SubscriptionResponse> {
  try {
    return await api.call<SubscriptionResponse>('PUT', '/v1/subscriptions', {
      id: subscription.id,
      // Draft, not whatever was read: the billing API refuses the change (under its lock) if an activation came in between.
      status: 'Draft',
      subscriptionProducts: subscription.subscriptionProducts
        .filter((p) => quantity(p.productCode) !== undefined)
        .map((p) => ({ id: p.id, quantity: String(quantity(p.productCode)) })),
      coupons: couponCode ? [{ code: couponCode }] : [],
    });
  } catch (error) {
    throw error instanceof ApiError ? shopperRefusal(error) : error;
  }
}
