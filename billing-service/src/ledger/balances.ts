import { sql } from 'kysely';
import type { Queryable } from '../db/database.js';
import { money, type Money } from '../money/money.js';

/** A customer's position, derived from its ledger entries (never stored separately). */
export interface CustomerBalances {
  /** Outstanding balance of posted invoices. */
  arBalance: Money;
  unallocatedPayments: Money;
  unallocatedCredits: Money;
  unallocatedOpeningBalance: Money;
  /** Payments received less refunds and disputes lost or open. */
  netPayments: Money;
  /** Earliest due date among invoices still open, if any. */
  oldestOpenInvoiceDueAt: Date | null;
}

export async function customerBalances(db: Queryable, customerId: number): Promise<CustomerBalances> {
  const row = await db
    .selectFrom('ledgerEntries')
    .where('customerId', '=', customerId)
    .select([
      sql<string>`coalesce(sum(open_amount) filter (where entry_type = 'invoice'), 0)`.as('arBalance'),
      sql<string>`coalesce(sum(open_amount) filter (where entry_type = 'payment'), 0)`.as('unallocatedPayments'),
      sql<string>`coalesce(sum(open_amount) filter (where entry_type = 'credit'), 0)`.as('unallocatedCredits'),
      sql<string>`coalesce(sum(open_amount) filter (where entry_type = 'opening_balance'), 0)`.as('unallocatedOpeningBalance'),
      // a dispute takes a payment's money back, a dispute won gives it back
      sql<string>`coalesce(sum(case entry_type when 'payment' then amount when 'dispute_reversal' then amount when 'refund' then -amount when 'dispute' then -amount end), 0)`.as(
        'netPayments',
      ),
      sql<Date | null>`min(due_at) filter (where entry_type = 'invoice' and open_amount > 0)`.as('oldestOpenInvoiceDueAt'),
    ])
    .executeTakeFirstOrThrow();
  return {
    arBalance: money(row.arBalance),
    unallocatedPayments: money(row.unallocatedPayments),
    unallocatedCredits: money(row.unallocatedCredits),
    unallocatedOpeningBalance: money(row.unallocatedOpeningBalance),
    netPayments: money(row.netPayments),
    oldestOpenInvoiceDueAt: row.oldestOpenInvoiceDueAt ? new Date(row.oldestOpenInvoiceDueAt) : null,
  };
}

/** What the customer owes on posted invoices due by `at` (due date on or before it): what automatic collection may charge. */
export async function amountDueBy(db: Queryable, customerId: number, at: Date): Promise<Money> {
  const row = await db
    .selectFrom('ledgerEntries')
    .where('customerId', '=', customerId)
    .where('entryType', '=', 'invoice')
    .where('openAmount', '>', '0')
    .where('dueAt', '<=', at)
    .select(sql<string>`coalesce(sum(open_amount), 0)`.as('due'))
    .executeTakeFirstOrThrow();
  return money(row.due);
}

/** Of these invoices, the posted ones nothing is owed on any more. */
export async function invoicesFullyPaid(db: Queryable, invoiceIds: number[]): Promise<number[]> {
  if (invoiceIds.length === 0) return [];
  const rows = await db
    .selectFrom('ledgerEntries')
    .select('invoiceId')
    .where('entryType', '=', 'invoice')
    .where('invoiceId', 'in', invoiceIds)
    .where('openAmount', '=', '0')
    .execute();
  return rows.flatMap((r) => (r.invoiceId === null ? [] : [r.invoiceId]));
}
