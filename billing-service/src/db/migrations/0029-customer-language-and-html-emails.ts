import { sql, type Kysely } from 'kysely';

/**
 * The customer's language (en, fr, de, es: what its e-mails are written in; null: the catalogue's
 * `emails.defaultLanguage`), and the HTML alternative of each e-mail in the outbox (null: a
 * plain-text e-mail, such as those written before, or a notice to the account itself).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table customers add column language text`.execute(db);
  await sql`alter table email_outbox add column html_body text`.execute(db);
}
