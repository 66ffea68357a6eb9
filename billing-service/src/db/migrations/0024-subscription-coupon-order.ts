import { sql, type Kysely } from 'kysely';

/**
 * A subscription's coupons keep the order the PUT listed them in: they are applied in that order
 * (the invoice engine's rule), and it matters once discounts meet a line's cap. Coupons stored
 * before this keep the order they were applied in until now: alphabetical by code.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table subscription_coupons add column position integer not null default 0`.execute(db);
  await sql`
    update subscription_coupons k set position = ordered.position
    from (select subscription_id, coupon_code, row_number() over (partition by subscription_id order by coupon_code) - 1 as position
          from subscription_coupons) ordered
    where k.subscription_id = ordered.subscription_id and k.coupon_code = ordered.coupon_code`.execute(db);
  await sql`alter table subscription_coupons alter column position drop default`.execute(db);
}
