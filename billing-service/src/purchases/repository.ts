import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { PurchasesTable } from '../db/schema.js';
import type { Insertable } from 'kysely';

const COLUMNS = [
  'id',
  'accountId',
  'customerId',
  'status',
  'productCode',
  'name',
  'description',
  'quantity',
  'unitPrice',
  'amount',
  'currency',
  'invoiceId',
  'createdAt',
  'invoicedAt',
] as const;

export function selectPurchases(db: Queryable, accountId: number) {
  return db.selectFrom('purchases').select(COLUMNS).where('purchases.accountId', '=', accountId);
}

export type PurchaseRow = Awaited<ReturnType<ReturnType<typeof selectPurchases>['executeTakeFirstOrThrow']>>;

export async function findPurchase(db: Queryable, accountId: number, id: number): Promise<PurchaseRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectPurchases(db, accountId).where('purchases.id', '=', id).executeTakeFirst();
}

export async function insertPurchase(db: Queryable, purchase: Insertable<PurchasesTable>): Promise<PurchaseRow> {
  return db.insertInto('purchases').values(purchase).returning(COLUMNS).executeTakeFirstOrThrow();
}

/** Deletes a Draft purchase; undefined when there is none (or it is no longer Draft). Under the customer's lock. */
export async function deleteDraftPurchase(db: Queryable, accountId: number, id: number): Promise<PurchaseRow | undefined> {
  return db
    .deleteFrom('purchases')
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'Draft')
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** A customer's purchases in one status, oldest first (read under the customer's lock by who bills them). */
export async function purchasesInStatus(db: Queryable, customerId: number, status: PurchaseRow['status']): Promise<PurchaseRow[]> {
  return db
    .selectFrom('purchases')
    .select(COLUMNS)
    .where('customerId', '=', customerId)
    .where('status', '=', status)
    .orderBy('id')
    .execute();
}

/** The purchases an invoice bills are Invoiced, in the invoice's transaction (so each is billed once). */
export async function markPurchasesInvoiced(db: Queryable, ids: readonly number[], invoiceId: number, now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('purchases')
    .set({ status: 'Invoiced', invoiceId, invoicedAt: now })
    .where('id', 'in', [...ids])
    .where('status', '<>', 'Invoiced')
    .execute();
}
