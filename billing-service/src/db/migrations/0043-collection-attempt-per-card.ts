import { sql, type Kysely } from 'kysely';

/**
 * One automatic collection attempt per customer, day and default card (was: per customer and day): a new default
 * card arriving after the day's attempt declined is tried at the clock's next tick, not the next day. Earlier rows
 * name no card (0). `claimed_by`: the clock, or a customer paying now in the portal (whose claim keeps the clock off that
 * card; the portal, finding the clock's claim with no payment recorded yet, waits rather than charge a second time).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table auto_collection_attempts add column payment_method_id integer not null default 0;
    alter table auto_collection_attempts add column claimed_by text not null default 'clock' check (claimed_by in ('clock', 'portal'));
    alter table auto_collection_attempts drop constraint auto_collection_attempts_pkey;
    alter table auto_collection_attempts add primary key (customer_id, attempt_date, payment_method_id);
  `.execute(db);
}
