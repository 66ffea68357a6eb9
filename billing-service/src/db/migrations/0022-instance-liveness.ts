import { sql, type Kysely } from 'kysely';

/**
 * Instance liveness: every running process (API, capture host, worker) keeps a row
 * here with a heartbeat on the database's clock. A claim (an idempotency key in
 * flight, an e-mail or webhook being sent, a bulk record being paid, a test-clock
 * advance) names the instance that holds it; when that instance's heartbeat stops
 * (killed, host lost), another takes the claim over within seconds instead of
 * waiting out a long fixed lease.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table service_instances (
      id text primary key,
      role text not null,
      host text not null,
      pid integer not null,
      started_at timestamptz not null default now(),
      heartbeat_at timestamptz not null default now()
    )`.execute(db);
  await sql`alter table idempotency_keys add column claimed_by text`.execute(db);
  await sql`alter table email_outbox add column claimed_by text`.execute(db);
  await sql`alter table webhook_deliveries add column claimed_by text`.execute(db);
  await sql`alter table bulk_job_records add column claimed_by text`.execute(db);
  await sql`alter table account_clocks add column advancing_by text`.execute(db);
  // A payment remembers the key it was made under: a request run again after its instance died
  // (the key taken over) finds the payment the first run committed instead of recording a second.
  await sql`alter table payments add column idempotency_key text`.execute(db);
  // Not unique: a key is remembered for 24 hours, after which the same key makes a new payment.
  await sql`create index payments_idempotency_key on payments (account_id, idempotency_key) where idempotency_key is not null`.execute(db);
}
