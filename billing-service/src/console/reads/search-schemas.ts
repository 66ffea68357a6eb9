import { z } from 'zod';
import { CUSTOMER_STATUSES, CustomerResponse } from '../../customers/schemas.js';
import { MAX_SQL_INTEGER } from '../../http/field-schemas.js';
import { STORED_INVOICE_STATUSES } from '../../invoices/schemas.js';

/* The console's customer search and CSV exports (README in this folder). */

const status = z.enum(CUSTOMER_STATUSES).optional();
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const customerId = z.coerce
  .number()
  .int('must be a whole number')
  .positive('must be positive')
  .max(MAX_SQL_INTEGER, `must be at most ${MAX_SQL_INTEGER}`)
  .optional();

export const CustomerSearchQuery = z.object({
  q: text(200).trim().min(1, 'must not be empty'),
  status,
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(100, 'must be at most 100').default(25),
  offset: z.coerce.number().int('must be a whole number').min(0, 'must be at least 0').max(10_000, 'must be at most 10000').default(0),
});
export const CustomerSearchResponse = z.object({ customers: z.array(CustomerResponse), total: z.number() });
export type CustomerSearchResponse = z.infer<typeof CustomerSearchResponse>;

/** `q` (plain text) or `query` (the API's query language; read raw from the URL as /v1/customers does), not both. */
export const CustomersExportQuery = z.object({ q: text(200).optional(), query: z.string().optional(), status });
export const InvoicesExportQuery = z.object({ customerId, status: z.enum(STORED_INVOICE_STATUSES).optional() });
export const PaymentsExportQuery = z.object({ outcome: z.enum(['failed', 'all']).default('all'), customerId });
