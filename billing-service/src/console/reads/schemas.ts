import { z } from 'zod';
import { MAX_SQL_INTEGER } from '../../http/field-schemas.js';

/* The console's read routes (README "Merchant console"): money as strings, dates ISO 8601. */

const Money = z.string().describe('an amount, exact (decimal string)');
const id = z.coerce
  .number()
  .int('must be a whole number')
  .positive('must be positive')
  .max(MAX_SQL_INTEGER, `must be at most ${MAX_SQL_INTEGER}`);
const limit = (max: number, fallback: number) =>
  z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(max, `must be at most ${max}`).default(fallback);
const offset = z.coerce
  .number()
  .int('must be a whole number')
  .min(0, 'must be at least 0')
  .max(1_000_000, 'must be at most 1000000')
  .default(0);

export const RevenueQuery = z.object({ months: limit(36, 24) });
export const RevenueMonth = z.object({
  month: z.string().describe('YYYY-MM'),
  mrr: Money,
  new: Money,
  expansion: Money,
  contraction: Money,
  churn: Money,
  activeSubscribers: z.number(),
  churnedSubscribers: z.number(),
  churnRate: z.string().describe('churned / active at the previous month end, 4 decimals'),
  writtenOff: Money.describe("what write-offs dated in the month closed (issue 40; the invoices' currency)"),
});
export const RevenueResponse = z.object({
  currencies: z.array(
    z.object({
      currency: z.string(),
      current: z.object({ mrr: Money, activeSubscribers: z.number() }),
      months: z.array(RevenueMonth),
    }),
  ),
});
export type RevenueResponse = z.infer<typeof RevenueResponse>;

export const PaymentsQuery = z.object({ outcome: z.enum(['failed', 'all']).default('all'), limit: limit(100, 50), offset });
export const ConsolePayment = z.object({
  id: z.number(),
  customerId: z.number(),
  customerName: z.string().nullable(),
  amount: Money,
  currency: z.string(),
  status: z.string(),
  declineCode: z.string().nullable(),
  declineMessage: z.string().nullable(),
  createdAt: z.string().describe('when it was recorded (wall clock)'),
  effectiveAt: z.string().describe("its date on the account's clock, as the API's effectiveTimestamp"),
  method: z.string(),
});
export const PaymentsResponse = z.object({ payments: z.array(ConsolePayment), total: z.number() });
export type PaymentsResponse = z.infer<typeof PaymentsResponse>;

export const DunningQuery = z.object({ limit: limit(500, 100) });
export const DunningResponse = z.object({
  customers: z.array(
    z.object({
      id: z.number(),
      name: z.string().nullable(),
      email: z.string().nullable(),
      status: z.string(),
      accountStatus: z.enum(['Collection', 'PoorStanding']),
      balance: Money,
      currency: z.string(),
      poorStandingSince: z.string().nullable(),
      daysToSuspension: z.number().nullable(),
    }),
  ),
});
export type DunningResponse = z.infer<typeof DunningResponse>;

export const CustomerParams = z.object({ id });
export const PageQuery = z.object({ limit: limit(100, 50), offset });
export const AuditResponse = z.object({
  entries: z.array(
    z.object({
      id: z.number(),
      at: z.string(),
      actor: z.string(),
      source: z.string(),
      entityType: z.string(),
      entityId: z.number(),
      action: z.string(),
      changes: z.unknown(),
    }),
  ),
});
export type AuditResponse = z.infer<typeof AuditResponse>;

export const CustomerEventsResponse = z.object({
  events: z.array(
    z.object({
      id: z.string(),
      type: z.string(),
      createdAt: z.string(),
      deliveries: z.array(
        z.object({
          endpointId: z.number(),
          status: z.string(),
          attempts: z.number(),
          lastResponseStatus: z.number().nullable(),
          lastAttemptAt: z.string().nullable(),
        }),
      ),
    }),
  ),
});
export type CustomerEventsResponse = z.infer<typeof CustomerEventsResponse>;

export const DeliveriesQuery = z.object({
  status: z.enum(['Pending', 'Succeeded', 'Failed']).optional(),
  endpointId: id.optional(),
  limit: limit(100, 50),
  offset,
});
export const ConsoleDelivery = z.object({
  id: z.number(),
  eventId: z.string(),
  eventType: z.string(),
  endpointId: z.number(),
  endpointUrl: z.string(),
  status: z.string(),
  attempts: z.number(),
  lastResponseStatus: z.number().nullable(),
  lastResponseBody: z.string().nullable().describe("the last failure's error (response bodies are not kept)"),
  lastAttemptAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
});
export type ConsoleDelivery = z.infer<typeof ConsoleDelivery>;
export const DeliveriesResponse = z.object({ deliveries: z.array(ConsoleDelivery), total: z.number() });
export type DeliveriesResponse = z.infer<typeof DeliveriesResponse>;
export const DeliveryParams = z.object({ id });
export const ResendResponse = z.object({ delivery: ConsoleDelivery });

export const EmailsQuery = z.object({ status: z.enum(['Pending', 'Sent', 'Failed']).optional(), limit: limit(100, 50), offset });
export const EmailsResponse = z.object({
  emails: z.array(
    z.object({
      id: z.number(),
      customerId: z.number().nullable(),
      to: z.string(),
      type: z.string(),
      language: z.string(),
      status: z.string(),
      attempts: z.number(),
      lastError: z.string().nullable(),
      createdAt: z.string(),
      sentAt: z.string().nullable(),
    }),
  ),
  total: z.number(),
});
export type EmailsResponse = z.infer<typeof EmailsResponse>;

export const BulkJobsQuery = z.object({
  status: z.enum(['Validated', 'Processing', 'Completed', 'Cancelled']).optional(),
  limit: limit(100, 50),
  offset,
});
export const BulkJobsResponse = z.object({
  jobs: z.array(
    z.object({
      id: z.number(),
      status: z.string(),
      reference: z.string().nullable().describe('the reference or file name it was submitted with'),
      createdAt: z.string(),
      completedAt: z.string().nullable(),
      counts: z
        .object({
          Invalid: z.number(),
          Pending: z.number(),
          Processing: z.number(),
          Succeeded: z.number(),
          Failed: z.number(),
          Cancelled: z.number(),
        })
        .describe('its records by status'),
    }),
  ),
  total: z.number(),
});
export type BulkJobsResponse = z.infer<typeof BulkJobsResponse>;
