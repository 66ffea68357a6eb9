import { z } from 'zod';
import { CollectPaymentBody } from '../payments/schemas.js';

export const BULK_JOB_STATUSES = ['Validated', 'Processing', 'Completed', 'Cancelled'] as const;
export const BULK_RECORD_STATUSES = ['Invalid', 'Pending', 'Processing', 'Succeeded', 'Failed', 'Cancelled'] as const;

/**
 * One payment of a bulk job: the fields of POST /v1/payments, `source` Import
 * unless given. The spec's items spell the allocation's invoice `invoiceID`;
 * `invoiceId` is read as well.
 */
export const BulkPaymentItem = z.preprocess((item) => {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return item;
  const withSource = { source: 'Import', ...item } as Record<string, unknown>;
  if (!Array.isArray(withSource.paymentAllocations)) return withSource;
  const allocations = withSource.paymentAllocations.map((a: unknown) =>
    a && typeof a === 'object' && 'invoiceID' in a && !('invoiceId' in a)
      ? { ...(a as object), invoiceId: (a as { invoiceID: unknown }).invoiceID }
      : a,
  );
  return { ...withSource, paymentAllocations: allocations };
}, CollectPaymentBody);

export const SubmitBulkPaymentsBody = z.object({
  accountUploadType: z.string().refine((v) => v.toLowerCase() === 'bulkpayment', 'must be bulkPayment'),
  // Items are checked one by one after the envelope: a bad item is recorded, not a 400 for the job.
  data: z.array(z.unknown()).min(1, 'at least one payment item'),
  fileName: z.string().max(255).nullish(),
  reference: z.string().max(255).nullish(),
});
export type SubmitBulkPaymentsInput = z.infer<typeof SubmitBulkPaymentsBody>;

export const BulkJobIdParams = z.object({
  bulkJobId: z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
});
export const ProcessBulkJobBody = z.object({
  id: z
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
});
export const BulkJobQuerystring = z.object({ view: z.enum(['full', 'Full', 'summary', 'Summary']).optional() });

export const BulkRecordResponse = z.object({
  index: z.number(),
  status: z.enum(BULK_RECORD_STATUSES),
  customerId: z.number().nullable(),
  amount: z.number().nullable(),
  reference: z.string().nullable(),
  errors: z.array(z.object({ Key: z.string(), Value: z.string() })),
  paymentId: z.number().nullable(),
  paymentUri: z.string().nullable(),
  processedTimestamp: z.string().nullable(),
});

export const BulkJobResponse = z.object({
  accountId: z.number(),
  type: z.string(),
  status: z.enum(BULK_JOB_STATUSES),
  createdTimestamp: z.string(),
  completedTimestamp: z.string().nullable(),
  totalRecords: z.number(),
  successfulRecords: z.number(),
  failedRecords: z.number(),
  totalProcessedRecords: z.number(),
  processedRecords: z.number(),
  failedProcessedRecords: z.number(),
  importingTimestamp: z.string().nullable(),
  processedTimestamp: z.string().nullable(),
  fileName: z.string().nullable(),
  reference: z.string().nullable(),
  relatedId: z.number().nullable(),
  internalAutomatedFlag: z.boolean(),
  modifiedTimestamp: z.string(),
  records: z.array(BulkRecordResponse).optional(),
  id: z.number(),
  uri: z.string(),
});
export type BulkJobResponse = z.infer<typeof BulkJobResponse>;
