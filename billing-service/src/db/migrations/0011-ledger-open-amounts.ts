import { sql, type Kysely } from 'kysely';

/**
 * The ledger's own guard: an entry's open amount stays between zero and its amount, and an
 * allocation moves a positive amount. The code checks before it writes; this makes a breach
 * impossible to commit rather than a silent loss (an over-paid invoice, money that vanished).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table ledger_entries add constraint ledger_entries_open_amount_in_range
      check (open_amount >= 0 and open_amount <= amount);
    alter table ledger_allocations add constraint ledger_allocations_amount_positive check (amount > 0);
  `.execute(db);
}
