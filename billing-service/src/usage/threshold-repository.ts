import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';

/** A quantity of a metric a subscription wants to hear of. */
export interface UsageThreshold {
  subscriptionId: number;
  metricCode: string;
  quantity: string;
}

type Row = { subscriptionId: number; metricCode: string; quantity: string | number };
const toThreshold = (r: Row): UsageThreshold => ({
  subscriptionId: Number(r.subscriptionId),
  metricCode: r.metricCode,
  quantity: String(r.quantity),
});

/** The thresholds of these subscriptions, by subscription, metric, quantity. */
function selectThresholds(db: Queryable, subscriptionIds: number[]) {
  return db
    .selectFrom('usageThresholds')
    .select(['subscriptionId', 'metricCode', 'quantity'])
    .where('subscriptionId', 'in', subscriptionIds)
    .orderBy('subscriptionId')
    .orderBy('metricCode')
    .orderBy('quantity');
}

/** A subscription's thresholds, by metric then quantity. */
export async function listThresholds(db: Queryable, subscriptionId: number): Promise<UsageThreshold[]> {
  return (await selectThresholds(db, [subscriptionId]).execute()).map(toThreshold);
}

/** Replaces a subscription's thresholds (the caller holds the subscription's row lock, so two replacements do not mix). */
export async function replaceThresholds(
  db: Queryable,
  subscriptionId: number,
  thresholds: Array<{ metricCode: string; quantity: string }>,
) {
  await db.deleteFrom('usageThresholds').where('subscriptionId', '=', subscriptionId).execute();
  if (thresholds.length === 0) return;
  await db
    .insertInto('usageThresholds')
    .values(thresholds.map((t) => ({ subscriptionId, metricCode: t.metricCode, quantity: t.quantity })))
    .execute();
}

/**
 * Locks a subscription's row against a concurrent replacement of its thresholds and against ingestion's share lock (a
 * batch checks the set as it was or as it is); `no key update`, so it does not wait on inserts that reference the row.
 */
export async function lockForThresholds(db: Queryable, accountId: number, subscriptionId: number) {
  // an id past the integer column's range names no subscription (and must not reach the database)
  if (!isStorableId(subscriptionId)) return undefined;
  return db
    .selectFrom('subscriptions')
    .select(['id', 'planFrequencyId'])
    .where('accountId', '=', accountId)
    .where('id', '=', subscriptionId)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/**
 * The thresholds of these subscriptions, row-locked until the caller's transaction ends: ingestion batches of the same
 * subscription check them one after the other, so the second reads the quantity with the first's events committed (a
 * threshold that two batches cross together is seen by the later). The one read a batch pays when there are none.
 */
export async function lockThresholds(db: Queryable, subscriptionIds: number[]): Promise<UsageThreshold[]> {
  if (subscriptionIds.length === 0) return [];
  return (await selectThresholds(db, subscriptionIds).forUpdate().execute()).map(toThreshold);
}

/** The thresholds of a subscription already reached in the period starting `periodStart`. */
export async function reachedIn(db: Queryable, subscriptionId: number, periodStart: string): Promise<UsageThreshold[]> {
  const rows = await db
    .selectFrom('usageThresholdsReached')
    .select(['subscriptionId', 'metricCode', 'quantity'])
    .where('subscriptionId', '=', subscriptionId)
    .where('periodStart', '=', periodStart)
    .execute();
  return rows.map(toThreshold);
}

/**
 * Records thresholds as reached in a period: the fence. Answers the quantities recorded now; one another
 * transaction recorded first (a race, a retry) is not answered, so its webhook and e-mail are not sent twice.
 */
export async function recordReached(
  db: Queryable,
  reached: { subscriptionId: number; metricCode: string; thresholds: string[]; periodStart: string; quantity: string; at: Date },
): Promise<string[]> {
  if (reached.thresholds.length === 0) return [];
  const result = await sql<{ quantity: string }>`
    insert into usage_thresholds_reached (subscription_id, metric_code, quantity, period_start, reached_quantity, reached_at)
    select ${reached.subscriptionId}, ${reached.metricCode}, q::numeric, ${reached.periodStart}::date, ${reached.quantity}::numeric, ${reached.at}
    from jsonb_array_elements_text(${JSON.stringify(reached.thresholds)}::jsonb) as q
    on conflict do nothing
    returning quantity::text as quantity`.execute(db);
  return result.rows.map((r) => r.quantity);
}
