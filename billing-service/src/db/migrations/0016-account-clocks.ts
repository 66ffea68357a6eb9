import { sql, type Kysely } from 'kysely';

/**
 * Test clocks (RENEW_TEST_CLOCKS=true): an account whose clock was advanced stands
 * still at `frozen_at` until the next advance. `first_advanced_at` (real time) is
 * when the account left real time; `advancing_since` claims an advance under way,
 * so two advances of one account (from any instance) never run at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table account_clocks (
      account_id integer primary key references accounts(id) on delete cascade,
      frozen_at timestamptz not null,
      first_advanced_at timestamptz not null,
      advancing_since timestamptz
    )`.execute(db);
}
