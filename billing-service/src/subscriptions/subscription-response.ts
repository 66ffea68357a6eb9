import type { Catalog } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import { toJsonAmount } from '../money/money.js';
import { productAmount, revenueOf } from '../plans/recurring-revenue.js';
import { countSubscriptionsByFrequency } from '../plans/repository.js';
import { toPlanFrequencyResponse } from '../plans/service.js';
import type { UriBuilder } from '../uri-builder.js';
import {
  findCoupons,
  findPendingChanges,
  findPlanFrequencies,
  findProducts,
  hasPostedInvoices,
  type PendingPlanChangeRow,
  type SubscriptionProductRow,
  type SubscriptionWithPlan,
} from './repository.js';
import type { PendingChangeResponse, SubscriptionResponse } from './schemas.js';

/** Subscriptions as the API returns them, with products, coupons and posted-invoice flags in three queries. */
export async function toSubscriptionResponses(
  db: Queryable,
  catalog: Catalog,
  uris: UriBuilder,
  subscriptions: SubscriptionWithPlan[],
): Promise<SubscriptionResponse[]> {
  const ids = subscriptions.map((s) => s.id);
  const frequencyIds = subscriptions.map((s) => s.planFrequencyId);
  const accountId = subscriptions[0]?.accountId ?? 0;
  const [products, coupons, posted, frequencies, subscriptionCounts, pending] = await Promise.all([
    findProducts(db, ids),
    findCoupons(db, ids),
    hasPostedInvoices(db, ids),
    findPlanFrequencies(db, frequencyIds),
    countSubscriptionsByFrequency(db, accountId, frequencyIds),
    findPendingChanges(db, ids),
  ]);
  const frequencyOf = (s: SubscriptionWithPlan) => {
    const frequency = frequencies.find((f) => f.id === s.planFrequencyId);
    if (!frequency) throw new Error(`plan frequency ${s.planFrequencyId} of subscription ${s.id} not found (a foreign key holds it)`);
    return frequency;
  };
  return subscriptions.map((s) => {
    const uri = uris.resource('subscriptions', s.id);
    const own = products.filter((p) => p.subscriptionId === s.id);
    const revenue = revenueOf(own, s, s.currency);
    const date = (d: Date | null) => d?.toISOString() ?? null;
    return {
      customerId: s.customerId,
      planFrequency: toPlanFrequencyResponse(frequencyOf(s), subscriptionCounts.get(s.planFrequencyId) ?? 0, uris),
      planCode: s.planCode,
      planName: s.planName,
      planDescription: s.planDescription,
      planReference: s.planReference,
      status: s.status as SubscriptionResponse['status'],
      reference: s.reference,
      subscriptionOverride: { name: s.name === s.planName ? null : s.name, description: s.description },
      hasPostedInvoice: posted.has(s.id),
      createdTimestamp: s.createdAt.toISOString(),
      activatedTimestamp: date(s.activatedAt),
      provisionedTimestamp: date(s.activatedAt),
      nextPeriodStartDate: s.nextPeriodStart,
      scheduledActivationTimestamp: null,
      subscriptionProducts: own.map((p) => toSubscriptionProductResponse(p, s, uri)),
      // Subscriptions renew until cancelled: no fixed number of intervals to count down or push out.
      remainingInterval: null,
      remainingIntervalPushOut: null,
      openSubscriptionPeriodEndDate: s.status === 'Active' ? s.nextPeriodStart : null,
      // Discounts are per product (subscriptionProducts[].discount) and coupons; none is subscription-wide or on setup fees.
      chargeDiscount: null,
      setupFeeDiscount: null,
      chargeDiscounts: [],
      setupFeeDiscounts: [],
      customFields: s.customFields ?? null,
      // The plan's flag (false for every plan here) and the subscription's: catalogue changes never reach existing subscriptions.
      planAutoApplyChanges: false,
      autoApplyCatalogChanges: false,
      coupons: toCouponResponses(
        catalog,
        coupons.filter((c) => c.subscriptionId === s.id),
      ),
      monthlyRecurringRevenue: toJsonAmount(revenue.gross),
      netMonthlyRecurringRevenue: toJsonAmount(revenue.net),
      amount: toJsonAmount(revenue.perPeriod),
      currency: s.currency,
      contractStartTimestamp: date(s.contractStartAt),
      contractEndTimestamp: date(s.contractEndAt),
      expiredTimestamp: date(s.expiresAt),
      cancellationTimestamp: date(s.cancelledAt),
      // Recurring charges are billed at the start of each period.
      subscriptionHasRecurringEndOfPeriodCharge: false,
      pendingChange: toPendingChangeResponse(pending.find((p) => p.subscriptionId === s.id)),
      id: s.id,
      uri,
    };
  });
}

/** A scheduled plan change as the subscription shows it; null when none. */
export function toPendingChangeResponse(row: PendingPlanChangeRow | undefined): PendingChangeResponse | null {
  if (!row) return null;
  return {
    planFrequencyId: row.planFrequencyId,
    quantities: Object.fromEntries(Object.entries(row.quantities).map(([code, quantity]) => [code, toJsonAmount(quantity)])),
    effectiveDate: row.effectiveDate,
    createdTimestamp: row.createdAt.toISOString(),
  };
}

/** One product as its subscription embeds it (`uri`: the subscription's). */
export function toSubscriptionProductResponse(
  p: Omit<SubscriptionProductRow, 'position'>,
  s: { id: number; currency: string },
  uri: string,
): SubscriptionResponse['subscriptionProducts'][number] {
  return {
    subscriptionId: s.id,
    productCode: p.productCode,
    productName: p.name,
    productDescription: p.description,
    quantity: toJsonAmount(p.quantity),
    isIncluded: p.included,
    unitPrice: toJsonAmount(p.catalogPrice),
    priceOverride: p.priceOverride === null ? null : toJsonAmount(p.priceOverride),
    setupFee: toJsonAmount(p.setupFee),
    discount: p.discountKind ? { type: p.discountKind as 'Percentage' | 'Amount', amount: toJsonAmount(p.discountValue) } : null,
    amount: toJsonAmount(productAmount(p, s.currency)),
    id: p.id,
    uri: `${uri}/subscriptionProducts/${p.id}`,
  };
}

/** A subscription's coupons with what is left of each (`Periods`: its periods, `Once`: one, `Forever`: null). */
function toCouponResponses(catalog: Catalog, coupons: Array<{ couponCode: string; periodsUsed: number }>): SubscriptionResponse['coupons'] {
  return coupons.map((c) => {
    const coupon = catalog.coupons.find((k) => k.code === c.couponCode);
    const remaining =
      coupon?.duration === 'Periods'
        ? Math.max(0, (coupon.periods ?? 0) - c.periodsUsed)
        : coupon?.duration === 'Once'
          ? Math.max(0, 1 - c.periodsUsed)
          : null;
    return { code: c.couponCode, name: coupon?.name ?? null, periodsUsed: c.periodsUsed, remainingPeriods: remaining };
  });
}
