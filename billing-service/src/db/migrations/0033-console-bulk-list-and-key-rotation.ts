import { sql, type Kysely } from 'kysely';

/**
 * The console's bulk-job list (one account's jobs, newest first: an index walk) and when each of an account's two
 * API keys was last rolled (null: never since the account was created).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create index bulk_jobs_account on bulk_jobs (account_id, id desc);
    create index bulk_jobs_account_status on bulk_jobs (account_id, status, id desc);
    alter table accounts add column private_key_rotated_at timestamptz, add column public_key_rotated_at timestamptz;
  `.execute(db);
}
