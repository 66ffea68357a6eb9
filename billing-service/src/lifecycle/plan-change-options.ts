import type { AppContext } from '../app-context.js';
import type { Queryable } from '../db/database.js';
import { toJsonAmount } from '../money/money.js';
import { findFrequenciesOfPlans, findPlanFrequency, selectPlans } from '../plans/repository.js';
import { revenueOf } from '../plans/recurring-revenue.js';
import { findProducts, type SubscriptionWithPlan } from '../subscriptions/repository.js';

import { targetRefusal, productsAfterChange } from './plan-change-rules.js';

/** A plan frequency a subscription may switch to, with what one period costs after the switch (before discounts and taxes). */
export interface PlanChangeTarget {
  planFrequencyId: number;
  planCode: string;
  planName: string;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  amount: number;
}

/** A product of the subscription's plan whose quantity may change (seats), with its bounds. */
export interface AdjustableQuantity {
  productCode: string;
  name: string;
  quantity: number;
  minQuantity: number;
  maxQuantity: number;
}

/**
 * What a subscription may change to (the customer portal's "Change plan" and "Seats"), by the rules a change is
 * checked against: every plan frequency targetFrequency accepts other than its own, with the per-period amount of
 * its products as productsAfterChange would leave them; and the products of its plan with a maxQuantity (the
 * others are fixed at their catalogue quantity). Reads only; the change itself is checked again when asked for.
 */
export async function planChangeOptions(
  ctx: AppContext,
  db: Queryable,
  s: SubscriptionWithPlan,
): Promise<{ targets: PlanChangeTarget[]; quantities: AdjustableQuantity[] }> {
  const plans = await selectPlans(db).where('status', '=', 'Active').orderBy('id').execute();
  const frequencies = await findFrequenciesOfPlans(
    db,
    plans.map((p) => p.id),
  );
  const before = await findProducts(db, [s.id]);
  const targets: PlanChangeTarget[] = [];
  for (const frequency of frequencies) {
    const plan = plans.find((p) => p.id === frequency.planId);
    if (!plan) continue; // findFrequenciesOfPlans reads only these plans' frequencies
    if (frequency.id === s.planFrequencyId || targetRefusal(ctx, s, frequency.id, { frequency, plan })) continue;
    const products = productsAfterChange(s, before, { frequency, plan }, {});
    targets.push({
      planFrequencyId: frequency.id,
      planCode: plan.code,
      planName: plan.name,
      interval: frequency.interval,
      numberOfIntervals: frequency.numberOfIntervals,
      amount: toJsonAmount(revenueOf(products, frequency, s.currency).perPeriod),
    });
  }
  const current = await findPlanFrequency(db, s.planFrequencyId);
  const quantities: AdjustableQuantity[] = [];
  for (const p of current?.plan.products ?? []) {
    const held = before.find((b) => b.productCode === p.code);
    if (p.maxQuantity === undefined || !held) continue;
    quantities.push({
      productCode: p.code,
      name: held.name,
      quantity: toJsonAmount(held.quantity),
      minQuantity: p.minQuantity ?? 1,
      maxQuantity: p.maxQuantity,
    });
  }
  return { targets, quantities };
}
