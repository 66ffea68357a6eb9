import { sql, type Kysely } from 'kysely';

/**
 * What credits reversed of each recurring line, and the day a line's period was replaced:
 * - credited_amount: the part of the line's reversible amount credited so far (cancellations,
 *   unhold with ChargeForCurrentFullPeriod). A later cancellation deducts what was credited for
 *   that line, not every credit of its invoice (another subscription's line on the same invoice
 *   was credited for itself). Credits recorded before this column are attributed to an invoice's
 *   only recurring line (credits against an invoice are only ever reversals of its recurring lines);
 *   on an invoice with several, they stay unattributed and are deducted from the invoice as a whole,
 *   as they were.
 * - replaced_on: the day an unhold with ChargeForCurrentFullPeriod ended the line's period (its
 *   rest credited, a new period billed from that day): from then on it is no longer the period
 *   running, and no cancellation reverses it. The line's service dates (the invoice as sent) stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table invoice_charges add column credited_amount numeric not null default 0;
    alter table invoice_charges add column replaced_on date;
  `.execute(db);
  await sql`
    update invoice_charges ch set credited_amount = credits.total
    from (select invoice_id, sum(amount) as total from ledger_entries where entry_type = 'credit' and invoice_id is not null group by invoice_id) credits,
         (select invoice_id, min(id) as id from invoice_charges where kind = 'Recurring' group by invoice_id having count(*) = 1) single
    where credits.invoice_id = single.invoice_id and ch.id = single.id`.execute(db);
}
