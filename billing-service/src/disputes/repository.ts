import type { Insertable, Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { DisputesTable } from '../db/schema.js';

export type DisputeRow = Selectable<DisputesTable>;

export function selectDisputes(db: Queryable, accountId: number) {
  return db.selectFrom('disputes').selectAll('disputes').where('disputes.accountId', '=', accountId);
}

export async function findDispute(db: Queryable, accountId: number, id: number): Promise<DisputeRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectDisputes(db, accountId).where('disputes.id', '=', id).executeTakeFirst();
}

/** The dispute the processor knows by this id, whichever account (the processor's ids are its own, unique). */
export function findDisputeByGatewayId(db: Queryable, gatewayDisputeId: string): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('gatewayDisputeId', '=', gatewayDisputeId).executeTakeFirst();
}

/** The dispute's row, locked (its customer's lock is held first): its status changes one transaction at a time. */
export function lockDispute(db: Queryable, id: number): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

export async function insertDispute(db: Queryable, dispute: Omit<Insertable<DisputesTable>, 'id'>): Promise<number> {
  const { id } = await db.insertInto('disputes').values(dispute).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function updateDispute(
  db: Queryable,
  id: number,
  changes: Partial<Pick<DisputeRow, 'status' | 'reversalEntryId' | 'evidenceSubmittedAt' | 'closedAt'>>,
): Promise<void> {
  await db.updateTable('disputes').set(changes).where('id', '=', id).execute();
}

export async function insertDisputeUnallocations(db: Queryable, disputeId: number, parts: Array<{ invoiceId: number; amount: string }>) {
  if (parts.length === 0) return;
  await db
    .insertInto('disputeUnallocations')
    .values(parts.map((p) => ({ disputeId, invoiceId: p.invoiceId, amount: p.amount })))
    .execute();
}

/** What these disputes took back from invoices, with each invoice's number. */
export async function findDisputeUnallocations(db: Queryable, disputeIds: number[]) {
  if (disputeIds.length === 0) return [];
  return db
    .selectFrom('disputeUnallocations')
    .innerJoin('invoices', 'invoices.id', 'disputeUnallocations.invoiceId')
    .select(['disputeUnallocations.disputeId', 'disputeUnallocations.invoiceId', 'disputeUnallocations.amount', 'invoices.invoiceNumber'])
    .where('disputeUnallocations.disputeId', 'in', disputeIds)
    .orderBy('disputeUnallocations.disputeId')
    .orderBy('invoices.dueAt', 'desc')
    .orderBy('invoices.id', 'desc')
    .execute();
}

/** The succeeded payment that made the processor's charge `transactionId`, in any account. */
export function findPaymentOfCharge(db: Queryable, transactionId: string) {
  return db
    .selectFrom('payments')
    .select(['id', 'accountId', 'customerId', 'ledgerEntryId', 'amount', 'currency', 'effectiveAt'])
    .where('gatewayTransactionId', '=', transactionId)
    .where('status', '=', 'Succeeded')
    .executeTakeFirst();
}

/** The disputes of these payments (the console and the payment show them). */
export function findDisputesOfPayments(db: Queryable, paymentIds: number[]): Promise<DisputeRow[]> {
  if (paymentIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('disputes').selectAll().where('paymentId', 'in', paymentIds).orderBy('id').execute();
}
