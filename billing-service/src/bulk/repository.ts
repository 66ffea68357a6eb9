import type { ErrorItem } from '../refusals/error-codes.js';
import { sql, type Selectable } from 'kysely';
import type { Db, Queryable } from '../db/database.js';
import type { InstanceLiveness } from '../db/instance-liveness.js';
import { newClaimToken } from '../db/claims.js';
import type { BulkJobRecordsTable, BulkJobsTable, BulkJobStatus, BulkRecordStatus } from '../db/schema.js';

export type BulkJobRow = Selectable<BulkJobsTable>;
export type BulkRecordRow = Selectable<BulkJobRecordsTable>;
export type RecordCounts = Record<BulkRecordStatus, number>;

export async function insertJob(
  trx: Queryable,
  job: {
    accountId: number;
    status: BulkJobStatus;
    fileName: string | null;
    reference: string | null;
    auditSource: string;
    totalRecords: number;
    successfulRecords: number;
    failedRecords: number;
    importingAt: Date;
  },
): Promise<number> {
  const row = await trx.insertInto('bulkJobs').values(job).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function insertRecords(
  trx: Queryable,
  jobId: number,
  records: Array<{ position: number; item: unknown; status: 'Pending' | 'Invalid'; errors: ErrorItem[] | null }>,
): Promise<void> {
  // Chunks keep each statement under PostgreSQL's 65,535 parameters.
  for (let i = 0; i < records.length; i += 5_000) {
    const chunk = records.slice(i, i + 5_000).map((r) => ({
      jobId,
      position: r.position,
      item: JSON.stringify(r.item),
      status: r.status,
      errors: r.errors ? JSON.stringify(r.errors) : null,
    }));
    await trx.insertInto('bulkJobRecords').values(chunk).execute();
  }
}

export function findJob(db: Queryable, accountId: number, jobId: number, options: { forUpdate?: boolean } = {}) {
  let query = db.selectFrom('bulkJobs').selectAll().where('accountId', '=', accountId).where('id', '=', jobId);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function countRecords(db: Queryable, jobId: number): Promise<RecordCounts> {
  const rows = await db
    .selectFrom('bulkJobRecords')
    .select(['status', sql<string>`count(*)`.as('count')])
    .where('jobId', '=', jobId)
    .groupBy('status')
    .execute();
  const counts: RecordCounts = { Invalid: 0, Pending: 0, Processing: 0, Succeeded: 0, Failed: 0, Cancelled: 0 };
  for (const row of rows) counts[row.status] = Number(row.count);
  return counts;
}

export function findRecords(db: Queryable, jobId: number) {
  return db.selectFrom('bulkJobRecords').selectAll().where('jobId', '=', jobId).orderBy('position').execute();
}

export async function setJobStatus(
  trx: Queryable,
  jobId: number,
  status: BulkJobStatus,
  now: Date,
  extra: { processedAt?: Date; completedAt?: Date } = {},
) {
  await trx
    .updateTable('bulkJobs')
    .set({ status, modifiedAt: now, ...extra })
    .where('id', '=', jobId)
    .execute();
}

export async function cancelPendingRecords(trx: Queryable, jobId: number, now: Date): Promise<number> {
  const result = await trx
    .updateTable('bulkJobRecords')
    .set({ status: 'Cancelled', processedAt: now })
    .where('jobId', '=', jobId)
    .where('status', '=', 'Pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Claims up to `limit` records of Processing jobs, for this instance alone (SKIP
 * LOCKED: other instances take other records). A record whose instance died (its
 * heartbeat stopped), or claimed longer ago than `staleAfterMs` (a run that failed
 * unexpectedly), is claimed again; its charge reuses the record's idempotency key,
 * so the gateway recognises it and it is never charged twice.
 */
export async function claimRecords(
  db: Db,
  instance: InstanceLiveness,
  now: Date,
  staleAfterMs: number,
  limit: number,
): Promise<ClaimedRecord[]> {
  return db.transaction().execute(async (trx) => {
    const next = await trx
      .selectFrom('bulkJobRecords as r')
      .innerJoin('bulkJobs as j', 'j.id', 'r.jobId')
      .select(['r.id', 'j.accountId', 'j.auditSource'])
      .where('j.status', '=', 'Processing')
      .where((eb) =>
        eb.or([
          eb('r.status', '=', 'Pending'),
          eb.and([
            eb('r.status', '=', 'Processing'),
            eb.or([eb('r.claimedAt', '<', new Date(now.getTime() - staleAfterMs)), instance.holderGone('r.claimed_by')]),
          ]),
        ]),
      )
      .orderBy('r.id')
      .limit(limit)
      .forUpdate('r')
      .skipLocked()
      .execute();
    if (next.length === 0) return [];
    const claimed = await trx
      .updateTable('bulkJobRecords')
      .set({ status: 'Processing', claimedAt: now, claimedBy: instance.id, claimToken: newClaimToken() })
      .where(
        'id',
        'in',
        next.map((r) => r.id),
      )
      .returningAll()
      .execute();
    const jobOf = new Map(next.map((r) => [r.id, r]));
    return claimed
      .sort((a, b) => a.id - b.id)
      .flatMap((r) => {
        // every claimed row is one of `next` (the update's WHERE lists their ids)
        const job = jobOf.get(r.id);
        return job ? [{ ...r, accountId: job.accountId, auditSource: job.auditSource }] : [];
      });
  });
}

export type ClaimedRecord = BulkRecordRow & { accountId: number; auditSource: string };

export async function findRecordPaymentId(db: Queryable, recordId: number): Promise<number | null> {
  const row = await db.selectFrom('bulkJobRecords').select('paymentId').where('id', '=', recordId).executeTakeFirst();
  return row?.paymentId ?? null;
}

/**
 * Writes a record's outcome, only while `claimToken` is still the record's (fencing: a record taken
 * over meanwhile is the taker's to finish). Returns whether it was written.
 */
export async function finishRecord(
  trx: Queryable,
  record: { id: number; claimToken: string | null },
  outcome: { status: 'Succeeded' | 'Failed'; paymentId: number | null; errors: ErrorItem[] | null },
  now: Date,
): Promise<boolean> {
  const result = await trx
    .updateTable('bulkJobRecords')
    .set({
      status: outcome.status,
      paymentId: outcome.paymentId,
      errors: outcome.errors ? JSON.stringify(outcome.errors) : null,
      processedAt: now,
    })
    .where('id', '=', record.id)
    .where('status', '=', 'Processing')
    .where('claimToken', '=', record.claimToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The claimed records this instance still holds (Processing, under the claim token it was given), locked
 * for the transaction that pays them when `forUpdate`; a record another instance claimed again meanwhile,
 * or one already finished, is left out (fencing).
 */
export async function findHeldRecords(
  db: Queryable,
  records: Array<{ id: number; claimToken: string | null }>,
  options: { forUpdate?: boolean } = {},
): Promise<Set<number>> {
  if (records.length === 0) return new Set();
  let query = db
    .selectFrom('bulkJobRecords')
    .select(['id', 'claimToken'])
    .where(
      'id',
      'in',
      records.map((r) => r.id),
    )
    .where('status', '=', 'Processing')
    .orderBy('id');
  if (options.forUpdate) query = query.forUpdate();
  const rows = await query.execute();
  const claims = new Map(records.map((r) => [r.id, r.claimToken]));
  return new Set(rows.filter((r) => r.claimToken !== null && r.claimToken === claims.get(r.id)).map((r) => r.id));
}

/** Several records' outcomes in one statement (finishRecord for a batch). */
export async function finishRecords(
  trx: Queryable,
  outcomes: Array<{
    recordId: number;
    status: 'Succeeded' | 'Failed';
    paymentId: number | null;
    errors: ErrorItem[] | null;
  }>,
  now: Date,
) {
  if (outcomes.length === 0) return;
  const rows = outcomes.map((o) => ({ id: o.recordId, status: o.status, payment_id: o.paymentId, errors: o.errors }));
  await sql`
    update bulk_job_records set status = o.status, payment_id = o.payment_id, errors = o.errors, processed_at = ${now}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as o(id integer, status text, payment_id integer, errors jsonb)
    where bulk_job_records.id = o.id`.execute(trx);
}

/** Processing jobs with no record left to process become Completed. */
export async function completeFinishedJobs(db: Queryable, now: Date): Promise<Array<{ id: number; accountId: number }>> {
  const rows = await db
    .updateTable('bulkJobs')
    .set({ status: 'Completed', completedAt: now, modifiedAt: now })
    .where('status', '=', 'Processing')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('bulkJobRecords')
            .select('id')
            .whereRef('bulkJobRecords.jobId', '=', 'bulkJobs.id')
            .where('bulkJobRecords.status', 'in', ['Pending', 'Processing']),
        ),
      ),
    )
    .returning(['id', 'accountId'])
    .execute();
  return rows;
}

const RECORD_STATUSES: BulkRecordStatus[] = ['Invalid', 'Pending', 'Processing', 'Succeeded', 'Failed', 'Cancelled'];

export interface JobListRow {
  id: number;
  status: BulkJobStatus;
  reference: string | null;
  fileName: string | null;
  createdAt: Date;
  completedAt: Date | null;
  counts: RecordCounts;
}

/**
 * One account's jobs, newest first (index bulk_jobs_account*), each with its records counted by status as
 * countRecords counts them, for the whole page in one statement; the total is counted up to `countCap`.
 */
export async function listJobsWithCounts(
  db: Queryable,
  accountId: number,
  options: { status?: BulkJobStatus; limit: number; offset: number; countCap: number },
): Promise<{ rows: JobListRow[]; total: number }> {
  const filters = options.status ? sql`account_id = ${accountId} and status = ${options.status}` : sql`account_id = ${accountId}`;
  const countColumns = sql.join(
    RECORD_STATUSES.map((status) => sql`count(*) filter (where r.status = ${status}) as ${sql.raw(`n_${status.toLowerCase()}`)}`),
  );
  const rows = await sql<Record<string, unknown> & Omit<JobListRow, 'counts'>>`
    select j.id, j.status, j.reference, j.file_name, j.created_at, j.completed_at, c.*
    from (select * from bulk_jobs where ${filters} order by id desc limit ${options.limit} offset ${options.offset}) j
    cross join lateral (select ${countColumns} from bulk_job_records r where r.job_id = j.id) c
    order by j.id desc
  `.execute(db);
  const total = await sql<{ n: string | number }>`
    select count(*) as n from (select 1 from bulk_jobs where ${filters} limit ${options.countCap}) capped
  `.execute(db);
  return {
    rows: rows.rows.map((row) => ({
      id: Number(row.id),
      status: row.status,
      reference: row.reference,
      fileName: row.fileName,
      createdAt: row.createdAt,
      completedAt: row.completedAt,
      counts: Object.fromEntries(RECORD_STATUSES.map((status) => [status, Number(row[`n${status}`] ?? 0)])) as RecordCounts,
    })),
    total: Number(total.rows[0]?.n ?? 0),
  };
}
