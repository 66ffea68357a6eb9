import { sql, type QueryCreator, type Selectable } from 'kysely';
import { isStorableId } from '../db/ids.js';
import type { Queryable } from '../db/database.js';
import type { Database, InvoiceChargesTable, InvoiceTaxesTable } from '../db/schema.js';
import type { DraftInvoice } from './engine/index.js';

/** Invoices with what the ledger says of them: amount paid (allocated) and outstanding. */
export function selectInvoices(db: Queryable, accountId: number) {
  return db
    .selectFrom('invoices')
    .leftJoin('ledgerEntries', (join) => join.onRef('ledgerEntries.invoiceId', '=', 'invoices.id').on('ledgerEntries.entryType', '=', 'invoice'))
    .selectAll('invoices')
    .select([
      sql<string>`coalesce(ledger_entries.amount - ledger_entries.open_amount, 0)`.as('totalPayments'),
      sql<string>`coalesce(ledger_entries.open_amount, invoices.total)`.as('outstandingBalance'),
    ])
    .where('invoices.accountId', '=', accountId);
}

export type InvoiceRow = Awaited<ReturnType<ReturnType<typeof selectInvoices>['executeTakeFirstOrThrow']>>;
export type InvoiceChargeRow = Selectable<InvoiceChargesTable>;
export type InvoiceTaxRow = Selectable<InvoiceTaxesTable>;

export async function findInvoice(db: Queryable, accountId: number, id: number): Promise<InvoiceRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectInvoices(db, accountId).where('invoices.id', '=', id).executeTakeFirst();
}

export async function findInvoiceLines(db: Queryable, invoiceIds: number[]): Promise<{ charges: InvoiceChargeRow[]; taxes: InvoiceTaxRow[] }> {
  if (invoiceIds.length === 0) return { charges: [], taxes: [] };
  const [charges, taxes] = await Promise.all([
    db.selectFrom('invoiceCharges').selectAll().where('invoiceId', 'in', invoiceIds).orderBy('invoiceId').orderBy('position').execute(),
    db.selectFrom('invoiceTaxes').selectAll().where('invoiceId', 'in', invoiceIds).orderBy('invoiceId').orderBy('position').execute(),
  ]);
  return { charges, taxes };
}

/**
 * Stores an invoice with its charges and taxes, numbered with the account's next invoice
 * number, in one statement (data-modifying CTEs: one round trip instead of four). The
 * number comes from an update of the account row, whose lock makes numbers sequential
 * without gaps or repeats.
 */
export async function insertInvoice(
  db: Queryable,
  invoice: { accountId: number; customerId: number; status: 'Draft' | 'Posted'; terms: string; poNumber: string | null; postedAt: Date | null },
  draft: DraftInvoice,
): Promise<{ id: number; invoiceNumber: number }> {
  // the CTEs below (CamelCasePlugin writes newInvoice as new_invoice)
  const invoiceNumber = sql<number>`(select number from taken_invoice_number)`;
  const invoiceId = sql<number>`(select id from new_invoice)`;
  type WithNewInvoice = QueryCreator<Database & { newInvoice: { id: number; invoiceNumber: number } }>;
  let query = db
    .with('takenInvoiceNumber', (qc) =>
      qc
        .updateTable('accounts')
        .set({ nextInvoiceNumber: sql`next_invoice_number + 1` })
        .where('id', '=', invoice.accountId)
        .returning(sql<number>`next_invoice_number - 1`.as('number')),
    )
    .with('newInvoice', (qc) =>
      qc
        .insertInto('invoices')
        .values({
          ...invoice,
          invoiceNumber,
          currency: draft.currency,
          effectiveAt: `${draft.effectiveDate}T00:00:00Z`,
          dueAt: `${draft.dueDate}T00:00:00Z`,
          subtotal: draft.subtotal.toString(),
          totalDiscount: draft.totalDiscount.toString(),
          totalTaxes: draft.totalTaxes.toString(),
          total: draft.total.toString(),
        })
        .returning(['id', 'invoiceNumber']),
    ) as unknown as WithNewInvoice;
  if (draft.charges.length > 0) {
    query = query.with('newCharges', (qc) =>
      qc.insertInto('invoiceCharges').values(
        draft.charges.map((c, position) => ({
          invoiceId,
          subscriptionId: c.subscriptionId,
          position,
          kind: c.kind,
          productCode: c.productCode,
          name: c.name,
          description: c.description,
          quantity: c.quantity.toString(),
          unitPrice: c.unitPrice.toString(),
          proratedUnitPrice: c.proratedUnitPrice.toString(),
          amount: c.amount.toString(),
          taxableAmount: c.taxableAmount.toString(),
          startServiceDate: c.startServiceDate,
          endServiceDate: c.endServiceDate,
          discounts: JSON.stringify(c.discounts.map((d) => ({ name: d.name, amount: d.amount.toString() }))),
        })),
      ),
    ) as unknown as WithNewInvoice;
  }
  if (draft.taxes.length > 0) {
    query = query.with('newTaxes', (qc) =>
      qc.insertInto('invoiceTaxes').values(draft.taxes.map((t, position) => ({ invoiceId, position, name: t.name, rate: t.rate.toString(), amount: t.amount.toString() }))),
    ) as unknown as WithNewInvoice;
  }
  const row = await query.selectFrom('newInvoice').select(['newInvoice.id', 'newInvoice.invoiceNumber']).executeTakeFirstOrThrow();
  return { id: row.id, invoiceNumber: Number(row.invoiceNumber) };
}

/** Recurring charges of the subscriptions on posted invoices whose service period runs on `day` (with their invoice's totals). */
export async function recurringChargesRunningOn(db: Queryable, subscriptionIds: number[], day: string) {
  if (subscriptionIds.length === 0) return [];
  return db
    .selectFrom('invoiceCharges')
    .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
    .select(['invoices.id as invoiceId', 'invoiceCharges.subscriptionId', 'invoiceCharges.taxableAmount', 'invoiceCharges.startServiceDate', 'invoiceCharges.endServiceDate', 'invoices.subtotal', 'invoices.totalDiscount', 'invoices.totalTaxes'])
    .where('invoiceCharges.subscriptionId', 'in', subscriptionIds)
    .where('invoiceCharges.kind', '=', 'Recurring')
    .where('invoices.status', '=', 'Posted')
    .where('invoiceCharges.startServiceDate', '<=', day)
    .where('invoiceCharges.endServiceDate', '>', day)
    .orderBy('invoices.id')
    .execute();
}
