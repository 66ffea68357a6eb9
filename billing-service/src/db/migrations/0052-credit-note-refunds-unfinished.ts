import { sql, type Kysely } from 'kysely';

/**
 * A credit note's planned refunds that its request did not finish (the process died, or the gateway did not answer,
 * after the note committed) are finished by a background task (credit-notes/refund-worker.ts): `planned_at`, on the
 * database's own clock (never an account's test clock), tells it which plans are old enough to be abandoned by
 * their request; `refused` keeps why a plan can no longer be refunded (its amount stays the customer's credit), so
 * it is not tried again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table credit_note_refunds add column planned_at timestamptz not null default now();
    alter table credit_note_refunds add column refused text;
    create index credit_note_refunds_unfinished on credit_note_refunds (planned_at) where refund_id is null and refused is null;
  `.execute(db);
}
