import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';

/** A customer's subscriptions that may take usage (not Draft, not Cancelled), with what ingestion checks. */
export interface UsageTarget {
  customerId: number;
  reference: string | null;
  subscriptionId: number;
  planFrequencyId: number;
  currentPeriodStart: string | null;
  nextPeriodStart: string | null;
  usageBilledUntil: string | null;
}

/** The customers named by id or by reference, with their subscriptions that take usage (one statement). */
export async function findUsageTargets(
  db: Queryable,
  accountId: number,
  customerIds: number[],
  references: string[],
): Promise<UsageTarget[]> {
  if (customerIds.length === 0 && references.length === 0) return [];
  const rows = await db
    .selectFrom('customers')
    .leftJoin('subscriptions', (join) =>
      join.onRef('subscriptions.customerId', '=', 'customers.id').on('subscriptions.status', 'in', ['Active', 'Suspended']),
    )
    .select([
      'customers.id as customerId',
      'customers.reference',
      'subscriptions.id as subscriptionId',
      'subscriptions.planFrequencyId',
      'subscriptions.currentPeriodStart',
      'subscriptions.nextPeriodStart',
      'subscriptions.usageBilledUntil',
    ])
    .where('customers.accountId', '=', accountId)
    .where((eb) =>
      eb.or([
        ...(customerIds.length > 0 ? [eb('customers.id', 'in', customerIds)] : []),
        ...(references.length > 0 ? [eb('customers.reference', 'in', references)] : []),
      ]),
    )
    .orderBy('customers.id')
    .orderBy('subscriptions.id')
    .execute();
  return rows.map((r) => ({
    customerId: Number(r.customerId),
    reference: r.reference,
    subscriptionId: r.subscriptionId === null ? 0 : Number(r.subscriptionId),
    planFrequencyId: r.planFrequencyId === null ? 0 : Number(r.planFrequencyId),
    currentPeriodStart: r.currentPeriodStart,
    nextPeriodStart: r.nextPeriodStart,
    usageBilledUntil: r.usageBilledUntil,
  }));
}

/** A subscription's period as ingestion reads it under its share lock. */
export interface UsagePeriod {
  id: number;
  customerId: number;
  status: string;
  currentPeriodStart: string | null;
  nextPeriodStart: string | null;
  usageBilledUntil: string | null;
}

/**
 * Share-locks the subscriptions a batch stores events to (in id order) until the caller's transaction ends, and
 * answers their current period start and status as committed now: a renewal locks them against this before it reads
 * their usage (lifecycle/billing-clock.ts), so a batch checked against a period that has since been invoiced waits
 * for the renewal and then sees the new period.
 */
export async function lockUsagePeriods(db: Queryable, subscriptionIds: number[]): Promise<UsagePeriod[]> {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('subscriptions')
    .select(['id', 'customerId', 'status', 'currentPeriodStart', 'nextPeriodStart', 'usageBilledUntil'])
    .where('id', 'in', subscriptionIds)
    .orderBy('id')
    .forShare()
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    customerId: Number(r.customerId),
    status: r.status,
    currentPeriodStart: r.currentPeriodStart,
    nextPeriodStart: r.nextPeriodStart,
    usageBilledUntil: r.usageBilledUntil,
  }));
}

/** An event as stored. */
export interface StoredEvent {
  accountId: number;
  customerId: number;
  subscriptionId: number;
  metricCode: string;
  transactionId: string;
  occurredAt: string;
  value: string | null;
  dimension: string | null;
  counted: boolean;
  properties: Record<string, unknown>;
}

/**
 * Stores a batch in ONE statement: the transaction ids claimed (`on conflict do nothing`: a repeat, even one sent at
 * the same moment by another instance, claims nothing), the claimed events inserted into their month's partition,
 * and their counted ones folded into the daily rollup and the unique values (an upsert adding to the day's row, rows
 * in key order so concurrent batches lock them alike). Answers the transaction ids stored now.
 */
export async function storeEvents(db: Queryable, events: StoredEvent[], receivedAt: Date): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const rows = JSON.stringify(events);
  const result = await sql<{ transactionId: string }>`
    with input as (
      select * from jsonb_to_recordset(${rows}::jsonb) as r(
        "accountId" integer, "customerId" integer, "subscriptionId" integer, "metricCode" text, "transactionId" text,
        "occurredAt" timestamptz, value numeric, dimension text, counted boolean, properties jsonb)
    ), claimed as (
      insert into usage_event_ids (account_id, transaction_id)
      select distinct "accountId", "transactionId" from input
      on conflict do nothing
      returning transaction_id
    ), chosen as (
      select distinct on (i."transactionId") i.* from input i join claimed c on c.transaction_id = i."transactionId"
      order by i."transactionId"
    ), stored as (
      insert into usage_events (account_id, customer_id, subscription_id, metric_code, transaction_id, occurred_at, value, dimension, properties, received_at)
      select "accountId", "customerId", "subscriptionId", "metricCode", "transactionId", "occurredAt", value, dimension, properties, ${receivedAt}
      from chosen
      returning transaction_id
    ), daily as (
      insert into usage_daily (account_id, subscription_id, metric_code, day, count, sum, max, latest_value, latest_at)
      select "accountId", "subscriptionId", "metricCode", ("occurredAt" at time zone 'UTC')::date, count(*), coalesce(sum(value), 0), max(value),
        (array_agg(value order by "occurredAt" desc, "transactionId" desc))[1], max("occurredAt")
      from chosen where counted
      group by "accountId", "subscriptionId", "metricCode", ("occurredAt" at time zone 'UTC')::date
      order by "subscriptionId", "metricCode", 4
      on conflict (subscription_id, metric_code, day) do update set
        count = usage_daily.count + excluded.count,
        sum = usage_daily.sum + excluded.sum,
        max = greatest(usage_daily.max, excluded.max),
        latest_value = case when usage_daily.latest_at is null or excluded.latest_at >= usage_daily.latest_at
          then excluded.latest_value else usage_daily.latest_value end,
        latest_at = greatest(usage_daily.latest_at, excluded.latest_at)
      returning 1
    ), uniques as (
      insert into usage_unique_values (subscription_id, metric_code, day, dimension)
      select distinct "subscriptionId", "metricCode", ("occurredAt" at time zone 'UTC')::date, dimension
      from chosen where counted and dimension is not null
      order by 1, 2, 3, 4
      on conflict do nothing
      returning 1
    )
    select transaction_id from stored, (select count(*) from daily) d, (select count(*) from uniques) u`.execute(db);
  // the database's plugin answers in camelCase
  return new Set(result.rows.map((r) => r.transactionId));
}

/** A metric's rollup over the days [from, to) of one subscription: what each aggregation reads. */
export interface RolledUp {
  count: string;
  sum: string;
  max: string | null;
  latestValue: string | null;
  uniques: string;
  /** The latest value before `from`: a carried metric's level when the period began. */
  carriedValue: string | null;
}

export async function rolledUp(db: Queryable, subscriptionId: number, metricCode: string, from: string, to: string): Promise<RolledUp> {
  const result = await sql<RolledUp>`
    select
      coalesce((select sum(count) from usage_daily where subscription_id = ${subscriptionId} and metric_code = ${metricCode} and day >= ${from}::date and day < ${to}::date), 0)::text as count,
      coalesce((select sum(sum) from usage_daily where subscription_id = ${subscriptionId} and metric_code = ${metricCode} and day >= ${from}::date and day < ${to}::date), 0)::text as sum,
      (select max(max) from usage_daily where subscription_id = ${subscriptionId} and metric_code = ${metricCode} and day >= ${from}::date and day < ${to}::date)::text as max,
      (select latest_value from usage_daily where subscription_id = ${subscriptionId} and metric_code = ${metricCode} and day >= ${from}::date and day < ${to}::date
        order by latest_at desc limit 1)::text as "latestValue",
      (select count(distinct dimension) from usage_unique_values where subscription_id = ${subscriptionId} and metric_code = ${metricCode} and day >= ${from}::date and day < ${to}::date)::text as uniques,
      (select latest_value from usage_daily where subscription_id = ${subscriptionId} and metric_code = ${metricCode} and day < ${from}::date
        order by latest_at desc limit 1)::text as "carriedValue"`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('a select of scalars answers one row');
  return row;
}
