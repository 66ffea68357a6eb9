import type { Queryable } from '../db/database.js';
import type { Money } from '../money/money.js';

/** Adds one entry to the customer's ledger; open amount starts at the full amount. */
export async function addLedgerEntry(
  db: Queryable,
  entry: {
    accountId: number;
    customerId: number;
    entryType: 'invoice' | 'payment' | 'credit' | 'refund' | 'opening_balance';
    amount: Money;
    invoiceId?: number | null;
    dueAt?: Date | null;
    effectiveAt?: Date;
    description?: string | null;
  },
): Promise<number> {
  const { id } = await db
    .insertInto('ledgerEntries')
    .values({
      accountId: entry.accountId,
      customerId: entry.customerId,
      entryType: entry.entryType,
      amount: entry.amount.toString(),
      openAmount: entry.amount.toString(),
      invoiceId: entry.invoiceId ?? null,
      dueAt: entry.dueAt ?? null,
      effectiveAt: entry.effectiveAt ?? new Date(),
      description: entry.description ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}
