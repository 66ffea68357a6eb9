import { sql, type Kysely } from 'kysely';

/**
 * Void and write-off of posted invoices (issue 40).
 * - invoices.status takes `WrittenOff`: a bad debt given up on, the invoice closed (`Void` was already allowed).
 * - ledger_entries.entry_type takes `void` and `write_off`: each closes one invoice entry by allocating its open
 *   amount to it (so amount − open stays the sum of allocations), carries that invoice's id, and is neither a
 *   payment nor a credit (it never pays anything else: it is created holding exactly what it closes).
 * - one closing entry per invoice at most.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table invoices drop constraint if exists invoices_status_check;
    alter table invoices add constraint invoices_status_check check (status in ('Draft', 'Posted', 'Void', 'WrittenOff'));
    alter table ledger_entries drop constraint if exists ledger_entries_entry_type_check;
    alter table ledger_entries add constraint ledger_entries_entry_type_check
      check (entry_type in ('invoice', 'payment', 'credit', 'refund', 'opening_balance', 'dispute', 'dispute_reversal', 'void', 'write_off'));
    create unique index ledger_entries_invoice_closing on ledger_entries (invoice_id) where entry_type in ('void', 'write_off');
  `.execute(db);
}
