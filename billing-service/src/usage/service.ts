import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Caller } from '../http/auth.js';
import { sumMoney, toJsonAmount } from '../money/money.js';
import { priceUsage } from '../pricing/usage-charges.js';
import { Refusal } from '../refusals/refusal.js';
import { findSubscription } from '../subscriptions/repository.js';
import { usageQuantity, usageWindowStart } from './quantities.js';
import type { SubscriptionUsageResponse, UsageChargeResponse } from './schemas.js';
import type { Catalog } from '../catalog/schema.js';

/**
 * GET /v1/subscriptions/{id}/usage (issue 41): the current period's usage of each metric the subscription's plan
 * frequency charges, and what it comes to so far under the charge (rounded once per metric, as the invoice line will
 * be). The period is the subscription's current one, [currentPeriodStart, nextPeriodStart) in UTC days.
 */
export async function getSubscriptionUsage(ctx: AppContext, caller: Caller, subscriptionId: number): Promise<SubscriptionUsageResponse> {
  const subscription = await findSubscription(ctx.db, caller.accountId, subscriptionId);
  if (!subscription) throw Refusal.notFound('subscription', subscriptionId);
  const customer = await findCustomerRow(ctx.db, caller.accountId, subscription.customerId);
  if (!customer) throw new Error(`subscription ${subscriptionId} has no customer`);
  const frequency = ctx.catalog.plans.flatMap((p) => p.frequencies).find((f) => f.id === subscription.planFrequencyId);
  const today = (await ctx.clock.now(caller.accountId)).toISOString().slice(0, 10);
  const periodStart = usageWindowStart(subscription) ?? today;
  const periodEnd = subscription.nextPeriodStart ?? today;
  const metrics = await Promise.all(
    (frequency?.usageCharges ?? []).map(async (charge) => {
      const metric = ctx.catalog.billableMetrics.find((m) => m.code === charge.metric);
      if (!metric) throw new Error(`the catalogue checks that metric ${charge.metric} exists`);
      const quantity = await usageQuantity(ctx.db, subscription.id, metric, periodStart, periodEnd);
      const priced = priceUsage(charge, quantity, customer.currency);
      return {
        metricCode: metric.code,
        name: charge.name ?? metric.name,
        quantity,
        billedUnits: priced.billedUnits,
        amount: priced.amount,
      };
    }),
  );
  return {
    subscriptionId: subscription.id,
    currency: customer.currency,
    periodStart,
    periodEnd,
    metrics: metrics.map((m) => ({
      metricCode: m.metricCode,
      name: m.name,
      quantity: toJsonAmount(m.quantity),
      billedUnits: toJsonAmount(m.billedUnits),
      amount: toJsonAmount(m.amount),
    })),
    amount: toJsonAmount(sumMoney(metrics.map((m) => m.amount))),
  };
}

/** GET /v1/usageCharges: the catalogue's usage charges, per plan frequency (see UsageChargeResponse). */
export function listUsageCharges(catalog: Catalog): UsageChargeResponse[] {
  return catalog.plans.flatMap((plan) =>
    plan.frequencies.flatMap((f) =>
      f.usageCharges.map((c) => ({
        planFrequencyId: f.id,
        metricCode: c.metric,
        name: c.name ?? catalog.billableMetrics.find((m) => m.code === c.metric)?.name ?? c.metric,
        model: c.model,
        freeUnits: c.freeUnits,
        packageSize: c.packageSize ?? null,
        prices: c.prices.map((p) => ({
          currency: p.currency,
          unitAmount: p.unitAmount ?? null,
          packageAmount: p.packageAmount ?? null,
          tiers: p.tiers ?? null,
        })),
      })),
    ),
  );
}
