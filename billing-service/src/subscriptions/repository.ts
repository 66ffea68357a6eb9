import type { Insertable, Selectable, Updateable } from 'kysely';
import { isStorableId } from '../db/ids.js';
import type { Queryable } from '../db/database.js';
import type { PlanFrequenciesTable, SubscriptionCouponsTable, SubscriptionProductsTable, SubscriptionsTable } from '../db/schema.js';

export type SubscriptionRow = Selectable<SubscriptionsTable>;
export type SubscriptionProductRow = Selectable<SubscriptionProductsTable>;
export type SubscriptionCouponRow = Selectable<SubscriptionCouponsTable>;

export function selectSubscriptions(db: Queryable, accountId: number) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('planFrequencies', 'planFrequencies.id', 'subscriptions.planFrequencyId')
    .innerJoin('plans', 'plans.id', 'planFrequencies.planId')
    .selectAll('subscriptions')
    .select([
      'plans.code as planCode',
      'plans.name as planName',
      'plans.description as planDescription',
      'plans.reference as planReference',
      'planFrequencies.interval as interval',
      'planFrequencies.numberOfIntervals as numberOfIntervals',
      'planFrequencies.isProrated as isProrated',
    ])
    .where('subscriptions.accountId', '=', accountId);
}

export type SubscriptionWithPlan = Awaited<ReturnType<ReturnType<typeof selectSubscriptions>['executeTakeFirstOrThrow']>>;

export async function findSubscription(db: Queryable, accountId: number, id: number): Promise<SubscriptionWithPlan | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectSubscriptions(db, accountId).where('subscriptions.id', '=', id).executeTakeFirst();
}

export async function findSubscriptionsOfCustomers(db: Queryable, accountId: number, customerIds: number[], statuses?: string[]): Promise<SubscriptionWithPlan[]> {
  if (customerIds.length === 0) return [];
  return selectSubscriptions(db, accountId)
    .where('subscriptions.customerId', 'in', customerIds)
    .$if(statuses !== undefined, (q) => q.where('subscriptions.status', 'in', statuses!))
    .orderBy('subscriptions.id')
    .execute();
}

/** Locks the subscription row for a read-modify-write. */
export async function lockSubscription(db: Queryable, accountId: number, id: number): Promise<SubscriptionRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom('subscriptions').selectAll().where('accountId', '=', accountId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The plan frequencies of subscriptions, whole (the subscription embeds its frequency as the plan list shows it). */
export async function findPlanFrequencies(db: Queryable, ids: number[]): Promise<Array<Selectable<PlanFrequenciesTable>>> {
  if (ids.length === 0) return [];
  return db.selectFrom('planFrequencies').selectAll().where('id', 'in', [...new Set(ids)]).execute();
}

export async function findProducts(db: Queryable, subscriptionIds: number[]): Promise<SubscriptionProductRow[]> {
  if (subscriptionIds.length === 0) return [];
  return db.selectFrom('subscriptionProducts').selectAll().where('subscriptionId', 'in', subscriptionIds).orderBy('subscriptionId').orderBy('position').execute();
}

export async function findCoupons(db: Queryable, subscriptionIds: number[]): Promise<SubscriptionCouponRow[]> {
  if (subscriptionIds.length === 0) return [];
  return db.selectFrom('subscriptionCoupons').selectAll().where('subscriptionId', 'in', subscriptionIds).orderBy('couponCode').execute();
}

export async function insertSubscription(db: Queryable, row: Insertable<SubscriptionsTable>): Promise<number> {
  const { id } = await db.insertInto('subscriptions').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function insertProducts(db: Queryable, rows: Array<Insertable<SubscriptionProductsTable>>) {
  if (rows.length > 0) await db.insertInto('subscriptionProducts').values(rows).execute();
}

export async function updateSubscriptionRow(db: Queryable, id: number, row: Updateable<SubscriptionsTable>) {
  await db.updateTable('subscriptions').set(row).where('id', '=', id).execute();
}

export async function updateProduct(db: Queryable, id: number, row: Updateable<SubscriptionProductsTable>) {
  await db.updateTable('subscriptionProducts').set(row).where('id', '=', id).execute();
}

/** Replaces the coupon list, keeping the usage count of coupons that stay. */
export async function replaceCoupons(db: Queryable, subscriptionId: number, codes: string[]) {
  const query = db.deleteFrom('subscriptionCoupons').where('subscriptionId', '=', subscriptionId);
  await (codes.length > 0 ? query.where('couponCode', 'not in', codes) : query).execute();
  if (codes.length > 0) {
    await db
      .insertInto('subscriptionCoupons')
      .values(codes.map((couponCode) => ({ subscriptionId, couponCode })))
      .onConflict((oc) => oc.columns(['subscriptionId', 'couponCode']).doNothing())
      .execute();
  }
}

export async function hasPostedInvoices(db: Queryable, subscriptionIds: number[]): Promise<Set<number>> {
  if (subscriptionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('invoiceCharges')
    .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
    .select('invoiceCharges.subscriptionId')
    .distinct()
    .where('invoiceCharges.subscriptionId', 'in', subscriptionIds)
    .where('invoices.status', '=', 'Posted')
    .execute();
  return new Set(rows.map((r) => r.subscriptionId!));
}
