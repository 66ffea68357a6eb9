import { sql, type Kysely } from 'kysely';

/**
 * When each ledger entry's open amount last rose from zero (`opened_at`: an invoice's posting, or a
 * refund reopening it) and last fell to zero (`settled_at`), on the account's clock: the times a
 * customer's account status moves between Good and PoorStanding (customerAccountStatusTimestamp,
 * the dunning countdown) are derived from them. Rows from before keep the best times known:
 * an invoice's posting, and the database's time of the last allocation that settled it.
 *
 * And crmSynchStatus / erpSynchStatus are enums (Enabled, Disabled) in the spec: Disabled unless set.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table ledger_entries add column opened_at timestamptz`.execute(db);
  await sql`alter table ledger_entries add column settled_at timestamptz`.execute(db);
  await sql`
    update ledger_entries e set opened_at = coalesce(
      (select i.posted_at from invoices i where i.id = e.invoice_id and e.entry_type = 'invoice'), e.created_at)`.execute(db);
  await sql`
    update ledger_entries e set settled_at = (
      select max(a.created_at) from ledger_allocations a where a.invoice_entry_id = e.id or a.source_entry_id = e.id)
    where e.open_amount = 0`.execute(db);
  // The service always writes it (on the account's clock); the database's time is for rows written by hand.
  await sql`alter table ledger_entries alter column opened_at set default now()`.execute(db);
  await sql`alter table ledger_entries alter column opened_at set not null`.execute(db);

  await sql`
    update customers set crm_synch_status = coalesce(crm_synch_status, 'Disabled'), erp_synch_status = coalesce(erp_synch_status, 'Disabled')
    where crm_synch_status is null or erp_synch_status is null`.execute(db);
  await sql`
    alter table customers
      alter column crm_synch_status set default 'Disabled', alter column crm_synch_status set not null,
      alter column erp_synch_status set default 'Disabled', alter column erp_synch_status set not null`.execute(db);
}
