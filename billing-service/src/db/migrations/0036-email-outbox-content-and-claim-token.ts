import { sql, type Kysely } from 'kysely';

/**
 * The e-mail outbox keeps what an e-mail says, not the e-mail: `content` (jsonb) holds its language,
 * the customer's name, the event's fields, the links minted with it; the worker writes the text and
 * HTML when it sends (nothing is rendered inside the transaction that records a payment). Rows written
 * before keep their rendered `subject` and `body` and are sent as they are: a row has one or the other.
 *
 * `claim_token` fences a claim: set anew at every claim, so a holder that was paused while another
 * took its e-mail over finds its token gone and neither sends nor records anything.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table email_outbox
      add column content jsonb,
      add column claim_token uuid,
      alter column subject drop not null,
      alter column body drop not null,
      add constraint email_outbox_content_or_text check (content is not null or (subject is not null and body is not null))
  `.execute(db);
}
