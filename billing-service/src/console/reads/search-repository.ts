import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../../db/database.js';
import { PLAN_EACH_CALL } from '../../db/prepared-statements.js';
import { MAX_SQL_INTEGER } from '../../http/field-schemas.js';
import { likePattern } from '../../http/lists/index.js';
import { selectCustomerRecords, type CustomerRecord } from '../../customers/repository.js';
import { COUNT_CAP, customerName, type PaymentRow } from './repository.js';

/*
 * The console's plain-text customer search and its CSV exports: SQL only (README in this folder). A search term
 * matches a prefix of the first name, last name, company, e-mail or reference (lower(x) like 'term%', each through
 * its `(account_id, lower(x) text_pattern_ops)` index of migration 0006, so the terms' matches are a BitmapOr of
 * index scans) or, all digits, the id; every term must match. Planned per call (PLAN_EACH_CALL): a generic plan
 * cannot use a prefix index for a parameter pattern.
 */

export interface CustomerSearch {
  /** The words typed, each matched as a prefix (every one must match). */
  terms: string[];
  /** The whole text: an exact id, reference or e-mail ranks first; a reference or company with spaces matches whole. */
  whole: string;
  status?: string | undefined;
}

const SEARCHED = ['c.first_name', 'c.last_name', 'c.company_name', 'c.primary_email', 'c.reference'];

const idOf = (text: string) => (/^\d{1,10}$/.test(text) && Number(text) <= MAX_SQL_INTEGER ? Number(text) : undefined);
const prefixOf = (column: string, text: string) =>
  sql<SqlBool>`lower(${sql.raw(column)}) like lower(${likePattern([text, ''])}) escape '\\'`;

function termMatches(term: string): RawBuilder<SqlBool> {
  const id = idOf(term);
  const branches = [...SEARCHED.map((column) => prefixOf(column, term)), ...(id === undefined ? [] : [sql<SqlBool>`c.id = ${id}`])];
  return sql<SqlBool>`(${sql.join(branches, sql` or `)})`;
}

function searchFilter(accountId: number, search: CustomerSearch): RawBuilder<SqlBool> {
  const everyTerm = sql<SqlBool>`(${sql.join(search.terms.map(termMatches), sql` and `)})`;
  const whole =
    search.terms.length > 1
      ? sql<SqlBool>`(${everyTerm} or ${prefixOf('c.reference', search.whole)} or ${prefixOf('c.company_name', search.whole)})`
      : everyTerm;
  const status = search.status ? sql<SqlBool>` and c.status = ${search.status}` : sql``;
  return sql<SqlBool>`c.account_id = ${accountId}${status} and ${whole}`;
}

/** 0 for an exact id, reference or e-mail (case-insensitive), else 1. */
function rank(search: CustomerSearch): RawBuilder<number> {
  const id = idOf(search.whole);
  return sql<number>`case when ${id === undefined ? sql`false` : sql`c.id = ${id}`}
    or lower(c.reference) = lower(${search.whole}) or lower(c.primary_email) = lower(${search.whole}) then 0 else 1 end`;
}

/** A page of matching ids, exact matches first, then newest first; the matches counted up to COUNT_CAP. */
export async function searchCustomerIds(
  db: Queryable,
  accountId: number,
  search: CustomerSearch,
  page: { limit: number; offset: number },
): Promise<{ ids: number[]; total: number }> {
  const filter = searchFilter(accountId, search);
  const [rows, total] = await Promise.all([
    sql<{ id: number }>`select c.id from customers c where ${filter}
      order by ${rank(search)}, c.id desc limit ${page.limit} offset ${page.offset}${PLAN_EACH_CALL}`.execute(db),
    sql<{
      n: string | number;
    }>`select count(*) as n from (select 1 from customers c where ${filter} limit ${COUNT_CAP}) capped${PLAN_EACH_CALL}`.execute(db),
  ]);
  return { ids: rows.rows.map((r) => Number(r.id)), total: Number(total.rows[0]?.n ?? 0) };
}

/** The next matching ids after `afterId`, in id order (an export walks them in batches). */
export async function searchCustomerIdsAfter(
  db: Queryable,
  accountId: number,
  search: CustomerSearch,
  afterId: number,
  limit: number,
): Promise<number[]> {
  const rows = await sql<{ id: number }>`select c.id from customers c where ${searchFilter(accountId, search)} and c.id > ${afterId}
    order by c.id limit ${limit}${PLAN_EACH_CALL}`.execute(db);
  return rows.rows.map((r) => Number(r.id));
}

/** The customers of these ids as the API reads them (`now`, the account's time, decides PoorStanding), in the ids' order. */
export async function customerRecordsOf(db: Queryable, accountId: number, now: Date, ids: number[]): Promise<CustomerRecord[]> {
  if (ids.length === 0) return [];
  const rows = (await selectCustomerRecords(db, accountId, now).where('customers.id', 'in', ids).execute()) as CustomerRecord[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The next customers after `afterId` matching the API's query-language conditions, in id order. */
export async function customerRecordsAfter(
  db: Queryable,
  accountId: number,
  now: Date,
  conditions: RawBuilder<SqlBool>[],
  afterId: number,
  limit: number,
): Promise<CustomerRecord[]> {
  let query = selectCustomerRecords(db, accountId, now).where('customers.id', '>', afterId);
  for (const condition of conditions) query = query.where(condition);
  return (await query.orderBy('customers.id').limit(limit).modifyEnd(PLAN_EACH_CALL).execute()) as CustomerRecord[];
}

export interface InvoiceExportRow {
  id: number;
  invoiceNumber: number;
  customerId: number;
  customerName: string | null;
  status: string;
  currency: string;
  effectiveAt: Date;
  dueAt: Date;
  total: string;
  outstanding: string | null;
}

/** The next invoices before `beforeId` (undefined: from the newest), newest first, of one customer or all, of one status or all. */
export async function invoicesBefore(
  db: Queryable,
  accountId: number,
  filter: { customerId?: number | undefined; status?: string | undefined },
  beforeId: number | undefined,
  limit: number,
): Promise<InvoiceExportRow[]> {
  const customer = filter.customerId === undefined ? sql`` : sql` and i.customer_id = ${filter.customerId}`;
  const status = filter.status ? sql` and i.status = ${filter.status}` : sql``;
  const rows = await sql<InvoiceExportRow>`
    select i.id, i.invoice_number, i.customer_id, ${customerName} as customer_name, i.status, i.currency, i.effective_at, i.due_at,
      i.total::text as total, le.open_amount::text as outstanding
    from invoices i join customers c on c.id = i.customer_id
    left join ledger_entries le on le.invoice_id = i.id and le.entry_type = 'invoice'
    where i.account_id = ${accountId}${customer}${status}${beforeId === undefined ? sql`` : sql` and i.id < ${beforeId}`}
    order by i.id desc limit ${limit}
  `.execute(db);
  return rows.rows.map((r) => ({ ...r, id: Number(r.id), customerId: Number(r.customerId) }));
}

/** A payment as the Payments read lists it, with its reference (recorded-at is not exported: its date is the account's). */
export type PaymentExportRow = Omit<PaymentRow, 'createdAt'> & { reference: string | null };

/** The next payments before `beforeId` (undefined: from the newest), newest first: all or the failures, of one customer or all. */
export async function paymentsBefore(
  db: Queryable,
  accountId: number,
  filter: { failedOnly: boolean; customerId?: number | undefined },
  beforeId: number | undefined,
  limit: number,
): Promise<PaymentExportRow[]> {
  const failed = filter.failedOnly ? sql` and p.status = 'Failed'` : sql``;
  const customer = filter.customerId === undefined ? sql`` : sql` and p.customer_id = ${filter.customerId}`;
  const rows = await sql<PaymentExportRow>`
    select p.id, p.customer_id, ${customerName} as customer_name, p.amount::text as amount, p.currency, p.status,
      p.payment_method_type as method, p.reference, p.decline_code, p.decline_message, p.effective_at
    from payments p join customers c on c.id = p.customer_id
    where p.account_id = ${accountId}${failed}${customer}${beforeId === undefined ? sql`` : sql` and p.id < ${beforeId}`}
    order by p.id desc limit ${limit}
  `.execute(db);
  return rows.rows.map((r) => ({ ...r, id: Number(r.id), customerId: Number(r.customerId) }));
}
