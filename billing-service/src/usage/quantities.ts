import type { BillableMetric } from '../catalog/usage-schema.js';
import type { Queryable } from '../db/database.js';
import { money, type Money } from '../money/money.js';
import { rolledUp } from './repository.js';

/**
 * A metric's quantity for one subscription over the UTC days [from, to) (issue 41), read from the daily rollup (at
 * most one row per day and metric, whatever the number of events): count: the events; sum: their property's total;
 * max: its greatest value; latest: the last value sent; uniqueCount: the distinct values. A `carried` metric starts
 * the period at its last value before it (storage held over): latest is that value until a new one comes, max counts it.
 */
export async function usageQuantity(
  db: Queryable,
  subscriptionId: number,
  metric: BillableMetric,
  from: string,
  to: string,
): Promise<Money> {
  const r = await rolledUp(db, subscriptionId, metric.code, from, to);
  const carried = metric.reset === 'carried' && r.carriedValue !== null ? money(r.carriedValue) : null;
  switch (metric.aggregation) {
    case 'count':
      return money(r.count);
    case 'sum':
      return money(r.sum);
    case 'uniqueCount':
      return money(r.uniques);
    case 'max': {
      const inPeriod = r.max === null ? null : money(r.max);
      if (inPeriod && carried) return inPeriod.greaterThan(carried) ? inPeriod : carried;
      return inPeriod ?? carried ?? money(0);
    }
    case 'latest':
      return r.latestValue !== null ? money(r.latestValue) : (carried ?? money(0));
  }
}

/**
 * Where a subscription's unbilled usage starts: its current period's start, or the day a cancellation billed it up to
 * when that is later (usageBilledUntil, issue 41). Null: no period yet.
 */
export function usageWindowStart(s: { currentPeriodStart: string | null; usageBilledUntil: string | null }): string | null {
  if (s.currentPeriodStart === null || s.usageBilledUntil === null) return s.currentPeriodStart ?? s.usageBilledUntil;
  // ISO dates order as text: the later of the two
  return [s.usageBilledUntil, s.currentPeriodStart].sort()[1] ?? null;
}
