import { sql, type Kysely } from 'kysely';

/**
 * Plan changes scheduled for the end of the period (issue 28, `timing: periodEnd`): one per subscription (a second
 * replaces the first), with the plan frequency and every product's quantity after the change, and the period
 * start it applies from. The renewal of that period claims it (delete … returning) under the customer's lock; a
 * withdrawal claims it the same way, so exactly one of them wins. Written only by src/subscriptions.
 *
 * And the period a coupon last discounted (`last_used_on`, its first service day; `last_used_until`, the day it
 * ends): a change within a period
 * carries a Percentage coupon over only when it discounted that period (a coupon attached after the period was
 * billed, or used up on an earlier period, did not). Coupons used before this migration are taken as used on
 * their subscription's current period, as the change preview assumed until then.
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
  await sql`alter table subscription_coupons add column last_used_on date, add column last_used_until date`.execute(db);
  await sql`
    update subscription_coupons k set last_used_on = s.current_period_start
    from subscriptions s where s.id = k.subscription_id and k.periods_used > 0
  `.execute(db);
}
