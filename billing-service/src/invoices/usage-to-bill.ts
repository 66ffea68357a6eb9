import type { Catalog } from '../catalog/schema.js';
import { usageChargesOf } from '../catalog/usage-charges-of.js';
import type { Queryable } from '../db/database.js';
import { lockSubscriptionRows, type SubscriptionWithPlan } from '../subscriptions/repository.js';
import { usageQuantity, usageWindowStart } from '../usage/quantities.js';
import type { PeriodToBill } from './billing-run.js';
import type { EngineUsage } from './engine/index.js';

/**
 * What a subscription's usage charges bill for the UTC days [from, to) (issue 41): per charge, its metric's quantity
 * read from the daily rollup, as the engine takes it. The caller holds the subscription's row lock, which ingestion
 * takes too (usage/ingest.ts), so no event of the period is stored after this read and before the period moves on.
 */
export async function usageToBill(
  db: Queryable,
  catalog: Catalog,
  subscription: { id: number; planFrequencyId: number },
  from: string,
  to: string,
): Promise<EngineUsage[]> {
  if (from >= to) return [];
  return Promise.all(
    usageChargesOf(catalog, subscription.planFrequencyId).map(async (charge) => {
      const metric = catalog.billableMetrics.find((m) => m.code === charge.metric);
      if (!metric) throw new Error(`the catalogue checks that metric ${charge.metric} exists`);
      return {
        metricCode: metric.code,
        name: charge.name ?? metric.name,
        quantity: await usageQuantity(db, subscription.id, metric, from, to),
        charge,
        from,
        to,
      };
    }),
  );
}

/**
 * Puts on each billed period of a metered subscription the usage of the period before it, in arrears (a renewal's
 * rounds, oldest first): the first from the subscription's current period start, each next from the period billed
 * before it. `frequencyBefore`: the plan frequency each subscription was on before changes applied at this renewal
 * (the period just ended is priced by the plan it ran on).
 */
export async function attachUsageInArrears(
  db: Queryable,
  catalog: Catalog,
  rounds: PeriodToBill[][],
  subscriptions: ReadonlyArray<Pick<SubscriptionWithPlan, 'id' | 'planFrequencyId' | 'currentPeriodStart' | 'usageBilledUntil'>>,
  frequencyBefore: ReadonlyMap<number, number> = new Map(),
): Promise<void> {
  // Their rows locked before their usage is read: ingestion stores under a share lock of them (usage/ingest.ts), so
  // every event of a period billed is either in the read or refused as out of period once the billing commits.
  const metered = subscriptions.filter(
    (s) =>
      usageChargesOf(catalog, frequencyBefore.get(s.id) ?? s.planFrequencyId).length + usageChargesOf(catalog, s.planFrequencyId).length >
      0,
  );
  await lockSubscriptionRows(
    db,
    metered.map((s) => s.id),
  );
  const billedFrom = new Map<number, string | null>();
  for (const round of rounds) {
    for (const period of round) {
      const s = subscriptions.find((x) => x.id === period.subscription.id);
      if (!s) continue;
      const first = !billedFrom.has(s.id);
      const from = first ? usageWindowStart(s) : (billedFrom.get(s.id) ?? null);
      billedFrom.set(s.id, period.periodStart);
      const planFrequencyId = first ? (frequencyBefore.get(s.id) ?? s.planFrequencyId) : s.planFrequencyId;
      if (from === null || usageChargesOf(catalog, planFrequencyId).length === 0) continue;
      period.usage = await usageToBill(db, catalog, { id: s.id, planFrequencyId }, from, period.periodStart);
    }
  }
}
