import { sql, type Insertable, type QueryCreator, type Selectable, type Updateable } from 'kysely';
import { isStorableId } from '../db/ids.js';
import type { Queryable } from '../db/database.js';
import type {
  Database,
  PendingPlanChangesTable,
  PlanFrequenciesTable,
  SubscriptionCouponsTable,
  SubscriptionProductsTable,
  SubscriptionsTable,
} from '../db/schema.js';

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

export async function findSubscriptionsOfCustomers(
  db: Queryable,
  accountId: number,
  customerIds: number[],
  statuses?: readonly string[],
): Promise<SubscriptionWithPlan[]> {
  if (customerIds.length === 0) return [];
  return selectSubscriptions(db, accountId)
    .where('subscriptions.customerId', 'in', customerIds)
    .$call((q) => (statuses === undefined ? q : q.where('subscriptions.status', 'in', statuses)))
    .orderBy('subscriptions.id')
    .execute();
}

/**
 * Locks subscription rows against change (FOR NO KEY UPDATE, in id order) for the caller's transaction: a renewal
 * before it reads their usage; it conflicts with the share lock usage ingestion stores events under.
 */
export async function lockSubscriptionRows(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.selectFrom('subscriptions').select('id').where('id', 'in', ids).orderBy('id').forNoKeyUpdate().execute();
}

/** Usage billed up to `day` (exclusive) outside a renewal: a cancellation's final usage (issue 41). */
export async function markUsageBilledUntil(db: Queryable, ids: number[], day: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('subscriptions').set({ usageBilledUntil: day }).where('id', 'in', ids).execute();
}

/** Subscriptions whose periods now fall on another day of the month (ChargeForCurrentFullPeriod moved it). */
export async function moveSubscriptionAnchors(db: Queryable, moves: ReadonlyArray<{ id: number; anchorDay: number }>): Promise<void> {
  for (const move of moves) await db.updateTable('subscriptions').set({ anchorDay: move.anchorDay }).where('id', '=', move.id).execute();
}

/** Whose subscription it is, read without a lock (to take the customer's lock before the subscription's). */
export async function findSubscriptionCustomerId(db: Queryable, accountId: number, id: number): Promise<number | undefined> {
  if (!isStorableId(id)) return undefined;
  return (
    await db.selectFrom('subscriptions').select('customerId').where('accountId', '=', accountId).where('id', '=', id).executeTakeFirst()
  )?.customerId;
}

/** Locks the subscription row for a read-modify-write (take its customer's lock first: lock order in the README's Architecture). */
export async function lockSubscription(db: Queryable, accountId: number, id: number): Promise<SubscriptionRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom('subscriptions').selectAll().where('accountId', '=', accountId).where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The plan frequencies of subscriptions, whole (the subscription embeds its frequency as the plan list shows it). */
export async function findPlanFrequencies(db: Queryable, ids: number[]): Promise<Array<Selectable<PlanFrequenciesTable>>> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('planFrequencies')
    .selectAll()
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

export async function findProducts(db: Queryable, subscriptionIds: number[]): Promise<SubscriptionProductRow[]> {
  if (subscriptionIds.length === 0) return [];
  return db
    .selectFrom('subscriptionProducts')
    .selectAll()
    .where('subscriptionId', 'in', subscriptionIds)
    .orderBy('subscriptionId')
    .orderBy('position')
    .execute();
}

export async function findCoupons(db: Queryable, subscriptionIds: number[]): Promise<SubscriptionCouponRow[]> {
  if (subscriptionIds.length === 0) return [];
  // in the order they were listed: the order they apply in
  return db
    .selectFrom('subscriptionCoupons')
    .selectAll()
    .where('subscriptionId', 'in', subscriptionIds)
    .orderBy('subscriptionId')
    .orderBy('position')
    .execute();
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

/**
 * Moves the customer's subscriptions in one of `from` to `to`, stamping `set`
 * (a lifecycle transition; see lifecycle/transitions.ts). `cancelledAt` narrows
 * it to those cancelled at that moment that had been activated (uncancel).
 * Returns the rows as updated (status is the new one).
 */
export async function moveSubscriptionsOfCustomer(
  db: Queryable,
  customerId: number,
  move: SubscriptionsMove,
  set: Updateable<SubscriptionsTable>,
): Promise<Array<{ id: number; status: string; name: string; activatedAt: Date | null }>> {
  return moveSubscriptionsOfCustomerQuery(db, customerId, move, set).execute();
}

export interface SubscriptionsMove {
  from: readonly string[];
  to: string;
  cancelledAt?: Date;
}

/** The update of moveSubscriptionsOfCustomer, for a statement that makes it with other writes (a data-modifying CTE). */
export function moveSubscriptionsOfCustomerQuery(
  qc: QueryCreator<Database>,
  customerId: number,
  move: SubscriptionsMove,
  set: Updateable<SubscriptionsTable>,
) {
  // `status` is the new one (what UPDATE … RETURNING gives); `activatedAt` tells a started subscription from a Draft.
  return qc
    .updateTable('subscriptions')
    .set({ ...set, status: move.to })
    .where('customerId', '=', customerId)
    .where('status', 'in', [...move.from])
    .$call((q) => {
      const { cancelledAt } = move;
      return cancelledAt === undefined ? q : q.where('cancelledAt', '=', cancelledAt).where('activatedAt', 'is not', null);
    })
    .returning(['id', 'status', 'name', 'activatedAt']);
}

/** Subscriptions whose billing resumes later (missed periods not charged) skip to that period start. */
export async function skipToPeriodStarts(db: Queryable, skips: ReadonlyArray<{ id: number; nextPeriodStart: string }>): Promise<void> {
  for (const skip of skips)
    await db.updateTable('subscriptions').set({ nextPeriodStart: skip.nextPeriodStart }).where('id', '=', skip.id).execute();
}

/** A billed subscription's move to its next period (and, when given, a new current period start). */
export interface SubscriptionMove {
  id: number;
  next: string;
  currentPeriodStart: string | undefined;
}

/**
 * Billed subscriptions move to their next period (and, when given, a new current period start),
 * all in one statement: an update joined to the list of moves.
 */
export async function advanceSubscriptionPeriods(db: Queryable, moves: SubscriptionMove[], now: Date) {
  if (moves.length === 0) return;
  await advanceSubscriptionPeriodsSql(moves, now).execute(db);
}

/** The update of advanceSubscriptionPeriods, for a statement that makes it with other writes (a data-modifying CTE). */
export function advanceSubscriptionPeriodsSql(moves: SubscriptionMove[], now: Date) {
  // arrays, not a parameter per value: any number of moves fits one statement, prepared once
  const ids = moves.map((m) => m.id);
  const nexts = moves.map((m) => m.next);
  const currentStarts = moves.map((m) => m.currentPeriodStart ?? null);
  return sql`
    update subscriptions set
      next_period_start = move.next,
      current_period_start = coalesce(move.current_period_start, subscriptions.current_period_start),
      invoices_posted = invoices_posted + 1,
      modified_at = ${now}
    from unnest(${ids}::integer[], ${nexts}::date[], ${currentStarts}::date[]) as move (id, next, current_period_start)
    where subscriptions.id = move.id
  `;
}

/** The coupons applied to a billed period count one use each; the period: its first service day and its end (exclusive). */
export async function countCouponUses(db: Queryable, subscriptionId: number, codes: string[], usedOn: string, usedUntil: string) {
  if (codes.length === 0) return;
  await db
    .updateTable('subscriptionCoupons')
    .set({ periodsUsed: sql`periods_used + 1`, lastUsedOn: usedOn, lastUsedUntil: usedUntil })
    .where('subscriptionId', '=', subscriptionId)
    .where('couponCode', 'in', codes)
    .execute();
}

export async function updateProduct(db: Queryable, id: number, row: Updateable<SubscriptionProductsTable>) {
  await db.updateTable('subscriptionProducts').set(row).where('id', '=', id).execute();
}

/** Replaces the coupon list, in its order (the order they apply in), keeping the usage count of coupons that stay. */
export async function replaceCoupons(db: Queryable, subscriptionId: number, codes: string[]) {
  const query = db.deleteFrom('subscriptionCoupons').where('subscriptionId', '=', subscriptionId);
  await (codes.length > 0 ? query.where('couponCode', 'not in', codes) : query).execute();
  if (codes.length > 0) {
    await db
      .insertInto('subscriptionCoupons')
      .values(codes.map((couponCode, position) => ({ subscriptionId, couponCode, position })))
      .onConflict((oc) => oc.columns(['subscriptionId', 'couponCode']).doUpdateSet((eb) => ({ position: eb.ref('excluded.position') })))
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
  return new Set(rows.flatMap((r) => (r.subscriptionId === null ? [] : [r.subscriptionId])));
}

/**
 * A plan change's products (lifecycle/plan-change.ts): the rows given in their order, kept ones (id > 0) updated,
 * new ones (id 0) inserted, the subscription's others deleted. Positions move through negatives first: the
 * (subscription, position) key is checked row by row.
 */
export async function replaceProducts(
  db: Queryable,
  subscriptionId: number,
  products: ReadonlyArray<Omit<SubscriptionProductRow, 'position' | 'subscriptionId'>>,
): Promise<void> {
  const kept = products.filter((p) => p.id > 0).map((p) => p.id);
  const dropped = db.deleteFrom('subscriptionProducts').where('subscriptionId', '=', subscriptionId);
  await (kept.length > 0 ? dropped.where('id', 'not in', kept) : dropped).execute();
  if (kept.length > 0) {
    await db
      .updateTable('subscriptionProducts')
      .set({ position: sql`-position - 1` })
      .where('subscriptionId', '=', subscriptionId)
      .execute();
  }
  for (const [position, { id, ...p }] of products.entries()) {
    if (id > 0)
      await db
        .updateTable('subscriptionProducts')
        .set({ ...p, position })
        .where('id', '=', id)
        .execute();
    else
      await db
        .insertInto('subscriptionProducts')
        .values({ ...p, subscriptionId, position })
        .execute();
  }
}

export type PendingPlanChangeRow = Selectable<PendingPlanChangesTable>;

/** Schedules a plan change for the period end; a change already pending for the subscription is replaced. */
export async function savePendingChange(db: Queryable, row: PendingPlanChangeRow): Promise<void> {
  const values = { ...row, quantities: JSON.stringify(row.quantities) };
  await db
    .insertInto('pendingPlanChanges')
    .values(values)
    .onConflict((oc) => oc.column('subscriptionId').doUpdateSet({ ...values, subscriptionId: undefined }))
    .execute();
}

/** The changes pending for these subscriptions. */
export async function findPendingChanges(db: Queryable, subscriptionIds: number[]): Promise<PendingPlanChangeRow[]> {
  if (subscriptionIds.length === 0) return [];
  return db.selectFrom('pendingPlanChanges').selectAll().where('subscriptionId', 'in', subscriptionIds).execute();
}

/**
 * Claims the pending changes of these subscriptions effective by `day` (all of them when no day is given: a
 * withdrawal), in one delete … returning: of a renewal and a withdrawal at once, exactly one gets the row.
 */
export async function claimPendingChanges(db: Queryable, subscriptionIds: number[], day?: string): Promise<PendingPlanChangeRow[]> {
  if (subscriptionIds.length === 0) return [];
  return db
    .deleteFrom('pendingPlanChanges')
    .where('subscriptionId', 'in', subscriptionIds)
    .$call((q) => (day === undefined ? q : q.where('effectiveDate', '<=', day)))
    .returningAll()
    .execute();
}
