import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import type { FastifyBaseLogger } from 'fastify';
import { recordChange } from '../audit/audit-log.js';
import type { Queryable } from '../db/database.js';
import { isLostClaim, LostClaim } from '../db/claims.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { fieldKey, type ErrorBody } from '../http/errors.js';
import { validationError } from '../http/validation.js';
import { toJsonAmount } from '../money/money.js';
import { checkPaymentRequest } from '../payments/check-request.js';
import { paysInBatch, recordPaymentBatch } from '../payments/record-batch.js';
import { recordPayment } from '../payments/record-payment.js';
import type { CollectPaymentInput } from '../payments/schemas.js';
import { emitWebhookEvent } from '../outbox/webhook-events.js';
import {
  cancelPendingRecords,
  completeFinishedJobs,
  countRecords,
  findJob,
  findRecordPaymentId,
  findHeldRecords,
  findRecords,
  finishRecord,
  finishRecords,
  insertJob,
  insertRecords,
  setJobStatus,
  type BulkJobRow,
  type BulkRecordRow,
  type ClaimedRecord,
} from './repository.js';
import { BulkPaymentItem, type BulkJobResponse, type SubmitBulkPaymentsInput } from './schemas.js';
import { transactionWithRetry } from '../db/conflict-retry.js';

type Errors = ErrorBody['Errors'];

function requireBulkEnabled(ctx: AppContext) {
  if (!ctx.catalog.bulk.enabled)
    throw new Refusal('forbidden', [
      { Key: 'Api Error', Value: 'bulk jobs are not activated for this account; ask the provider to activate them', Code: 'forbidden' },
    ]);
}

/** An item's problems, keyed as in the submitted body (`data[3].amount`). */
async function checkItem(
  ctx: AppContext,
  caller: Caller,
  item: unknown,
  index: number,
): Promise<{ input?: CollectPaymentInput; errors: Errors }> {
  const prefix = `data[${index}]`;
  const parsed = BulkPaymentItem.safeParse(item);
  if (!parsed.success)
    return {
      // the issues as the API answers them (value_required or value_invalid), each keyed under the item
      errors: validationError(parsed.error.issues, item).errors.map((e, i) => ({
        ...e,
        Key: fieldKey([prefix, ...(parsed.error.issues[i]?.path ?? [])]),
      })),
    };
  try {
    await checkPaymentRequest(ctx, caller, parsed.data);
    return { input: parsed.data, errors: [] };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { errors: error.errors.map((e) => ({ ...e, Key: e.Key === 'Api Error' ? prefix : `${prefix}.${e.Key}` })) };
  }
}

/**
 * POST /v1/bulkPaymentSubmit: every item is checked as POST /v1/payments would
 * check it (customer, amount, card, allocations); the job keeps the valid ones
 * (Pending) and the refused ones with their errors (Invalid). Nothing is charged
 * until the job is processed. One transaction: the job and all its records, or nothing.
 */
export async function submitBulkPayments(
  ctx: AppContext,
  caller: Caller,
  input: SubmitBulkPaymentsInput,
  now?: Date,
): Promise<BulkJobResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  requireBulkEnabled(ctx);
  const max = ctx.catalog.bulk.maxRecords;
  if (input.data.length > max) throw Refusal.invalid(`at most ${max} payment items in one job`, 'data', 'value_invalid');
  const checked: Array<Awaited<ReturnType<typeof checkItem>>> = [];
  for (const [index, item] of input.data.entries()) checked.push(await checkItem(ctx, caller, item, index));
  const valid = checked.filter((c) => c.errors.length === 0).length;
  const jobId = await ctx.db.transaction().execute(async (trx) => {
    const id = await insertJob(trx, {
      accountId: caller.accountId,
      status: 'Validated',
      fileName: input.fileName ?? null,
      reference: input.reference ?? null,
      auditSource: caller.auditSource,
      totalRecords: checked.length,
      successfulRecords: valid,
      failedRecords: checked.length - valid,
      importingAt: now,
    });
    await insertRecords(
      trx,
      id,
      checked.map((c, position) => ({
        position,
        item: c.input ?? input.data[position],
        status: c.errors.length === 0 ? 'Pending' : 'Invalid',
        errors: c.errors.length ? c.errors : null,
      })),
    );
    await recordChange(trx, caller, {
      entityType: 'BulkJob',
      entityId: id,
      action: 'create',
      changes: { status: 'Validated', totalRecords: checked.length, failedRecords: checked.length - valid },
    });
    return id;
  });
  return getBulkJob(ctx, caller, jobId, false);
}

/** Changes a job of the caller's account under its row lock (Process and Cancel racing each other serialize), then reads it back. */
async function changeJob(
  ctx: AppContext,
  caller: Caller,
  jobId: number,
  change: (trx: Queryable, job: BulkJobRow) => Promise<void>,
): Promise<BulkJobResponse> {
  requireBulkEnabled(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const job = await findJob(trx, caller.accountId, jobId, { forUpdate: true });
    if (!job) throw Refusal.notFound('bulk job', jobId);
    await change(trx, job);
  });
  return getBulkJob(ctx, caller, jobId, false);
}

/** POST /v1/BulkApi/Process: a Validated job starts processing (in the background; follow it with GET). */
export async function processBulkJob(ctx: AppContext, caller: Caller, jobId: number, now?: Date): Promise<BulkJobResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  const response = await changeJob(ctx, caller, jobId, async (trx, job) => {
    if (job.status !== 'Validated')
      throw Refusal.invalid(`the job is ${job.status}; only a Validated job can be processed`, 'id', 'state_conflict');
    await setJobStatus(trx, jobId, 'Processing', now, { processedAt: now });
    await recordChange(trx, caller, {
      entityType: 'BulkJob',
      entityId: jobId,
      action: 'update',
      changes: { status: ['Validated', 'Processing'] },
    });
  });
  ctx.bulkWorker?.wake();
  return response;
}

/** POST /v1/BulkApi/Cancel/{id}: payments not yet processed are cancelled; processed ones stay. */
export async function cancelBulkJob(ctx: AppContext, caller: Caller, jobId: number, now?: Date): Promise<BulkJobResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  return changeJob(ctx, caller, jobId, async (trx, job) => {
    if (job.status === 'Completed' || job.status === 'Cancelled')
      throw Refusal.invalid(`the job is ${job.status}; there is nothing left to cancel`, API_ERROR_KEY, 'state_conflict');
    const cancelled = await cancelPendingRecords(trx, jobId, now);
    await setJobStatus(trx, jobId, 'Cancelled', now, { completedAt: now });
    await recordChange(trx, caller, {
      entityType: 'BulkJob',
      entityId: jobId,
      action: 'update',
      changes: { status: [job.status, 'Cancelled'], cancelledRecords: cancelled },
    });
  });
}

/** Processing jobs with nothing left to process become Completed; each announces it (bulkJob.completed). */
export async function completeFinishedBulkJobs(ctx: AppContext, now: Date): Promise<number[]> {
  return ctx.db.transaction().execute(async (trx) => {
    const completed = await completeFinishedJobs(trx, now);
    for (const { id, accountId } of completed) {
      await emitWebhookEvent(trx, {
        accountId,
        customerId: null,
        type: 'bulkJob.completed',
        now,
        data: async () => {
          const job = await findJob(trx, accountId, id);
          return job ? toBulkJobResponse(ctx, job, await countRecords(trx, id)) : null;
        },
      });
    }
    return completed.map((j) => j.id);
  });
}

export async function getBulkJob(ctx: AppContext, caller: Caller, jobId: number, full: boolean): Promise<BulkJobResponse> {
  const job = await findJob(ctx.db, caller.accountId, jobId);
  if (!job) throw Refusal.notFound('bulk job', jobId);
  const counts = await countRecords(ctx.db, jobId);
  const records = full ? await findRecords(ctx.db, jobId) : undefined;
  return toBulkJobResponse(ctx, job, counts, records);
}

function toBulkJobResponse(
  ctx: AppContext,
  job: BulkJobRow,
  counts: Awaited<ReturnType<typeof countRecords>>,
  records?: BulkRecordRow[],
): BulkJobResponse {
  const iso = (d: Date | string | null) => (d ? new Date(d).toISOString() : null);
  return {
    accountId: job.accountId,
    type: job.type,
    status: job.status,
    createdTimestamp: job.createdAt.toISOString(),
    completedTimestamp: iso(job.completedAt),
    totalRecords: job.totalRecords,
    successfulRecords: job.successfulRecords,
    failedRecords: job.failedRecords,
    totalProcessedRecords: counts.Succeeded + counts.Failed,
    processedRecords: counts.Succeeded,
    failedProcessedRecords: counts.Failed,
    importingTimestamp: iso(job.importingAt),
    processedTimestamp: iso(job.processedAt),
    fileName: job.fileName,
    reference: job.reference,
    relatedId: null,
    internalAutomatedFlag: false,
    modifiedTimestamp: job.modifiedAt.toISOString(),
    ...(records
      ? {
          records: records.map((r) => {
            const item = (r.item ?? {}) as { customerId?: unknown; amount?: unknown; reference?: unknown };
            return {
              index: r.position,
              status: r.status,
              customerId: typeof item.customerId === 'number' ? item.customerId : null,
              amount: typeof item.amount === 'string' || typeof item.amount === 'number' ? toJsonAmount(String(item.amount)) : null,
              reference: typeof item.reference === 'string' ? item.reference : null,
              errors: r.errors ?? [],
              paymentId: r.paymentId,
              paymentUri: r.paymentId ? ctx.uris.resource('payments', r.paymentId) : null,
              processedTimestamp: iso(r.processedAt),
            };
          }),
        }
      : {}),
    id: job.id,
    uri: ctx.uris.resource('BulkApi', job.id),
  };
}

/**
 * Collects one claimed record's payment. The record's outcome is written in the
 * transaction that records the payment, so a crash leaves both or neither; the
 * charge's idempotency key is the record's, so a record claimed again after a
 * crash is never charged twice. The outcome is written only under the record's
 * claim token (fencing): when this instance paused and the record was taken over
 * meanwhile, the transaction rolls back and the taker's payment is the only one.
 */
export async function collectBulkRecord(
  ctx: AppContext,
  record: ClaimedRecord,
  now?: Date,
  log?: Pick<FastifyBaseLogger, 'warn'>,
): Promise<void> {
  now ??= await ctx.clock.now(record.accountId);
  const at = now;
  const finish = async (trx: Queryable, outcome: Parameters<typeof finishRecord>[2]) => {
    if (!(await finishRecord(trx, record, outcome, at))) throw new LostClaim(`bulk record ${record.id}`);
  };
  try {
    const parsed = BulkPaymentItem.safeParse(record.item);
    if (!parsed.success) {
      await finish(ctx.db, {
        status: 'Failed',
        paymentId: null,
        errors: [{ Key: 'Api Error', Value: 'the stored item is no longer valid', Code: 'state_conflict' }],
      });
      return;
    }
    try {
      // Succeeded or declined, the record's outcome commits with its payment (alsoInTransaction).
      await recordPayment(ctx, bulkCaller(record), parsed.data, now, {
        idempotencyKey: `bulk-record-${record.id}`,
        alsoInTransaction: (trx, payment) =>
          finish(trx, {
            status: payment.status,
            paymentId: payment.id,
            errors:
              payment.status === 'Failed'
                ? [
                    { Key: 'Api Error', Value: `payment declined: ${payment.message}`, Code: 'card_declined' },
                    { Key: 'declineCode', Value: payment.declineCode, Code: 'card_declined' },
                  ]
                : null,
          }),
      });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      // A check that no longer holds at processing time: no payment was recorded.
      await finish(ctx.db, { status: 'Failed', paymentId: await findRecordPaymentId(ctx.db, record.id), errors: error.errors });
    }
  } catch (error) {
    if (!isLostClaim(error)) throw error;
    log?.warn({ bulkRecordId: record.id }, 'bulk: a record was taken over by another instance while this one held it; left to the taker');
  }
}

/** The caller a job's records are paid as: the job's account, with the source its submission had. */
function bulkCaller(record: ClaimedRecord): Caller {
  return {
    accountId: record.accountId,
    keyKind: 'private',
    auditSource: record.auditSource,
    rateLimits: { perMinute: 0, perDay: 0 },
    keyHash: '',
  };
}

/**
 * Collects a claimed batch. Records that need no gateway call (paysInBatch) are paid together: one
 * transaction for the batch, their payments (recordPaymentBatch) committing with their outcomes, so
 * a crash leaves both or neither. The others go one at a time (collectBulkRecord), `parallel`
 * customers side by side, each customer's in record order; a customer with any record of that kind
 * has all its records of the batch paid that way, so that its payments keep the record order. If the batch's transaction fails, its records are
 * paid one at a time instead (those still held). Returns how many records went one at a time.
 */
export async function collectBulkBatch(
  ctx: AppContext,
  records: ClaimedRecord[],
  options: { parallel: number; batchPayments: boolean; log?: Pick<FastifyBaseLogger, 'warn'> },
): Promise<{ oneAtATime: number }> {
  const items = records.map((record) => ({ record, parsed: BulkPaymentItem.safeParse(record.item) }));
  const customerOfRecord = (record: ClaimedRecord) => {
    const parsed = BulkPaymentItem.safeParse(record.item);
    return `${record.accountId} ${parsed.success ? parsed.data.customerId : ''}`;
  };
  const customerOf = (r: (typeof items)[number]) => customerOfRecord(r.record);
  const oneAtATime = new Set(
    items.filter((r) => !r.parsed.success || !paysInBatch(r.parsed.data) || !options.batchPayments).map(customerOf),
  );
  // a customer pays together only when every record of theirs parsed (else it is in oneAtATime)
  const together = items.flatMap((r) =>
    r.parsed.success && !oneAtATime.has(customerOf(r)) ? [{ record: r.record, input: r.parsed.data }] : [],
  );
  const single = items.filter((r) => oneAtATime.has(customerOf(r)));
  // Lanes side by side, each taking the next customer's records and paying them in record order.
  const lanes = async (list: ReadonlyArray<{ record: ClaimedRecord }>) => {
    const groups = new Map<string, Array<{ record: ClaimedRecord }>>();
    for (const r of list) {
      const customer = customerOfRecord(r.record);
      const group = groups.get(customer);
      if (group) group.push(r);
      else groups.set(customer, [r]);
    }
    const byCustomer = [...groups.values()];
    let next = 0;
    const lane = async () => {
      for (let records = byCustomer[next++]; records; records = byCustomer[next++])
        for (const { record } of records) await collectBulkRecord(ctx, record, undefined, options.log);
    };
    await Promise.all(Array.from({ length: Math.min(options.parallel, byCustomer.length) }, lane));
  };
  const batch = async () => {
    if (together.length === 0) return;
    try {
      await payTogether(
        ctx,
        together.map((r) => ({ ...r.record, input: r.input })),
      );
    } catch (error) {
      options.log?.warn({ err: error, records: together.length }, 'bulk: a batch of payments failed; paying its records one at a time');
      // Only those still held: if the failure hid a commit that went through, they are finished already.
      const held = await findHeldRecords(
        ctx.db,
        together.map((r) => r.record),
      );
      await lanes(together.filter((r) => held.has(r.record.id)));
    }
  };
  await Promise.all([batch(), lanes(single)]);
  return { oneAtATime: single.length };
}

/** The batch's transaction: the records this instance still holds, per job's caller, paid and finished together. */
async function payTogether(ctx: AppContext, records: Array<ClaimedRecord & { input: CollectPaymentInput }>) {
  const callers = new Map<string, { caller: Caller; now: Date; records: typeof records }>();
  for (const record of records) {
    const key = `${record.accountId} ${record.auditSource}`;
    const known = callers.get(key);
    if (known) known.records.push(record);
    else callers.set(key, { caller: bulkCaller(record), now: await ctx.clock.now(record.accountId), records: [record] });
  }
  const succeeded = await transactionWithRetry(ctx.db, async (trx) => {
    const held = await findHeldRecords(trx, records, { forUpdate: true });
    let count = 0;
    for (const { caller, now, records: own } of callers.values()) {
      const mine = own.filter((r) => held.has(r.id));
      const outcomes = await recordPaymentBatch(
        ctx,
        trx,
        caller,
        mine.map((r) => r.input),
        now,
      );
      await finishRecords(
        trx,
        // recordPaymentBatch answers one outcome per input, in order
        mine.map((r, i) => {
          const o = outcomes[i];
          if (!o) throw new Error(`recordPaymentBatch answered ${outcomes.length} outcomes for ${mine.length} payments`);
          return o.status === 'Succeeded'
            ? { recordId: r.id, status: 'Succeeded', paymentId: o.paymentId, errors: null }
            : { recordId: r.id, status: 'Failed', paymentId: null, errors: o.errors };
        }),
        now,
      );
      count += outcomes.filter((o) => o.status === 'Succeeded').length;
    }
    return count;
  });
  for (let i = 0; i < succeeded; i++) ctx.metrics?.paymentRecorded('Succeeded');
}
