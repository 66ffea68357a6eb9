import { sql, type Kysely } from 'kysely';

/** Payment activity (successful and failed collections) and idempotency keys. */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table payment_methods add column gateway_customer_id text;

    create table payments (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      ledger_entry_id bigint references ledger_entries(id),
      payment_method_type text not null,
      payment_method_id integer references payment_methods(id),
      source text not null,
      reference text,
      amount numeric not null,
      currency text not null,
      status text not null check (status in ('Succeeded', 'Failed')),
      gateway_transaction_id text,
      decline_code text,
      decline_message text,
      effective_at timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index payments_customer on payments (customer_id, id);

    -- A request's Idempotency-Key: the first request's result is kept and replayed.
    create table idempotency_keys (
      account_id integer not null references accounts(id),
      key text not null,
      endpoint text not null,
      request_hash text not null,
      response_status integer,
      response_body jsonb,
      created_at timestamptz not null default now(),
      primary key (account_id, key)
    );
  `.execute(db);
}
