import { sql, type Kysely } from 'kysely';

/**
 * Allocation reservations: a card payment that names invoices (paymentAllocations) holds those
 * amounts here, checked under the customer's lock and committed before the card is charged, so
 * concurrent payments (on any instance) cannot all pass the check and be charged. A reservation is
 * let go when the charge's outcome is recorded (or the gateway fails); one left behind stops
 * counting when its holder's heartbeat stops (held_by, an instance id) or at held_until.
 * charge_key is the gateway idempotency key of the charge it waits for: a retry under that key
 * replaces it rather than being refused by it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table allocation_reservations (
      id bigint generated always as identity primary key,
      account_id integer not null references accounts(id),
      customer_id integer not null references customers(id) on delete cascade,
      charge_key text not null,
      invoice_entry_id bigint not null references ledger_entries(id) on delete cascade,
      amount numeric not null check (amount > 0),
      held_by text not null,
      held_until timestamptz not null,
      created_at timestamptz not null default now()
    );
    create index allocation_reservations_invoice_entry on allocation_reservations (invoice_entry_id);
    create index allocation_reservations_charge_key on allocation_reservations (charge_key);
    create index allocation_reservations_customer on allocation_reservations (customer_id);
  `.execute(db);
}
