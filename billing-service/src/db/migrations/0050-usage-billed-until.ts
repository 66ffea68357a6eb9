import { sql, type Kysely } from 'kysely';

/**
 * Issue 41: the day up to which a subscription's usage has been billed outside its renewals (a cancellation bills
 * the usage of its last, unfinished period at once). Usage windows start at the later of it and the current period
 * start, so an uncancelled subscription's next renewal does not bill those days again. Null: only renewals billed it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table subscriptions add column usage_billed_until date`.execute(db);
}
