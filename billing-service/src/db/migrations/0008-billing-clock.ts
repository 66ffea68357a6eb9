import { sql, type Kysely } from 'kysely';

/**
 * The billing clock: one automatic collection attempt per customer and day. The
 * row is claimed (insert, conflict = taken) before the card is charged, so two
 * instances running the clock at once never both collect.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table auto_collection_attempts (
      customer_id integer not null references customers(id) on delete cascade,
      attempt_date date not null,
      created_at timestamptz not null default now(),
      primary key (customer_id, attempt_date)
    );
    create index subscriptions_due on subscriptions (next_period_start) where status = 'Active';
  `.execute(db);
}
