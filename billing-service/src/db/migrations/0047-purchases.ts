import { sql, type Kysely } from 'kysely';

/**
 * Purchases (issue 40, an extension of the spec): one-time charges of a customer, written only by src/purchases.
 * Draft (a Draft customer's, waiting for its activation), Pending (an Active customer's, waiting for the next
 * renewal's invoice) or Invoiced (on `invoice_id`). Amounts in the customer's currency, exact (numeric).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table purchases (
      id serial primary key,
      account_id integer not null references accounts (id),
      customer_id integer not null references customers (id),
      status text not null check (status in ('Draft', 'Pending', 'Invoiced')),
      product_code text,
      name text not null,
      description text,
      quantity numeric not null check (quantity > 0),
      unit_price numeric not null check (unit_price >= 0),
      amount numeric not null check (amount >= 0),
      currency text not null,
      invoice_id integer references invoices (id),
      created_at timestamptz not null,
      invoiced_at timestamptz
    );
    create index purchases_customer on purchases (customer_id, status);
  `.execute(db);
}
