import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import { computeCustomerInvoices, loadBillingContext } from '../invoices/billing-run.js';
import { nextPeriodStart as periodEndOf, ruleFor } from '../invoices/engine/index.js';
import { Refusal } from '../refusals/refusal.js';
import {
  claimPendingChanges,
  findProducts,
  findSubscription,
  replaceProducts,
  updateSubscriptionRow,
  type SubscriptionWithPlan,
} from '../subscriptions/repository.js';
import type { PlanChangeResponse } from './schemas.js';
import { anchorDayOf } from '../invoices/subscription-periods.js';

import {
  nameAfterChange,
  quantitiesOf,
  targetFrequency,
  productsAfterChange,
  type PlanFrequency,
  type ChangedProduct,
} from './plan-change-rules.js';
import { renewalAfterChange } from './plan-change-quote.js';
import { enqueueChangeEmail } from './plan-change-email.js';

/**
 * The renewal's part (lifecycle/billing-clock.ts), under the customer's lock before the period is computed: the
 * changes pending for these subscriptions from a period start up to `today` are claimed and applied, so the
 * renewal bills the new plan for the new period (nothing prorated). A change the catalogue no longer allows (the
 * frequency retired, the switch or a quantity refused) is dropped, with an audit entry saying why. Returns the
 * ids of the subscriptions changed.
 */
export async function applyPendingChanges(
  ctx: AppContext,
  trx: Queryable,
  caller: Caller,
  subscriptions: SubscriptionWithPlan[],
  today: string,
  now: Date,
): Promise<number[]> {
  const claimed = await claimPendingChanges(
    trx,
    subscriptions.map((s) => s.id),
    today,
  );
  const changed: number[] = [];
  for (const row of claimed) {
    const s = subscriptions.find((x) => x.id === row.subscriptionId);
    if (!s) throw new Error('claimPendingChanges claims only the changes of the subscriptions it is given');
    const quantities = Object.fromEntries(Object.entries(row.quantities).map(([code, q]) => [code, Number(q)]));
    let target: PlanFrequency;
    let products: ChangedProduct[];
    const before = await findProducts(trx, [s.id]);
    try {
      target = await targetFrequency(ctx, trx, s, row.planFrequencyId);
      products = productsAfterChange(s, before, target, quantities);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      await recordChange(trx, caller, {
        entityType: 'Subscription',
        entityId: s.id,
        action: 'update',
        changes: { pendingChange: [{ planFrequencyId: row.planFrequencyId, quantities: row.quantities }, null], dropped: error.message },
      });
      continue;
    }
    await updateSubscriptionRow(trx, s.id, { name: nameAfterChange(s, target), planFrequencyId: target.frequency.id, modifiedAt: now });
    await replaceProducts(trx, s.id, products);
    await recordChange(trx, caller, {
      entityType: 'Subscription',
      entityId: s.id,
      action: 'update',
      changes: {
        planFrequencyId: [s.planFrequencyId, target.frequency.id],
        quantities: [quantitiesOf(before), quantitiesOf(products)],
        pendingChangeEffectiveDate: row.effectiveDate,
      },
    });
    for (const type of ['subscription.updated', 'subscription.changeApplied'] as const)
      await ctx.webhooks?.subscription(trx, s.accountId, s.customerId, s.id, type, now);
    if (ctx.notifier?.enabled) {
      const customer = await findCustomerRow(trx, s.accountId, s.customerId);
      if (!customer) throw new Error('the renewing customer is locked by the billing clock: it exists');
      const next = await renewalAfterTheOneApplying(ctx, trx, customer, s.id);
      await enqueueChangeEmail(ctx, trx, customer, { s, target, before, products }, 'applied', row.effectiveDate, null, next);
    }
    changed.push(s.id);
  }
  return changed;
}

/**
 * A renewal that applies a scheduled change bills the new plan for the period starting now; the charge its e-mail
 * announces is the renewal after that one: its date and total (the coupons this renewal uses counted).
 */
async function renewalAfterTheOneApplying(
  ctx: AppContext,
  trx: Queryable,
  customer: CustomerRow,
  subscriptionId: number,
): Promise<PlanChangeResponse['nextRenewal']> {
  const changed = await findSubscription(trx, customer.accountId, subscriptionId);
  // the subscription was just changed in this transaction, on a renewal: it exists and has a next period
  if (!changed?.nextPeriodStart) throw new Error(`subscription ${subscriptionId}, changed at its renewal, has no next period`);
  const context = await loadBillingContext(trx, ctx.catalog, customer);
  const periodStart = changed.nextPeriodStart;
  const anchorDay = anchorDayOf(changed);
  const [renewal] = await computeCustomerInvoices(
    trx,
    ctx.catalog,
    context,
    [{ subscription: changed, periodStart, isFirstInvoice: false, anchorDay }],
    { effectiveDate: periodStart },
  );
  const next =
    renewal?.nextPeriodStart[subscriptionId] ??
    periodEndOf(periodStart, changed.interval, changed.numberOfIntervals, ruleFor(changed.interval, context.billingPeriods), anchorDay);
  const couponUses = Object.fromEntries((renewal?.couponsApplied[subscriptionId] ?? []).map((code) => [code, 1]));
  return renewalAfterChange(trx, ctx, context, changed, undefined, next, anchorDay, couponUses);
}
