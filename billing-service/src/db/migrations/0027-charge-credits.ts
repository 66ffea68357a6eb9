import { sql, type Kysely } from 'kysely';

/**
 * What credits reversed of each recurring line, and the day a line's period was replaced:
 * - credited_amount: the part of the line's reversible amount credited so far (cancellations,
 *   unhold with ChargeForCurrentFullPeriod). A later cancellation deducts what was credited for
 *   that line, not every credit of its invoice (another subscription's line on the same invoice
 *   was credited for itself). Credits recorded before this column are not attributed to lines:
 *   they are deducted from their invoice as a whole, as they were.
 * - replaced_on: the day an unhold with ChargeForCurrentFullPeriod ended the line's period (its
 *   rest credited, a new period billed from that day): from then on it is no longer the period
 *   running, and no cancellation reverses it. The line's service dates (the invoice as sent) stay.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table invoice_charges add column credited_amount numeric not null default 0;
    alter table invoice_charges add column replaced_on date;
  `.execute(db);
}
