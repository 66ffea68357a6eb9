import type { AppContext } from '../../app-context.js';
import { toCustomerResponses } from '../../customers/customer-response.js';
import { customerListFields } from '../../customers/list-fields.js';
import { conditionSql, parseListRequest } from '../../http/lists/index.js';
import { requireField } from '../../http/lists/list-fields.js';
import { minorUnits, money } from '../../money/money.js';
import type { Operator } from '../operator.js';
import { csvRecord, type CsvValue } from './csv.js';
import {
  customerRecordsAfter,
  customerRecordsOf,
  invoicesBefore,
  paymentsBefore,
  searchCustomerIds,
  searchCustomerIdsAfter,
  type CustomerSearch,
  type InvoiceExportRow,
  type PaymentExportRow,
} from './search-repository.js';
import type { CustomerRecord } from '../../customers/repository.js';
import type { CustomerSearchResponse } from './search-schemas.js';
import { staleReadDb } from './read-db.js';

/** Rows read per round trip while a CSV streams out: the export never holds more than one batch. */
export const EXPORT_BATCH = 500;
const MAX_TERMS = 8;

/** The words of a plain-text search (at most 8; more are one long phrase in practice, matched by the first 8). */
export function customerSearchOf(text: string, status?: string): CustomerSearch {
  const whole = text.trim().replace(/\s+/g, ' ');
  return { terms: whole.split(' ').filter(Boolean).slice(0, MAX_TERMS), whole, status };
}

/** A page of customers matching plain text, exact id/reference/e-mail first, as the API's list shows them. */
export async function searchCustomers(
  ctx: AppContext,
  operator: Operator,
  query: { q: string; status?: string | undefined; limit: number; offset: number },
): Promise<CustomerSearchResponse> {
  const now = await ctx.clock.now(operator.accountId);
  const db = staleReadDb(ctx);
  const { ids, total } = await searchCustomerIds(db, operator.accountId, customerSearchOf(query.q, query.status), query);
  const records = await customerRecordsOf(db, operator.accountId, now, ids);
  return { customers: await toCustomerResponses(db, ctx.uris, ctx.catalog.emails.defaultLanguage, records), total };
}

const isoOrEmpty = (at: Date | null | undefined) => (at ? new Date(at).toISOString() : '');
const exact = (amount: string | null, currency: string) => (amount === null ? '' : money(amount).toFixed(minorUnits(currency)));

/** Yields the header, then each batch's records, until a batch comes back short. */
async function* batches<Row extends { id: number }>(
  header: CsvValue[],
  next: (last: Row | undefined) => Promise<Row[]>,
  record: (row: Row) => CsvValue[],
) {
  yield csvRecord(header);
  let last: Row | undefined;
  for (;;) {
    const rows = await next(last);
    for (const row of rows) yield csvRecord(record(row));
    if (rows.length < EXPORT_BATCH) return;
    last = rows.at(-1);
  }
}

const CUSTOMER_HEADER = [
  'Id',
  'First name',
  'Last name',
  'Company',
  'E-mail',
  'Reference',
  'Status',
  'Account status',
  'Currency',
  'Created',
];
const customerRecordCells = (c: CustomerRecord): CsvValue[] => [
  c.id,
  c.firstName,
  c.lastName,
  c.companyName,
  c.primaryEmail,
  c.reference,
  c.status,
  (c as CustomerRecord & { customerAccountStatus?: string }).customerAccountStatus ?? '',
  c.currency,
  isoOrEmpty(c.createdAt),
];

/**
 * The customers CSV, with the list's filters: plain text (`q`, and `status`) as the search matches it, or the API's
 * query language (`query`, as GET /v1/customers reads it; parsed here first, so a bad query is a 400, not a cut stream).
 */
export async function customersCsv(
  ctx: AppContext,
  operator: Operator,
  filter: { q?: string | undefined; status?: string | undefined; query?: string | undefined },
): Promise<AsyncIterable<string>> {
  const now = await ctx.clock.now(operator.accountId);
  const { accountId } = operator;
  const db = staleReadDb(ctx);
  if (filter.q?.trim()) {
    const search = customerSearchOf(filter.q, filter.status);
    return batches(
      CUSTOMER_HEADER,
      async (last) =>
        customerRecordsOf(db, accountId, now, await searchCustomerIdsAfter(db, accountId, search, last?.id ?? 0, EXPORT_BATCH)),
      customerRecordCells,
    );
  }
  const fields = customerListFields(ctx.catalog)(now);
  const request = parseListRequest({ query: filter.query ?? null }, fields, { field: 'Id', order: 'Ascending' });
  const conditions = request.conditions.map((c) => conditionSql(c, requireField(fields, c.field)));
  if (filter.status)
    conditions.push(conditionSql({ field: 'Status', op: 'in', values: [filter.status], orEmpty: false }, requireField(fields, 'Status')));
  return batches(
    CUSTOMER_HEADER,
    (last) => customerRecordsAfter(db, accountId, now, conditions, last?.id ?? 0, EXPORT_BATCH),
    customerRecordCells,
  );
}

/** The invoices CSV, newest first: the account's or one customer's, of one status or all; dates on the account's clock. */
export function invoicesCsv(ctx: AppContext, operator: Operator, filter: { customerId?: number | undefined; status?: string | undefined }) {
  const db = staleReadDb(ctx);
  return batches<InvoiceExportRow>(
    ['Id', 'Number', 'Customer id', 'Customer', 'Status', 'Date', 'Due', 'Total', 'Outstanding', 'Currency'],
    (last) => invoicesBefore(db, operator.accountId, filter, last?.id, EXPORT_BATCH),
    (row) => [
      row.id,
      row.invoiceNumber,
      row.customerId,
      row.customerName,
      row.status,
      isoOrEmpty(row.effectiveAt),
      isoOrEmpty(row.dueAt),
      exact(row.total, row.currency),
      exact(row.outstanding, row.currency),
      row.currency,
    ],
  );
}

/** The payments CSV, newest first: all or the failures (the Payments page's filter), of one customer or all. */
export function paymentsCsv(ctx: AppContext, operator: Operator, filter: { outcome: 'failed' | 'all'; customerId?: number | undefined }) {
  const failedOnly = filter.outcome === 'failed';
  const db = staleReadDb(ctx);
  return batches<PaymentExportRow>(
    ['Id', 'Date', 'Customer id', 'Customer', 'Amount', 'Currency', 'Method', 'Status', 'Reference', 'Decline code', 'Decline message'],
    (last) => paymentsBefore(db, operator.accountId, { failedOnly, customerId: filter.customerId }, last?.id, EXPORT_BATCH),
    (row) => [
      row.id,
      isoOrEmpty(row.effectiveAt),
      row.customerId,
      row.customerName,
      exact(row.amount, row.currency),
      row.currency,
      row.method,
      row.status,
      row.reference,
      row.declineCode,
      row.declineMessage,
    ],
  );
}
