import type { AppContext } from '../app-context.js';
import { lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { PlanChangeInvoice } from '../invoices/engine/index.js';
import { getInvoice, toChangeInvoicePreview } from '../invoices/service.js';
import { toJsonAmount } from '../money/money.js';
import { countSubscriptionsByFrequency } from '../plans/repository.js';
import { revenueOf } from '../plans/recurring-revenue.js';
import { toPlanFrequencyResponse } from '../plans/service.js';
import { Refusal } from '../refusals/refusal.js';
import { findSubscriptionCustomerId, type SubscriptionWithPlan } from '../subscriptions/repository.js';
import type { SubscriptionResponse } from '../subscriptions/schemas.js';
import { getSubscription } from '../subscriptions/service.js';
import { toSubscriptionProductResponse } from '../subscriptions/subscription-response.js';
import type { PlanChangeInput, PlanChangeResponse } from './schemas.js';
import { collectDueBalance } from './collection.js';

import type { PlanFrequency, ChangedProduct, ComputedChange } from './plan-change-rules.js';
import { computePlanChange } from './plan-change-quote.js';
import { schedule } from './plan-change-schedule.js';
import { applyNow } from './plan-change-apply.js';

/*
 * Plan changes (issue 28; design and rule: src/subscriptions/PLAN-CHANGES.md). One computation (computePlanChange)
 * answers the preview and is what applying posts: the preview reads without a lock, applying computes again in its
 * transaction under the customer's lock, so the rules are checked against what is committed.
 */

/** POST /v1/subscriptions/{id}/changes: a preview, or the change applied now. */
export async function changeSubscriptionPlan(
  ctx: AppContext,
  caller: Caller,
  subscriptionId: number,
  input: PlanChangeInput,
  now?: Date,
): Promise<PlanChangeResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  if (input.preview) return previewAnswer(ctx, caller, await computePlanChange(ctx, ctx.db, caller, subscriptionId, input, now));
  const customerId = await findSubscriptionCustomerId(ctx.db, caller.accountId, subscriptionId);
  if (customerId === undefined) throw Refusal.notFound('subscription', subscriptionId);

  const applied = await transactionWithRetry(ctx.db, async (trx) => {
    // the customer's lock first (lock order: README, Architecture), then everything read and checked again under it
    await lockCustomer(trx, caller.accountId, customerId);
    const change = await computePlanChange(ctx, trx, caller, subscriptionId, input, now);
    if (change.timing === 'periodEnd') {
      await schedule(ctx, trx, caller, change, now);
      return { change, invoiceId: null };
    }
    return { change, invoiceId: await applyNow(ctx, trx, caller, change, now) };
  });
  // After the commit, as the billing clock collects: a decline leaves the change applied and the invoice open.
  if (applied.invoiceId !== null) await collectDueBalance(ctx, { id: customerId, accountId: caller.accountId }, now);
  return {
    subscription: await getSubscription(ctx, caller, subscriptionId),
    invoice: applied.invoiceId === null ? null : await getInvoice(ctx, caller, applied.invoiceId),
    nextRenewal: applied.change.nextRenewal,
  };
}

/** A preview's answer: the subscription as it would be, the invoice as the preview shape shows it. */
async function previewAnswer(ctx: AppContext, caller: Caller, change: ComputedChange): Promise<PlanChangeResponse> {
  const { s, invoice } = change;
  if (!invoice) {
    return {
      subscription: { ...(await getSubscription(ctx, caller, s.id)), pendingChange: change.pendingChange },
      invoice: null,
      nextRenewal: change.nextRenewal,
    };
  }
  return {
    subscription: await subscriptionAfterChange(ctx, ctx.db, caller, s, change.target, change.products, invoice),
    invoice: toChangeInvoicePreview(invoice),
    nextRenewal: change.nextRenewal,
  };
}

/** The subscription as GET will show it once the change applies now: the new plan frequency, products, period end. */
async function subscriptionAfterChange(
  ctx: AppContext,
  db: Queryable,
  caller: Caller,
  s: SubscriptionWithPlan,
  target: PlanFrequency,
  products: ChangedProduct[],
  invoice: PlanChangeInvoice,
): Promise<PlanChangeResponse['subscription']> {
  const before: SubscriptionResponse = await getSubscription(ctx, caller, s.id);
  const switching = target.frequency.id !== s.planFrequencyId;
  const counted = (await countSubscriptionsByFrequency(db, caller.accountId, [target.frequency.id])).get(target.frequency.id) ?? 0;
  const revenue = revenueOf(products, target.frequency, s.currency);
  return {
    ...before,
    planFrequency: toPlanFrequencyResponse(target.frequency, counted + (switching ? 1 : 0), ctx.uris),
    planCode: target.plan.code,
    planName: target.plan.name,
    planDescription: target.plan.description,
    planReference: target.plan.reference,
    subscriptionProducts: products.map((p) => toSubscriptionProductResponse(p, s, before.uri)),
    nextPeriodStartDate: invoice.nextPeriodStart,
    openSubscriptionPeriodEndDate: invoice.nextPeriodStart,
    monthlyRecurringRevenue: toJsonAmount(revenue.gross),
    netMonthlyRecurringRevenue: toJsonAmount(revenue.net),
    amount: toJsonAmount(revenue.perPeriod),
    pendingChange: null,
  };
}
