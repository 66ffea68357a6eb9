import { sql, type Kysely } from 'kysely';

/**
 * E-mails to the account itself (not to one of its customers): "your webhook endpoint was disabled".
 * Such an outbox row has no customer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table email_outbox alter column customer_id drop not null`.execute(db);
}
