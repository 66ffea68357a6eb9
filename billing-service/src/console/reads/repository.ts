import { sql } from 'kysely';
import type { Queryable } from '../../db/database.js';
import { isOverdueSql } from '../../ledger/overdue.js';

/*
 * The console's reads: SQL only, read-only (README in this folder). Each list is one account's rows
 * through an index (migration 0032), newest first, with a bounded page; totals are counted up to
 * COUNT_CAP rows so that a count never scans an account's whole history.
 */

/** Totals stop here: beyond it the console shows "10,000+" (a count of millions would scan as many index entries). */
export const COUNT_CAP = 10_000;

/** A `count(*)` always answers one row; none would mean nothing counted. */
function cappedCount(rows: ReadonlyArray<{ n: string | number | bigint }>): number {
  return Number(rows[0]?.n ?? 0);
}

/** A customer's name as the console lists it: the company, else first and last name. */
export const customerName = sql<string | null>`coalesce(c.company_name, nullif(concat_ws(' ', c.first_name, c.last_name), ''))`;

export interface PaymentRow {
  id: number;
  customerId: number;
  customerName: string | null;
  amount: string;
  currency: string;
  status: string;
  declineCode: string | null;
  declineMessage: string | null;
  /** When it was recorded (wall clock). */
  createdAt: Date;
  /** Its date on the account's clock (a test clock included), as the API's `effectiveTimestamp`. */
  effectiveAt: Date;
  method: string;
}

/** Failures first, newest first (index payments_account_failures_first). */
export async function listPayments(
  db: Queryable,
  accountId: number,
  options: { failedOnly: boolean; limit: number; offset: number },
): Promise<{ rows: PaymentRow[]; total: number }> {
  const failedOnly = options.failedOnly ? sql`and p.status = 'Failed'` : sql``;
  const rows = await sql<PaymentRow>`
    select p.id, p.customer_id, ${customerName} as customer_name, p.amount::text as amount, p.currency, p.status,
      p.decline_code, p.decline_message, p.created_at, p.effective_at, p.payment_method_type as method
    from payments p join customers c on c.id = p.customer_id
    where p.account_id = ${accountId} ${failedOnly}
    order by ${options.failedOnly ? sql`p.id desc` : sql`(p.status <> 'Failed'), p.id desc`}
    limit ${options.limit} offset ${options.offset}
  `.execute(db);
  const total = await sql<{ n: string | number }>`
    select count(*) as n from (select 1 from payments p where p.account_id = ${accountId} ${failedOnly} limit ${COUNT_CAP}) capped
  `.execute(db);
  return { rows: rows.rows.map((r) => ({ ...r, id: Number(r.id), customerId: Number(r.customerId) })), total: cappedCount(total.rows) };
}

export interface DunningCandidateRow {
  id: number;
  name: string | null;
  email: string | null;
  status: string;
  accountStatus: string;
  currency: string;
  statusAt: Date;
}

/**
 * Customers in Collection (stored) or PoorStanding (an open invoice overdue at `now`, ledger/account-status.ts):
 * those with the oldest overdue invoice first, then Collection ones; both through partial indexes (0032).
 */
export async function findDunningCustomers(db: Queryable, accountId: number, now: Date, limit: number): Promise<DunningCandidateRow[]> {
  const result = await sql<DunningCandidateRow & { oldestDue: Date | null }>`
    with overdue as (
      select le.customer_id, min(le.due_at) as oldest_due from ledger_entries le
      where le.account_id = ${accountId} and le.entry_type = 'invoice' and le.open_amount > 0 and ${isOverdueSql('le.dueAt', now)}
      group by le.customer_id
    ),
    candidates as (
      select customer_id, oldest_due from overdue
      union all
      select c.id, null from customers c
      where c.account_id = ${accountId} and c.customer_account_status = 'Collection' and c.id not in (select customer_id from overdue)
    )
    select c.id, ${customerName} as name, c.primary_email as email, c.status, c.currency, c.status_at,
      case when k.oldest_due is not null then 'PoorStanding' else c.customer_account_status end as account_status, k.oldest_due
    from candidates k join customers c on c.id = k.customer_id and c.account_id = ${accountId}
    order by k.oldest_due nulls last, c.id
    limit ${limit}
  `.execute(db);
  return result.rows.map((r) => ({ ...r, id: Number(r.id) }));
}

export interface AuditRow {
  id: number;
  createdAt: Date;
  actor: string;
  source: string;
  entityType: string;
  entityId: number;
  action: string;
  changes: unknown;
}

/** Entity types whose id is the customer's own (the customer and its one-per-customer settings). */
const CUSTOMER_KEYED = ['Customer', 'CustomerBillingSetting', 'CustomerEmailPreferences', 'CustomerAddressPreferences'];

/** Entity types of rows that belong to one customer: the table that says which (each has customer_id). */
const CHILD_TABLES: Array<[entityType: string, table: string]> = [
  ['Subscription', 'subscriptions'],
  ['Invoice', 'invoices'],
  ['Payment', 'payments'],
  ['Refund', 'refunds'],
  ['Dispute', 'disputes'],
  ['PaymentMethod', 'payment_methods'],
  ['CustomerNote', 'customer_notes'],
  ['Address', 'addresses'],
];

/**
 * The audit entries of a customer and of its rows, newest first: one branch per entity type, each an index walk on
 * audit_log_entity (account, type, id), so only this customer's entries are read.
 */
export async function listCustomerAudit(
  db: Queryable,
  accountId: number,
  customerId: number,
  page: { limit: number; offset: number },
): Promise<AuditRow[]> {
  const columns = sql`a.id, a.created_at, a.actor, a.source, a.entity_type, a.entity_id, a.action, a.changes`;
  const branches = [
    sql`select ${columns} from audit_log a
      where a.account_id = ${accountId} and a.entity_type in (${sql.join(CUSTOMER_KEYED)}) and a.entity_id = ${customerId}`,
    ...CHILD_TABLES.map(
      ([type, table]) => sql`select ${columns} from audit_log a
        where a.account_id = ${accountId} and a.entity_type = ${type}
          and a.entity_id in (select x.id from ${sql.table(table)} x where x.customer_id = ${customerId})`,
    ),
  ];
  const result = await sql<AuditRow>`
    select * from (${sql.join(branches, sql` union all `)}) entries
    order by id desc
    limit ${page.limit} offset ${page.offset}
  `.execute(db);
  return result.rows.map((r) => ({ ...r, id: Number(r.id), entityId: Number(r.entityId) }));
}

/** Whether the customer is the account's. */
export async function customerExists(db: Queryable, accountId: number, customerId: number): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('accountId', '=', accountId)
    .where('id', '=', customerId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface CustomerEventRow {
  id: string;
  eventId: number;
  type: string;
  createdAt: Date;
}

export interface EventDeliveryRow {
  eventId: number;
  endpointId: number;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastAttemptAt: Date | null;
}

/** A customer's webhook events, newest first (index webhook_events_customer), and their deliveries. */
export async function listCustomerEvents(
  db: Queryable,
  accountId: number,
  customerId: number,
  page: { limit: number; offset: number },
): Promise<{ events: CustomerEventRow[]; deliveries: EventDeliveryRow[] }> {
  const events = await sql<CustomerEventRow>`
    select e.public_id as id, e.id as event_id, e.event_type as type, e.created_at from webhook_events e
    where e.account_id = ${accountId} and e.customer_id = ${customerId}
    order by e.id desc limit ${page.limit} offset ${page.offset}
  `.execute(db);
  const eventIds = events.rows.map((e) => Number(e.eventId));
  if (eventIds.length === 0) return { events: [], deliveries: [] };
  const deliveries = await sql<EventDeliveryRow>`
    select d.event_id, d.endpoint_id, d.status, d.attempts, d.last_status_code as last_response_status,
      (select max(t.attempted_at) from webhook_delivery_attempts t where t.delivery_id = d.id) as last_attempt_at
    from webhook_deliveries d
    where d.account_id = ${accountId} and d.event_id in (${sql.join(eventIds)})
    order by d.event_id, d.endpoint_id
  `.execute(db);
  return {
    events: events.rows.map((e) => ({ ...e, eventId: Number(e.eventId) })),
    deliveries: deliveries.rows.map((d) => ({ ...d, eventId: Number(d.eventId), endpointId: Number(d.endpointId) })),
  };
}

export interface DeliveryListRow {
  id: number;
  eventId: string;
  eventType: string;
  endpointId: number;
  endpointUrl: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date;
}

/** The account's webhook deliveries, newest first (indexes webhook_deliveries_account*, webhook_deliveries_endpoint). */
export async function listDeliveries(
  db: Queryable,
  accountId: number,
  options: { status?: string; endpointId?: number; id?: number; limit: number; offset: number },
): Promise<{ rows: DeliveryListRow[]; total: number }> {
  const filters = sql.join(
    [
      sql`d.account_id = ${accountId}`,
      ...(options.status ? [sql`d.status = ${options.status}`] : []),
      ...(options.endpointId !== undefined ? [sql`d.endpoint_id = ${options.endpointId}`] : []),
      ...(options.id !== undefined ? [sql`d.id = ${options.id}`] : []),
    ],
    sql` and `,
  );
  const rows = await sql<DeliveryListRow>`
    select d.id, e.public_id as event_id, e.event_type, d.endpoint_id, w.url as endpoint_url, d.status, d.attempts,
      d.last_status_code as last_response_status, d.last_error,
      (select max(t.attempted_at) from webhook_delivery_attempts t where t.delivery_id = d.id) as last_attempt_at,
      d.next_attempt_at
    from webhook_deliveries d
    join webhook_events e on e.id = d.event_id
    join webhook_endpoints w on w.id = d.endpoint_id
    where ${filters}
    order by d.id desc limit ${options.limit} offset ${options.offset}
  `.execute(db);
  const total = await sql<{ n: string | number }>`
    select count(*) as n from (select 1 from webhook_deliveries d where ${filters} limit ${COUNT_CAP}) capped
  `.execute(db);
  return {
    rows: rows.rows.map((r) => ({ ...r, id: Number(r.id), endpointId: Number(r.endpointId) })),
    total: cappedCount(total.rows),
  };
}

export interface EmailRow {
  id: number;
  customerId: number | null;
  to: string;
  type: string;
  language: string | null;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

/** The account's e-mail outbox, newest first (indexes email_outbox_account*). */
export async function listEmails(
  db: Queryable,
  accountId: number,
  options: { status?: string; limit: number; offset: number },
): Promise<{ rows: EmailRow[]; total: number }> {
  const filters = options.status ? sql`o.account_id = ${accountId} and o.status = ${options.status}` : sql`o.account_id = ${accountId}`;
  const rows = await sql<EmailRow>`
    select o.id, o.customer_id, o.to_address as "to", o.email_type as type, c.language, o.status, o.attempts, o.last_error,
      o.created_at, o.sent_at
    from email_outbox o left join customers c on c.id = o.customer_id
    where ${filters}
    order by o.id desc limit ${options.limit} offset ${options.offset}
  `.execute(db);
  const total = await sql<{ n: string | number }>`
    select count(*) as n from (select 1 from email_outbox o where ${filters} limit ${COUNT_CAP}) capped
  `.execute(db);
  return {
    rows: rows.rows.map((r) => ({ ...r, id: Number(r.id), customerId: r.customerId === null ? null : Number(r.customerId) })),
    total: cappedCount(total.rows),
  };
}
