import type { InsertObject, QueryCreator } from 'kysely';
import type { Queryable } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { insertJsonRows } from '../db/json-rows.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { Money } from '../money/money.js';

/** `void`, `write_off`: what closed an invoice (ledger/closing.ts), never money that pays anything else. */
export type LedgerEntryType =
  | 'invoice'
  | 'payment'
  | 'credit'
  | 'refund'
  | 'opening_balance'
  | 'dispute'
  | 'dispute_reversal'
  | 'void'
  | 'write_off';

// On every invoice and payment: compiled once (see reusableQuery).
const insertLedgerEntry = reusableQuery(
  (
    db: Queryable,
    accountId: number,
    customerId: number,
    entryType: LedgerEntryType,
    amount: string,
    invoiceId: number | null,
    dueAt: Date | null,
    effectiveAt: Date,
    openedAt: Date,
    description: string | null,
  ) =>
    db
      .insertInto('ledgerEntries')
      .values({ accountId, customerId, entryType, amount, openAmount: amount, invoiceId, dueAt, effectiveAt, openedAt, description })
      .returning('id'),
);

/** Adds one entry to the customer's ledger; open amount starts at the full amount. */
export async function addLedgerEntry(
  db: Queryable,
  entry: {
    accountId: number;
    customerId: number;
    entryType: LedgerEntryType;
    amount: Money;
    invoiceId?: number | null;
    dueAt?: Date | null;
    /** When the entry takes effect: the account's time (see AccountClock), or a date the caller gave. */
    effectiveAt: Date;
    /**
     * When its amount became open (owed, or held), on the account's clock; default `effectiveAt`. An
     * invoice's is its posting: whether it was overdue by then decides when PoorStanding starts.
     */
    openedAt?: Date;
    description?: string | null;
  },
): Promise<number> {
  const amount = entry.amount.toString();
  const [row] = await insertLedgerEntry(
    db,
    entry.accountId,
    entry.customerId,
    entry.entryType,
    amount,
    entry.invoiceId ?? null,
    entry.dueAt ?? null,
    entry.effectiveAt,
    entry.openedAt ?? entry.effectiveAt,
    entry.description ?? null,
  );
  if (!row) throw new Error('the ledger entry insert returned no row');
  return row.id;
}

/** Credits recorded against these invoices. */
export async function creditsAgainstInvoices(
  db: Queryable,
  invoiceIds: number[],
): Promise<Array<{ invoiceId: number | null; amount: string }>> {
  if (invoiceIds.length === 0) return [];
  return db
    .selectFrom('ledgerEntries')
    .select(['invoiceId', 'amount'])
    .where('entryType', '=', 'credit')
    .where('invoiceId', 'in', invoiceIds)
    .execute();
}

/** Adds several entries in one statement (a batch of payments), each as addLedgerEntry would; their ids in the order given. */
export function addLedgerEntries(db: Queryable, entries: Array<Parameters<typeof addLedgerEntry>[1]>): Promise<number[]> {
  const rows = entries.map((e) => ({
    account_id: e.accountId,
    customer_id: e.customerId,
    entry_type: e.entryType,
    amount: e.amount.toString(),
    open_amount: e.amount.toString(),
    invoice_id: e.invoiceId ?? null,
    due_at: e.dueAt ?? null,
    effective_at: e.effectiveAt,
    opened_at: e.openedAt ?? e.effectiveAt,
    description: e.description ?? null,
  }));
  return insertJsonRows(db, 'ledger_entries', LEDGER_ENTRY_COLUMNS, rows, true);
}

const LEDGER_ENTRY_COLUMNS =
  'account_id integer, customer_id integer, entry_type text, amount numeric, open_amount numeric, invoice_id integer, due_at timestamptz, effective_at timestamptz, opened_at timestamptz, description text';

/**
 * A ledger entry's insert as a piece of another folder's combined statement (a data-modifying CTE
 * that writes an invoice or a payment with its entry in one round trip); its open amount starts at
 * the full amount, as addLedgerEntry's. The ledger stays the table's one writer.
 */
export function ledgerEntryInsert(qc: QueryCreator<Database>, entry: Omit<InsertObject<Database, 'ledgerEntries'>, 'openAmount'>) {
  return qc.insertInto('ledgerEntries').values({ ...entry, openAmount: entry.amount });
}
