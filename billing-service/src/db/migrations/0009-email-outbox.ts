import { sql, type Kysely } from 'kysely';

/**
 * E-mail notifications: written in the transaction of the event they announce
 * (an outbox), then sent by a worker over SMTP. A committed event always has its
 * e-mail; a rolled-back one never does.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table email_outbox (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      email_type text not null,
      to_address text not null,
      subject text not null,
      body text not null,
      status text not null default 'Pending' check (status in ('Pending', 'Sent', 'Failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text,
      created_at timestamptz not null default now(),
      sent_at timestamptz
    );
    create index email_outbox_due on email_outbox (next_attempt_at) where status = 'Pending';
    create index email_outbox_customer on email_outbox (customer_id, id);
    -- When the customer was told the invoice is overdue (once per invoice).
    alter table invoices add column overdue_notified_at timestamptz;
    -- When the customer was told the card expires this month (once per card).
    alter table payment_methods add column expiry_notified_at timestamptz;
  `.execute(db);
}
