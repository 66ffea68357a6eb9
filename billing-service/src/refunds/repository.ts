import { sql, type Insertable, type Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { RefundsTable } from '../db/schema.js';

export type RefundRow = Selectable<RefundsTable>;

export function selectRefunds(db: Queryable, accountId: number) {
  return db.selectFrom('refunds').selectAll('refunds').where('refunds.accountId', '=', accountId);
}

export async function findRefund(db: Queryable, accountId: number, id: number): Promise<RefundRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectRefunds(db, accountId).where('refunds.id', '=', id).executeTakeFirst();
}

export async function insertRefund(db: Queryable, refund: Omit<Insertable<RefundsTable>, 'id' | 'createdAt'>): Promise<number> {
  const { id } = await db.insertInto('refunds').values(refund).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function updateRefund(
  db: Queryable,
  id: number,
  changes: Partial<Pick<RefundRow, 'status' | 'ledgerEntryId' | 'gatewayRefundId' | 'declineCode' | 'declineMessage'>>,
) {
  await db.updateTable('refunds').set(changes).where('id', '=', id).execute();
}

/** The card refund reserved under this gateway idempotency key (a retry of it resumes it). */
export function findRefundByGatewayKey(db: Queryable, gatewayIdempotencyKey: string): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('gatewayIdempotencyKey', '=', gatewayIdempotencyKey).executeTakeFirst();
}

/** The refund's row, locked (its customer's lock is held first): its status is read and changed by one transaction at a time. */
export function lockRefund(db: Queryable, id: number): Promise<RefundRow | undefined> {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Card refunds still Pending that were reserved longer ago than `olderThanSeconds` (by the database's clock), oldest first. */
export function findStalePendingRefunds(db: Queryable, olderThanSeconds: number, limit: number): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'Pending')
    .where('createdAt', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('createdAt')
    .limit(limit)
    .execute();
}

/**
 * Locks the payment's row (refunds of one payment queue here) and returns what its refunds
 * already hold: succeeded ones and those waiting for the gateway.
 */
export async function lockPaymentForRefund(db: Queryable, paymentId: number): Promise<string> {
  await db.selectFrom('payments').select('id').where('id', '=', paymentId).forUpdate().execute();
  const row = await db
    .selectFrom('refunds')
    .select(sql<string>`coalesce(sum(amount), 0)`.as('held'))
    .where('paymentId', '=', paymentId)
    .where('status', 'in', ['Pending', 'Succeeded'])
    .executeTakeFirstOrThrow();
  return row.held;
}

export async function insertUnallocations(db: Queryable, refundId: number, parts: Array<{ invoiceId: number; amount: string }>) {
  if (parts.length === 0) return;
  await db
    .insertInto('refundUnallocations')
    .values(parts.map((p) => ({ refundId, invoiceId: p.invoiceId, amount: p.amount })))
    .execute();
}

/** What these refunds took back from invoices, with each invoice's number. */
export async function findUnallocations(db: Queryable, refundIds: number[]) {
  if (refundIds.length === 0) return [];
  return db
    .selectFrom('refundUnallocations')
    .innerJoin('invoices', 'invoices.id', 'refundUnallocations.invoiceId')
    .select(['refundUnallocations.refundId', 'refundUnallocations.invoiceId', 'refundUnallocations.amount', 'invoices.invoiceNumber'])
    .where('refundUnallocations.refundId', 'in', refundIds)
    .orderBy('refundUnallocations.refundId')
    .orderBy('invoices.dueAt', 'desc')
    .orderBy('invoices.id', 'desc')
    .execute();
}
