import { sql, type Kysely } from 'kysely';

/**
 * Plan changes scheduled for the end of the period (issue 28, `timing: periodEnd`): one per subscription (a second
 * replaces the first), with the plan frequency and every product's quantity after the change, and the period
 * start it applies from. The renewal of that period claims it (delete … returning) under the customer's lock; a
 * withdrawal claims it the same way, so exactly one of them wins. Written only by src/subscriptions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table pending_plan_changes (
      subscription_id integer primary key references subscriptions(id) on delete cascade,
      plan_frequency_id integer not null references plan_frequencies(id),
      quantities jsonb not null,
      effective_date date not null,
      created_at timestamptz not null
    )
  `.execute(db);
}
