import { sql, type Kysely } from 'kysely';

/**
 * A capture whose first payment asks for its own challenge after the card's (a processor whose bank wants every
 * payment authenticated, as Stripe's 4000 0027 6000 3184 does): the payment's challenge, completed next, authorises it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table card_authentications add column payment_action_id text`.execute(db);
}
