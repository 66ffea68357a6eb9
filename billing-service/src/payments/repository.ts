import { sql, type Insertable, type Selectable } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { PaymentsTable } from '../db/schema.js';

export type PaymentRow = Selectable<PaymentsTable> & { unallocated: string | null };

export function selectPayments(db: Queryable, accountId: number) {
  return db
    .selectFrom('payments')
    .leftJoin('ledgerEntries', 'ledgerEntries.id', 'payments.ledgerEntryId')
    .selectAll('payments')
    .select(sql<string | null>`ledger_entries.open_amount`.as('unallocated'))
    .where('payments.accountId', '=', accountId);
}

export async function findPayment(db: Queryable, accountId: number, id: number): Promise<PaymentRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectPayments(db, accountId).where('payments.id', '=', id).executeTakeFirst();
}

export async function insertPayment(db: Queryable, row: Insertable<PaymentsTable>): Promise<number> {
  const { id } = await db.insertInto('payments').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Where the payments' money went: their allocations with each invoice's number, total and balance. */
export async function findAllocations(db: Queryable, ledgerEntryIds: number[]) {
  if (ledgerEntryIds.length === 0) return [];
  return db
    .selectFrom('ledgerAllocations')
    .innerJoin('ledgerEntries as invoiceEntry', 'invoiceEntry.id', 'ledgerAllocations.invoiceEntryId')
    .innerJoin('invoices', 'invoices.id', 'invoiceEntry.invoiceId')
    .select([
      'ledgerAllocations.sourceEntryId',
      'ledgerAllocations.amount',
      'invoices.id as invoiceId',
      'invoices.invoiceNumber',
      'invoices.total as invoiceTotal',
      'invoiceEntry.openAmount as outstandingBalance',
    ])
    .where('ledgerAllocations.sourceEntryId', 'in', ledgerEntryIds)
    .orderBy('ledgerAllocations.id')
    .execute();
}

/** A customer's posted invoices with their ledger entries and what is still open on each. */
export async function findOpenInvoiceEntries(db: Queryable, customerId: number, invoiceIds: number[]) {
  if (invoiceIds.length === 0) return [];
  return db
    .selectFrom('ledgerEntries')
    .select(['id', 'invoiceId', 'openAmount'])
    .where('customerId', '=', customerId)
    .where('entryType', '=', 'invoice')
    .where('invoiceId', 'in', invoiceIds)
    .execute();
}
