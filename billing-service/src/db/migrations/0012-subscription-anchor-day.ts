import { sql, type Kysely } from 'kysely';

/**
 * The day of the month a subscription's periods fall on, once it has moved away from the activation
 * day (unhold or reactivation with ChargeForCurrentFullPeriod). Null: the activation day, as before.
 * Derived from dates alone it is ambiguous at month ends (a period from 30 March to 30 April may be
 * anchored on the 30th or the 31st), so it is stored when it moves.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table subscriptions add column anchor_day smallint check (anchor_day between 1 and 31)`.execute(db);
}
