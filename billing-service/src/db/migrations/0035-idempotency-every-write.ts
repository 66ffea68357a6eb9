import { sql, type Kysely } from 'kysely';

/**
 * Idempotency keys on every write (issue 35): the answer kept as sent (text, replayed byte for
 * byte; jsonb would reorder its keys), a fencing token per claim, and the commit mark a keyed
 * request's transaction sets (db/keyed-commit.ts) with the id of what it created.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table idempotency_keys
      alter column response_body type text using response_body::text,
      add column claim_token uuid,
      add column committed_at timestamptz,
      add column committed_ref jsonb;
  `.execute(db);
}
