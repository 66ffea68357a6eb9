import { sql, type RawBuilder, type Selectable } from 'kysely';
import { isStorableId } from '../db/ids.js';
import type { Queryable } from '../db/database.js';
import type { PlanFrequenciesTable, PlansTable } from '../db/schema.js';
import { MONTHS_PER_INTERVAL } from './recurring-revenue.js';

export type PlanRow = Selectable<PlansTable>;
export type PlanFrequencyRow = Selectable<PlanFrequenciesTable>;

export function selectPlans(db: Queryable) {
  return db.selectFrom('plans').selectAll('plans');
}

export async function findPlan(db: Queryable, id: number): Promise<PlanRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectPlans(db).where('plans.id', '=', id).executeTakeFirst();
}

export async function findFrequenciesOfPlans(db: Queryable, planIds: number[]): Promise<PlanFrequencyRow[]> {
  if (planIds.length === 0) return [];
  return db.selectFrom('planFrequencies').selectAll().where('planId', 'in', planIds).orderBy('id').execute();
}

export async function findPlanFrequency(db: Queryable, id: number): Promise<{ frequency: PlanFrequencyRow; plan: PlanRow } | undefined> {
  if (!isStorableId(id)) return undefined;
  const frequency = await db.selectFrom('planFrequencies').selectAll().where('id', '=', id).executeTakeFirst();
  if (!frequency) return undefined;
  const plan = await findPlan(db, frequency.planId);
  return plan ? { frequency, plan } : undefined;
}

/** How many of the account's subscriptions use each frequency. */
export async function countSubscriptionsByFrequency(
  db: Queryable,
  accountId: number,
  frequencyIds: number[],
): Promise<Map<number, number>> {
  if (frequencyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('subscriptions')
    .select(['planFrequencyId', (eb) => eb.fn.countAll<number>().as('n')])
    .where('accountId', '=', accountId)
    .where('planFrequencyId', 'in', frequencyIds)
    .groupBy('planFrequencyId')
    .execute();
  return new Map(rows.map((r) => [r.planFrequencyId, Number(r.n)]));
}

/**
 * SQL for the months one billing period covers, from the columns of a plan frequency: the CASE is
 * generated from MONTHS_PER_INTERVAL (recurring-revenue.ts), the table monthsPerPeriod reads, so SQL
 * and the API cannot disagree on it. An interval the table does not know gives null (no revenue).
 */
export function monthsPerPeriodSql(intervalColumn: string, numberOfIntervalsColumn: string): RawBuilder<number> {
  const whens = Object.entries(MONTHS_PER_INTERVAL).map(([interval, months]) => sql`when ${sql.lit(interval)} then ${sql.lit(months)}`);
  return sql<number>`((case ${sql.ref(intervalColumn)} ${sql.join(whens, sql` `)} end) * ${sql.ref(numberOfIntervalsColumn)})`;
}
