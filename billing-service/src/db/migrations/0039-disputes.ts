import { sql, type Kysely } from 'kysely';

/**
 * Disputes (chargebacks, issue 37).
 * - sandbox_disputes: the sandbox gateway's disputes, as a processor keeps them: one per charge of a 0259
 *   card, its opening event due `opened_at`, its closing one `closed_at` once decided; each event is
 *   fetched until acknowledged (`*_acknowledged_at`).
 * - disputes: a dispute as Renew records it; the money it took back is a `dispute` ledger entry the
 *   payment's money is allocated to (as a refund's is), and a dispute won adds a `dispute_reversal`
 *   entry that pays that entry back, so the payment's money is free to pay its invoices again.
 * - dispute_unallocations: what the dispute took back from each invoice the payment had paid.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table sandbox_disputes (
      id text primary key,
      transaction_id text not null unique,
      amount numeric not null check (amount > 0),
      currency text not null,
      reason text not null,
      fee numeric not null,
      evidence_due_at timestamptz not null,
      status text not null default 'NeedsResponse' check (status in ('NeedsResponse', 'UnderReview', 'Won', 'Lost')),
      evidence_key text,
      opened_at timestamptz not null,
      opened_acknowledged_at timestamptz,
      closed_at timestamptz,
      closed_acknowledged_at timestamptz,
      created_at timestamptz not null default now()
    );
    create index sandbox_disputes_due on sandbox_disputes (opened_at) where closed_acknowledged_at is null;

    alter table ledger_entries drop constraint if exists ledger_entries_entry_type_check;
    alter table ledger_entries add constraint ledger_entries_entry_type_check
      check (entry_type in ('invoice', 'payment', 'credit', 'refund', 'opening_balance', 'dispute', 'dispute_reversal'));

    create index payments_gateway_transaction on payments (gateway_transaction_id) where gateway_transaction_id is not null;

    create table disputes (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      payment_id integer not null references payments(id) on delete cascade,
      gateway_dispute_id text not null unique,
      amount numeric not null check (amount > 0),
      currency text not null,
      reason text not null,
      status text not null check (status in ('NeedsResponse', 'UnderReview', 'Won', 'Lost')),
      evidence_due_at timestamptz,
      fee numeric,
      ledger_entry_id bigint references ledger_entries(id),
      reversal_entry_id bigint references ledger_entries(id),
      evidence_submitted_at timestamptz,
      created_at timestamptz not null,
      closed_at timestamptz
    );
    create index disputes_account on disputes (account_id, id);
    create index disputes_payment on disputes (payment_id);
    create index disputes_customer on disputes (customer_id, id);

    create table dispute_unallocations (
      dispute_id integer not null references disputes(id) on delete cascade,
      invoice_id integer not null references invoices(id) on delete cascade,
      amount numeric not null check (amount > 0),
      primary key (dispute_id, invoice_id)
    );
  `.execute(db);
}
