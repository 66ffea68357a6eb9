import { sql, type Kysely } from 'kysely';

/**
 * Refunds of succeeded payments. A card refund is reserved (Pending) under the payment's row lock
 * before the gateway is called outside any transaction, so concurrent refunds never add up to more
 * than the payment; the gateway's answer makes it Succeeded or Failed. A succeeded refund is a
 * `refund` ledger entry that the payment's money is allocated to (ledger_allocations.invoice_entry_id
 * then names the refund's entry: what the payment paid back rather than what it paid for), after
 * un-allocating what it had paid on invoices (refund_unallocations, newest invoice first).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table refunds (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      payment_id integer not null references payments(id) on delete cascade,
      ledger_entry_id bigint references ledger_entries(id),
      method text not null,
      amount numeric not null check (amount > 0),
      currency text not null,
      reference text,
      status text not null check (status in ('Pending', 'Succeeded', 'Failed')),
      gateway_refund_id text,
      decline_code text,
      decline_message text,
      effective_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index refunds_payment on refunds (payment_id, id);
    create index refunds_customer on refunds (customer_id, id);

    -- What a refund took back from each invoice the payment had paid (the invoice is open again by that much).
    create table refund_unallocations (
      refund_id integer not null references refunds(id) on delete cascade,
      invoice_id integer not null references invoices(id) on delete cascade,
      amount numeric not null check (amount > 0),
      primary key (refund_id, invoice_id)
    );
  `.execute(db);
}
