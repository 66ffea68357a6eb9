import { sql, type Kysely } from 'kysely';

/**
 * Fenced claims. A claim (a bulk record being paid, a webhook delivery being sent, a test-clock
 * advance) gets a new token each time it is taken, over from a live-looking but paused holder too;
 * the write that completes the work checks the token in its own transaction and does nothing
 * when the claim was lost. Behind that, a payment made under an idempotency key is unique per
 * account, key and the key's life (a client's key lives 24 hours, the service's own keys, a
 * bulk record's or the billing clock's, for ever), so a second record of one charge is impossible
 * even where a check is missed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table bulk_job_records add column claim_token uuid;
    alter table webhook_deliveries add column claim_token uuid;
    alter table account_clocks add column advancing_token uuid;
    alter table payments add column idempotency_key_at timestamptz;
  `.execute(db);
  // Existing payments: a client's key still remembered gets its life; any other keeps its own time, so
  // keys of lives long gone never collide.
  await sql`
    update payments p set idempotency_key_at = coalesce(
      (select k.created_at from idempotency_keys k
       where k.account_id = p.account_id and k.key = p.idempotency_key and p.created_at >= k.created_at),
      p.created_at)
    where p.idempotency_key is not null
  `.execute(db);
  // Payments recorded twice before this guard existed (a paused worker's late record) keep their rows,
  // the later ones with their key marked, so the index can be built; an operator reconciles them.
  await sql`
    update payments p set idempotency_key = p.idempotency_key || ' (duplicate ' || p.id || ')'
    where p.idempotency_key is not null and exists (
      select 1 from payments q
      where q.account_id = p.account_id and q.idempotency_key = p.idempotency_key
        and q.idempotency_key_at = p.idempotency_key_at and q.id < p.id)
  `.execute(db);
  await sql`drop index payments_idempotency_key`.execute(db);
  await sql`
    create unique index payments_idempotency_once on payments
      (account_id, idempotency_key, coalesce(idempotency_key_at, '-infinity'::timestamptz))
      where idempotency_key is not null
  `.execute(db);
}
