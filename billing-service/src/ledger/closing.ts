import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import { money, type Money } from '../money/money.js';
import { recordAllocation } from './allocation.js';
import { addLedgerEntry } from './entries.js';

/** How an invoice is closed: voided (it never was owed) or written off (a bad debt given up on). */
export type InvoiceClosing = 'void' | 'write_off';

/**
 * Closes a posted invoice's ledger entry (issue 40): a `void` or `write_off` entry of what the invoice still
 * owes, carrying its id, allocated to it in full, so the invoice owes nothing (AR falls, dunning and
 * collection skip it: they read open amounts) and every entry's amount − open stays the sum of its
 * allocations. It is neither a payment nor a credit: it is created holding exactly what it closes, so it
 * never pays anything else, and it is not counted in netPayments. In the caller's transaction, under the
 * customer's lock; the caller checked the invoice may be closed. Answers the closing entry and its amount.
 */
export async function closeInvoiceEntry(
  db: Queryable,
  closing: {
    accountId: number;
    customerId: number;
    invoiceEntryId: number;
    invoiceId: number;
    kind: InvoiceClosing;
    at: Date;
    description: string;
  },
): Promise<{ entryId: number; amount: Money }> {
  const entry = await db
    .selectFrom('ledgerEntries')
    .select('openAmount')
    .where('id', '=', closing.invoiceEntryId)
    .where('accountId', '=', closing.accountId)
    .where('entryType', '=', 'invoice')
    .forUpdate()
    .executeTakeFirst();
  if (!entry) throw new Error(`ledger: no invoice entry ${closing.invoiceEntryId}`);
  const amount = money(entry.openAmount);
  const entryId = await addLedgerEntry(db, {
    accountId: closing.accountId,
    customerId: closing.customerId,
    entryType: closing.kind,
    amount,
    invoiceId: closing.invoiceId,
    effectiveAt: closing.at,
    description: closing.description,
  });
  if (amount.greaterThan(0)) await recordAllocation(db, closing.accountId, entryId, closing.invoiceEntryId, amount, closing.at);
  return { entryId, amount };
}

/** Per invoice: what its closing entry (void or write-off) took off it; invoices not closed are absent. */
export async function closedAmounts(db: Queryable, invoiceIds: number[]): Promise<Map<number, Money>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('ledgerEntries')
    .select(['invoiceId', sql<string>`amount::text`.as('amount')])
    .where('entryType', 'in', ['void', 'write_off'])
    .where('invoiceId', 'in', invoiceIds)
    .execute();
  return new Map(rows.flatMap((r) => (r.invoiceId === null ? [] : [[r.invoiceId, money(r.amount)] as const])));
}
