import { sql, type Kysely } from 'kysely';

/**
 * Webhooks: the merchant's endpoints, the events (an outbox written in the transaction of the change
 * that caused them), one delivery per event and subscribed endpoint, and every attempt made.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table webhook_endpoints (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      url text not null,
      event_types jsonb not null,
      description text,
      status text not null default 'Enabled' check (status in ('Enabled', 'Disabled')),
      secret text not null,
      failing_since timestamptz,
      created_at timestamptz not null default now(),
      modified_at timestamptz not null default now(),
      deleted_at timestamptz
    );
    create index webhook_endpoints_account on webhook_endpoints (account_id) where deleted_at is null;
    create table webhook_events (
      id bigint generated always as identity primary key,
      public_id text not null unique,
      account_id integer not null references accounts(id),
      customer_id integer,
      event_type text not null,
      payload jsonb not null,
      created_at timestamptz not null default now()
    );
    create table webhook_deliveries (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      event_id bigint not null references webhook_events(id) on delete cascade,
      endpoint_id integer not null references webhook_endpoints(id),
      customer_id integer,
      status text not null default 'Pending' check (status in ('Pending', 'Succeeded', 'Failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      claimed_until timestamptz,
      last_status_code integer,
      last_error text,
      created_at timestamptz not null default now(),
      delivered_at timestamptz
    );
    create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'Pending';
    create index webhook_deliveries_order on webhook_deliveries (endpoint_id, customer_id, id) where status = 'Pending';
    create table webhook_delivery_attempts (
      id bigint generated always as identity primary key,
      delivery_id bigint not null references webhook_deliveries(id) on delete cascade,
      attempted_at timestamptz not null default now(),
      http_status integer,
      error text,
      duration_ms integer not null
    );
    create index webhook_delivery_attempts_delivery on webhook_delivery_attempts (delivery_id);
  `.execute(db);
}
