import { sql, type Kysely } from 'kysely';

/**
 * Credit notes (issue 40, an extension): a correction of part or all of a posted invoice, written only by
 * src/credit-notes. `number` is the account's own sequence (accounts.next_credit_note_number, taken under the
 * account row's lock as invoice numbers are); amounts in the invoice's currency, exact (numeric). A line credits one
 * invoice line (`invoice_charge_id`): its net amount and its tax. `refunds`: with `refund: true`, the refunds of the
 * invoice's payments the credit's excess asked for, each done once (its refund id once it exists).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table accounts add column next_credit_note_number integer not null default 1;
    create table credit_notes (
      id serial primary key,
      account_id integer not null references accounts (id),
      customer_id integer not null references customers (id),
      invoice_id integer not null references invoices (id),
      number integer not null,
      currency text not null,
      reason text not null,
      refund boolean not null,
      subtotal numeric not null check (subtotal > 0),
      tax_total numeric not null check (tax_total >= 0),
      total numeric not null check (total > 0),
      applied_to_invoice numeric not null check (applied_to_invoice >= 0),
      ledger_entry_id integer not null references ledger_entries (id),
      created_at timestamptz not null,
      unique (account_id, number)
    );
    create index credit_notes_customer on credit_notes (customer_id, id);
    create index credit_notes_invoice on credit_notes (invoice_id);
    create table credit_note_lines (
      credit_note_id integer not null references credit_notes (id),
      position integer not null,
      invoice_charge_id integer not null references invoice_charges (id),
      description text not null,
      quantity numeric,
      amount numeric not null check (amount > 0),
      tax_amount numeric not null check (tax_amount >= 0),
      primary key (credit_note_id, position)
    );
    create index credit_note_lines_charge on credit_note_lines (invoice_charge_id);
    create table credit_note_refunds (
      credit_note_id integer not null references credit_notes (id),
      payment_id integer not null references payments (id),
      amount numeric not null check (amount > 0),
      refund_id integer references refunds (id),
      primary key (credit_note_id, payment_id)
    );
  `.execute(db);
}
