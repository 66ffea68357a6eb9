import { sql, type Kysely } from 'kysely';

/**
 * Bulk payment jobs: a job and one row per submitted payment item. The rows are
 * the work queue: instances claim Pending rows with FOR UPDATE SKIP LOCKED.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table bulk_jobs (
      id integer generated always as identity primary key,
      account_id integer not null references accounts(id),
      type text not null default 'BulkPayment',
      status text not null check (status in ('Validated', 'Processing', 'Completed', 'Cancelled')),
      file_name text,
      reference text,
      audit_source text not null,
      total_records integer not null,
      successful_records integer not null,
      failed_records integer not null,
      created_at timestamptz not null default now(),
      importing_at timestamptz,
      processed_at timestamptz,
      completed_at timestamptz,
      modified_at timestamptz not null default now()
    );
    create index bulk_jobs_processing on bulk_jobs (id) where status = 'Processing';

    create table bulk_job_records (
      id integer generated always as identity primary key,
      job_id integer not null references bulk_jobs(id) on delete cascade,
      position integer not null,
      item jsonb not null,
      status text not null check (status in ('Invalid', 'Pending', 'Processing', 'Succeeded', 'Failed', 'Cancelled')),
      errors jsonb,
      payment_id integer references payments(id),
      claimed_at timestamptz,
      processed_at timestamptz,
      unique (job_id, position)
    );
    create index bulk_job_records_open on bulk_job_records (job_id, id) where status in ('Pending', 'Processing');
  `.execute(db);
}
