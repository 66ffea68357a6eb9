import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { money, toJsonAmount } from '../money/money.js';
import { Refusal } from '../refusals/refusal.js';
import { findSubscription } from '../subscriptions/repository.js';
import { usageQuantity, usageWindowStart } from './quantities.js';
import type { UsagePeriod } from './repository.js';
import type { UsageThresholdsBody, UsageThresholdsResponse } from './schemas.js';
import {
  listThresholds,
  lockForThresholds,
  lockThresholds,
  reachedIn,
  recordReached,
  replaceThresholds,
  type UsageThreshold,
} from './threshold-repository.js';

/** GET /v1/subscriptions/{id}/usageThresholds (issue 41). */
export async function getUsageThresholds(ctx: AppContext, caller: Caller, subscriptionId: number): Promise<UsageThresholdsResponse> {
  if (!(await findSubscription(ctx.db, caller.accountId, subscriptionId))) throw Refusal.notFound('subscription', subscriptionId);
  return toResponse(subscriptionId, await listThresholds(ctx.db, subscriptionId));
}

/**
 * PUT /v1/subscriptions/{id}/usageThresholds (issue 41): replaces the subscription's thresholds. Each names a metric
 * the subscription's plan frequency charges (else 400, Key `[i].metricCode`) and a positive quantity, once.
 */
export async function putUsageThresholds(
  ctx: AppContext,
  caller: Caller,
  subscriptionId: number,
  body: UsageThresholdsBody,
): Promise<UsageThresholdsResponse> {
  return ctx.db.transaction().execute(async (trx) => {
    const subscription = await lockForThresholds(trx, caller.accountId, subscriptionId);
    if (!subscription) throw Refusal.notFound('subscription', subscriptionId);
    const frequency = ctx.catalog.plans.flatMap((p) => p.frequencies).find((f) => f.id === subscription.planFrequencyId);
    const charged = new Set((frequency?.usageCharges ?? []).map((c) => c.metric));
    const seen = new Set<string>();
    const thresholds = body.map((item, i) => {
      if (!charged.has(item.metricCode))
        throw Refusal.invalid(`the subscription's plan charges no usage of ${item.metricCode}`, `[${i}].metricCode`, 'value_invalid');
      const quantity = money(item.quantity);
      if (!quantity.greaterThan(0)) throw Refusal.invalid('must be greater than 0', `[${i}].quantity`, 'value_invalid');
      const key = `${item.metricCode} ${quantity.toString()}`;
      if (seen.has(key)) throw Refusal.invalid('this metric has this threshold already in the list', `[${i}].quantity`, 'value_invalid');
      seen.add(key);
      return { metricCode: item.metricCode, quantity: quantity.toString() };
    });
    await replaceThresholds(trx, subscriptionId, thresholds);
    return toResponse(subscriptionId, await listThresholds(trx, subscriptionId));
  });
}

function toResponse(subscriptionId: number, thresholds: UsageThreshold[]): UsageThresholdsResponse {
  return { subscriptionId, thresholds: thresholds.map((t) => ({ metricCode: t.metricCode, quantity: toJsonAmount(money(t.quantity)) })) };
}

/**
 * In an ingestion batch's transaction, after its events are stored (issue 41): each threshold of the subscriptions
 * and metrics the batch counted that their quantity over the unbilled window (as GET .../usage reads it) now reaches
 * is recorded as reached for the window (the fence: once per threshold and window), with the usage.thresholdReached
 * webhook and the customer's UsageThresholdReached e-mail. A batch of subscriptions without thresholds pays one read.
 */
export async function fireReachedThresholds(
  ctx: AppContext,
  trx: Queryable,
  accountId: number,
  counted: Array<{ subscriptionId: number; metricCode: string }>,
  periods: UsagePeriod[],
  now: Date,
): Promise<void> {
  const thresholds = await lockThresholds(trx, [...new Set(counted.map((c) => c.subscriptionId))]);
  if (thresholds.length === 0) return;
  const touched = new Set(counted.map((c) => `${c.subscriptionId} ${c.metricCode}`));
  for (const period of periods) {
    const mine = thresholds.filter((t) => t.subscriptionId === period.id && touched.has(`${t.subscriptionId} ${t.metricCode}`));
    const start = usageWindowStart(period);
    if (mine.length === 0 || start === null || period.nextPeriodStart === null) continue;
    const done = new Set((await reachedIn(trx, period.id, start)).map((r) => `${r.metricCode} ${money(r.quantity).toString()}`));
    for (const metricCode of new Set(mine.map((t) => t.metricCode))) {
      const open = mine.filter((t) => t.metricCode === metricCode && !done.has(`${metricCode} ${money(t.quantity).toString()}`));
      const metric = ctx.catalog.billableMetrics.find((m) => m.code === metricCode);
      if (open.length === 0 || !metric) continue;
      const quantity = await usageQuantity(trx, period.id, metric, start, period.nextPeriodStart);
      const crossed = open.filter((t) => quantity.greaterThanOrEqualTo(money(t.quantity))).map((t) => t.quantity);
      const fresh = await recordReached(trx, {
        subscriptionId: period.id,
        metricCode,
        thresholds: crossed,
        periodStart: start,
        quantity: quantity.toString(),
        at: now,
      });
      for (const threshold of fresh)
        await announce(ctx, trx, accountId, period, {
          metricCode,
          metricName: metric.name,
          threshold,
          quantity: quantity.toString(),
          start,
          now,
        });
    }
  }
}

/** The webhook and the customer's e-mail of one threshold reached. */
async function announce(
  ctx: AppContext,
  trx: Queryable,
  accountId: number,
  period: UsagePeriod,
  reached: { metricCode: string; metricName: string; threshold: string; quantity: string; start: string; now: Date },
): Promise<void> {
  await ctx.webhooks?.usageThresholdReached(
    trx,
    accountId,
    period.customerId,
    {
      subscriptionId: period.id,
      customerId: period.customerId,
      metricCode: reached.metricCode,
      threshold: toJsonAmount(money(reached.threshold)),
      quantity: toJsonAmount(money(reached.quantity)),
      periodStart: reached.start,
      periodEnd: period.nextPeriodStart,
    },
    reached.now,
  );
  if (!ctx.notifier?.enabled) return;
  const customer = await findCustomerRow(trx, accountId, period.customerId);
  if (!customer) throw new Error(`subscription ${period.id} has no customer`);
  await ctx.notifier.enqueue(trx, customer, {
    type: 'UsageThresholdReached',
    metricName: reached.metricName,
    threshold: money(reached.threshold).toString(),
    quantity: reached.quantity,
    periodStart: reached.start,
  });
}
