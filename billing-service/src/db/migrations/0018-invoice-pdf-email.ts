import { sql, type Kysely } from 'kysely';

/**
 * The InvoicePost e-mail carries the invoice as a PDF. The outbox keeps which invoice, not the PDF:
 * it is made when the e-mail is sent, so it shows what was paid by then (activation applies a
 * deposit in the transaction that posts the invoice, after the e-mail is written).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table email_outbox add column attached_invoice_id integer references invoices(id) on delete set null`.execute(db);
}
