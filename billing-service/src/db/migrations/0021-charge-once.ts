import { sql, type Kysely } from 'kysely';

/**
 * Money moves once across instances and crashes.
 * - sandbox_gateway_operations: the sandbox gateway's idempotency records, as a processor keeps them
 *   across its own servers: one charge or refund per key, whichever instance of Renew calls.
 * - refunds.gateway_idempotency_key: set when a card refund is reserved, before the gateway is called,
 *   so a retry, or the worker settling a refund left Pending, asks the gateway under the same key.
 * - payments_needing_attention: money the gateway moved that Renew could not record nor pay back
 *   (a failed compensation); an operator settles it by hand.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table sandbox_gateway_operations (
      kind text not null check (kind in ('charge', 'refund')),
      idempotency_key text not null,
      status text not null check (status in ('succeeded', 'refused')),
      result_id text,
      code text,
      message text,
      transaction_id text,
      amount numeric not null,
      currency text not null,
      created_at timestamptz not null default now(),
      primary key (kind, idempotency_key)
    );

    alter table refunds add column gateway_idempotency_key text;
    create unique index refunds_gateway_idempotency_key on refunds (gateway_idempotency_key);
    create index refunds_pending on refunds (created_at) where status = 'Pending';

    create table payments_needing_attention (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer,
      reason text not null,
      gateway_transaction_id text not null,
      amount numeric not null,
      currency text not null,
      gateway_code text,
      gateway_message text,
      created_at timestamptz not null default now(),
      resolved_at timestamptz
    );
    create index payments_needing_attention_open on payments_needing_attention (account_id, id) where resolved_at is null;
  `.execute(db);
}
