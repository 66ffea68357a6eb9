import { sql, type Insertable, type Selectable, type SqlBool } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isStorableId } from '../db/ids.js';
import type { CreditNoteLinesTable, CreditNoteRefundsTable, CreditNotesTable } from '../db/schema.js';

export type CreditNoteRow = Selectable<CreditNotesTable> & { invoiceNumber: number };
export type CreditNoteLineRow = Selectable<CreditNoteLinesTable>;
export type CreditNoteRefundRow = Selectable<CreditNoteRefundsTable> & { refundStatus: string | null };

/** Credit notes with their invoice's number. */
export function selectCreditNotes(db: Queryable, accountId: number) {
  return db
    .selectFrom('creditNotes')
    .innerJoin('invoices', 'invoices.id', 'creditNotes.invoiceId')
    .selectAll('creditNotes')
    .select('invoices.invoiceNumber')
    .where('creditNotes.accountId', '=', accountId);
}

export async function findCreditNote(db: Queryable, accountId: number, id: number): Promise<CreditNoteRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectCreditNotes(db, accountId).where('creditNotes.id', '=', id).executeTakeFirst();
}

export async function insertCreditNote(
  db: Queryable,
  note: Insertable<CreditNotesTable>,
  lines: Array<Omit<Insertable<CreditNoteLinesTable>, 'creditNoteId' | 'position'>>,
): Promise<number> {
  const { id } = await db.insertInto('creditNotes').values(note).returning('id').executeTakeFirstOrThrow();
  await db
    .insertInto('creditNoteLines')
    .values(lines.map((line, position) => ({ ...line, creditNoteId: id, position })))
    .execute();
  return id;
}

export async function findCreditNoteLines(db: Queryable, creditNoteIds: number[]): Promise<CreditNoteLineRow[]> {
  if (creditNoteIds.length === 0) return [];
  return db
    .selectFrom('creditNoteLines')
    .selectAll()
    .where('creditNoteId', 'in', creditNoteIds)
    .orderBy('creditNoteId')
    .orderBy('position')
    .execute();
}

export async function insertRefundPlan(db: Queryable, creditNoteId: number, plan: Array<{ paymentId: number; amount: string }>) {
  if (plan.length === 0) return;
  await db
    .insertInto('creditNoteRefunds')
    .values(plan.map((p) => ({ creditNoteId, paymentId: p.paymentId, amount: p.amount })))
    .execute();
}

/** The refunds credit notes asked for, with each refund's status once it exists. */
export async function findRefundPlans(db: Queryable, creditNoteIds: number[]): Promise<CreditNoteRefundRow[]> {
  if (creditNoteIds.length === 0) return [];
  return db
    .selectFrom('creditNoteRefunds')
    .leftJoin('refunds', 'refunds.id', 'creditNoteRefunds.refundId')
    .selectAll('creditNoteRefunds')
    .select('refunds.status as refundStatus')
    .where('creditNoteRefunds.creditNoteId', 'in', creditNoteIds)
    .orderBy('creditNoteRefunds.creditNoteId')
    .orderBy('creditNoteRefunds.paymentId', 'desc')
    .execute();
}

export async function recordPlannedRefund(db: Queryable, creditNoteId: number, paymentId: number, refundId: number): Promise<void> {
  await db
    .updateTable('creditNoteRefunds')
    .set({ refundId })
    .where('creditNoteId', '=', creditNoteId)
    .where('paymentId', '=', paymentId)
    .where('refundId', 'is', null)
    .execute();
}

/** Marks a planned refund that can no longer be made (its amount stays the customer's credit): not tried again. */
export async function recordRefusedRefund(db: Queryable, creditNoteId: number, paymentId: number, why: string): Promise<void> {
  await db
    .updateTable('creditNoteRefunds')
    .set({ refused: why.slice(0, 500) })
    .where('creditNoteId', '=', creditNoteId)
    .where('paymentId', '=', paymentId)
    .where('refundId', 'is', null)
    .execute();
}

/** Credit notes with a planned refund neither made nor refused, planned more than `olderThanSeconds` ago (database clock). */
export function creditNotesWithUnfinishedRefunds(
  db: Queryable,
  olderThanSeconds: number,
  limit: number,
): Promise<Array<{ creditNoteId: number; accountId: number }>> {
  return db
    .selectFrom('creditNoteRefunds')
    .innerJoin('creditNotes', 'creditNotes.id', 'creditNoteRefunds.creditNoteId')
    .select(['creditNotes.id as creditNoteId', 'creditNotes.accountId'])
    .distinct()
    .where('creditNoteRefunds.refundId', 'is', null)
    .where('creditNoteRefunds.refused', 'is', null)
    .where(sql<SqlBool>`credit_note_refunds.planned_at < now() - make_interval(secs => ${olderThanSeconds})`)
    .orderBy('creditNotes.id')
    .limit(limit)
    .execute();
}

/**
 * What each payment has paid on an invoice (its allocations to the invoice's ledger entry; a refund that reopened
 * the invoice took its part back). Card and other methods alike; disputed payments are the gateway's business.
 */
export async function paymentsOfInvoice(db: Queryable, invoiceId: number): Promise<Array<{ paymentId: number; paid: string }>> {
  const rows = await db
    .selectFrom('ledgerAllocations')
    .innerJoin('ledgerEntries as invoiceEntry', 'invoiceEntry.id', 'ledgerAllocations.invoiceEntryId')
    .innerJoin('payments', 'payments.ledgerEntryId', 'ledgerAllocations.sourceEntryId')
    .select(['payments.id as paymentId', sql<string>`sum(ledger_allocations.amount)::text`.as('paid')])
    .where('invoiceEntry.invoiceId', '=', invoiceId)
    .where('invoiceEntry.entryType', '=', 'invoice')
    .where('payments.status', '=', 'Succeeded')
    .groupBy('payments.id')
    .execute();
  return rows.map((r) => ({ paymentId: Number(r.paymentId), paid: r.paid }));
}

/** The invoice's ledger entry, locked: its open amount is what a credit can still pay on it. */
export async function lockInvoiceEntry(db: Queryable, accountId: number, invoiceId: number) {
  return db
    .selectFrom('ledgerEntries')
    .select(['id', 'openAmount'])
    .where('accountId', '=', accountId)
    .where('invoiceId', '=', invoiceId)
    .where('entryType', '=', 'invoice')
    .forUpdate()
    .executeTakeFirst();
}
