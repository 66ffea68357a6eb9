import type { AppContext } from '../../app-context.js';
import { listJobsWithCounts } from '../../bulk/repository.js';
import type { BulkJobStatus } from '../../db/schema.js';
import { effectiveBillingSettings } from '../../billing-settings/effective-settings.js';
import { findBillingSetting } from '../../billing-settings/repository.js';
import { daysUntilSuspension } from '../../customers/dunning.js';
import { accountStatusChanges } from '../../ledger/account-status.js';
import { customerBalances } from '../../ledger/balances.js';
import { minorUnits, money } from '../../money/money.js';
import { Refusal } from '../../refusals/refusal.js';
import { resendWebhookDelivery } from '../../webhooks/service.js';
import { callerOf, type Operator } from '../operator.js';
import {
  COUNT_CAP,
  customerExists,
  findDunningCustomers,
  listCustomerAudit,
  listCustomerEvents,
  listDeliveries,
  listEmails,
  listPayments,
  type DeliveryListRow,
} from './repository.js';
import { staleReadDb } from './read-db.js';
import { revenueByCurrencyAndPoint, type RevenuePoint, writeOffsByCurrencyAndMonth } from './revenue-repository.js';
import type {
  AuditResponse,
  BulkJobsResponse,
  ConsoleDelivery,
  CustomerEventsResponse,
  DeliveriesResponse,
  DunningResponse,
  EmailsResponse,
  PaymentsResponse,
  RevenueResponse,
} from './schemas.js';

const DAY_MS = 86_400_000;

const isoDay = (at: Date) => at.toISOString().slice(0, 10);
const monthLabel = (year: number, month: number) => new Date(Date.UTC(year, month, 1)).toISOString().slice(0, 7);

/**
 * The instants revenue is read at, on the account's clock: the end of the month before the first one shown (for
 * the first month's movements), the end of each shown month but the current one, and `now` for the current month.
 */
export function revenuePoints(now: Date, months: number): { points: RevenuePoint[]; labels: string[] } {
  const year = now.getUTCFullYear();
  const current = now.getUTCMonth();
  const points: RevenuePoint[] = [];
  const labels: string[] = [];
  for (let index = 0; index < months; index += 1) {
    // index 0: the end of the month before the first shown; index k: the end of the k-th shown month.
    const nextMonthStart = new Date(Date.UTC(year, current - months + 1 + index, 1));
    points.push({ index, at: nextMonthStart, day: isoDay(new Date(nextMonthStart.getTime() - DAY_MS)), isNow: false });
    labels.push(monthLabel(year, current - months + 1 + index));
  }
  points.push({ index: months, at: now, day: isoDay(now), isNow: true });
  return { points, labels };
}

/** MRR by month and currency, with its movements, active and churned subscribers (README in this folder). */
export async function revenue(ctx: AppContext, operator: Operator, months: number): Promise<RevenueResponse> {
  const now = await ctx.clock.now(operator.accountId);
  const { points, labels } = revenuePoints(now, months);
  const currencyDecimals = ctx.catalog.currencies.allowed.map((code) => ({ code, decimals: minorUnits(code) }));
  const reads = staleReadDb(ctx);
  const rows = await revenueByCurrencyAndPoint(reads, operator.accountId, points, currencyDecimals);
  const firstShown = points[0]?.at ?? now;
  const writeOffs = await writeOffsByCurrencyAndMonth(reads, operator.accountId, firstShown, now);
  const byCurrency = new Map<string, typeof rows>();
  for (const row of rows) byCurrency.set(row.currency, [...(byCurrency.get(row.currency) ?? []), row]);
  // a currency with write-offs and no subscription live in the months shown still shows them
  for (const w of writeOffs) if (!byCurrency.has(w.currency)) byCurrency.set(w.currency, []);
  const currencies = [...byCurrency].map(([currency, series]) => {
    const decimals = minorUnits(currency);
    const amount = (value: string) => money(value).toFixed(decimals);
    const at = (index: number) => series.find((row) => row.point === index);
    const shown = labels.map((month, k) => {
      const row = at(k + 1);
      const activeBefore = at(k)?.active ?? 0;
      const churned = row?.churned ?? 0;
      return {
        month,
        mrr: amount(row?.mrr ?? '0'),
        new: amount(row?.newMrr ?? '0'),
        expansion: amount(row?.expansion ?? '0'),
        contraction: amount(row?.contraction ?? '0'),
        churn: amount(row?.churn ?? '0'),
        activeSubscribers: row?.active ?? 0,
        churnedSubscribers: churned,
        churnRate: activeBefore === 0 ? '0.0000' : money(churned).dividedBy(activeBefore).toFixed(4),
        writtenOff: amount(writeOffs.find((w) => w.currency === currency && w.month === month)?.amount ?? '0'),
      };
    });
    const last = shown.at(-1);
    if (!last) throw new Error('a revenue read always shows at least the current month');
    return { currency, current: { mrr: last.mrr, activeSubscribers: last.activeSubscribers }, months: shown };
  });
  return { currencies };
}

export async function payments(
  ctx: AppContext,
  operator: Operator,
  query: { outcome: 'failed' | 'all'; limit: number; offset: number },
): Promise<PaymentsResponse> {
  const { rows, total } = await listPayments(staleReadDb(ctx), operator.accountId, { failedOnly: query.outcome === 'failed', ...query });
  return {
    payments: rows.map((row) => ({
      ...row,
      amount: money(row.amount).toFixed(minorUnits(row.currency)),
      createdAt: new Date(row.createdAt).toISOString(),
      effectiveAt: new Date(row.effectiveAt).toISOString(),
    })),
    total,
  };
}

/** Customers in Collection or PoorStanding, with the dunning countdown the billing clock acts on (customers/dunning.ts). */
export async function dunning(ctx: AppContext, operator: Operator, limit: number): Promise<DunningResponse> {
  const now = await ctx.clock.now(operator.accountId);
  const candidates = await findDunningCustomers(ctx.db, operator.accountId, now, limit);
  const customers = await Promise.all(
    candidates.map(async (customer) => {
      const [changes, setting, balances] = await Promise.all([
        accountStatusChanges(ctx.db, customer.id, now),
        findBillingSetting(ctx.db, customer.id),
        customerBalances(ctx.db, customer.id),
      ]);
      const since = customer.accountStatus === 'PoorStanding' ? changes.poorStandingSince : null;
      return {
        id: customer.id,
        name: customer.name,
        email: customer.email,
        status: customer.status,
        accountStatus: customer.accountStatus as 'Collection' | 'PoorStanding',
        balance: money(balances.arBalance).toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
        poorStandingSince: since?.toISOString() ?? null,
        daysToSuspension: since ? daysUntilSuspension(since, effectiveBillingSettings(setting, ctx.catalog), now) : null,
      };
    }),
  );
  // Most urgent first: the fewest days left (Collection, without a countdown, last).
  customers.sort((a, b) => (a.daysToSuspension ?? Infinity) - (b.daysToSuspension ?? Infinity) || a.id - b.id);
  return { customers };
}

async function requireCustomer(ctx: AppContext, operator: Operator, customerId: number) {
  if (!(await customerExists(ctx.db, operator.accountId, customerId))) throw Refusal.notFound('customer', customerId);
}

export async function customerAudit(
  ctx: AppContext,
  operator: Operator,
  customerId: number,
  page: { limit: number; offset: number },
): Promise<AuditResponse> {
  await requireCustomer(ctx, operator, customerId);
  const rows = await listCustomerAudit(ctx.db, operator.accountId, customerId, page);
  return {
    entries: rows.map((row) => ({
      id: row.id,
      at: new Date(row.createdAt).toISOString(),
      actor: row.actor,
      source: row.source,
      entityType: row.entityType,
      entityId: row.entityId,
      action: row.action,
      changes: typeof row.changes === 'string' ? JSON.parse(row.changes) : row.changes,
    })),
  };
}

export async function customerWebhookEvents(
  ctx: AppContext,
  operator: Operator,
  customerId: number,
  page: { limit: number; offset: number },
): Promise<CustomerEventsResponse> {
  await requireCustomer(ctx, operator, customerId);
  const { events, deliveries } = await listCustomerEvents(ctx.db, operator.accountId, customerId, page);
  return {
    events: events.map((event) => ({
      id: event.id,
      type: event.type,
      createdAt: new Date(event.createdAt).toISOString(),
      deliveries: deliveries
        .filter((d) => d.eventId === event.eventId)
        .map((d) => ({
          endpointId: d.endpointId,
          status: d.status,
          attempts: d.attempts,
          lastResponseStatus: d.lastResponseStatus,
          lastAttemptAt: d.lastAttemptAt ? new Date(d.lastAttemptAt).toISOString() : null,
        })),
    })),
  };
}

function toConsoleDelivery(row: DeliveryListRow): ConsoleDelivery {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    endpointId: row.endpointId,
    endpointUrl: row.endpointUrl,
    status: row.status,
    attempts: row.attempts,
    lastResponseStatus: row.lastResponseStatus,
    lastResponseBody: row.lastError,
    lastAttemptAt: row.lastAttemptAt ? new Date(row.lastAttemptAt).toISOString() : null,
    nextAttemptAt: row.status === 'Pending' ? new Date(row.nextAttemptAt).toISOString() : null,
  };
}

export async function webhookDeliveries(
  ctx: AppContext,
  operator: Operator,
  query: { status?: string; endpointId?: number; limit: number; offset: number },
): Promise<DeliveriesResponse> {
  const { rows, total } = await listDeliveries(ctx.db, operator.accountId, query);
  return { deliveries: rows.map(toConsoleDelivery), total };
}

/** Sends a delivery again now, through the webhooks domain (the table's owner), audited as the operator. */
export async function resendDelivery(ctx: AppContext, operator: Operator, id: number): Promise<{ delivery: ConsoleDelivery }> {
  await resendWebhookDelivery(ctx, callerOf(operator), id);
  const { rows } = await listDeliveries(ctx.db, operator.accountId, { id, limit: 1, offset: 0 });
  if (!rows[0]) throw Refusal.notFound('webhook delivery', id);
  return { delivery: toConsoleDelivery(rows[0]) };
}

export async function emails(
  ctx: AppContext,
  operator: Operator,
  query: { status?: string; limit: number; offset: number },
): Promise<EmailsResponse> {
  const { rows, total } = await listEmails(ctx.db, operator.accountId, query);
  return {
    emails: rows.map((row) => ({
      ...row,
      language: row.language ?? ctx.catalog.emails.defaultLanguage,
      createdAt: new Date(row.createdAt).toISOString(),
      sentAt: row.sentAt ? new Date(row.sentAt).toISOString() : null,
    })),
    total,
  };
}

/** The account's bulk payment jobs, newest first, each with its records counted by status (the API has no list). */
export async function bulkJobs(
  ctx: AppContext,
  operator: Operator,
  query: { status?: BulkJobStatus; limit: number; offset: number },
): Promise<BulkJobsResponse> {
  const { rows, total } = await listJobsWithCounts(ctx.db, operator.accountId, { ...query, countCap: COUNT_CAP });
  return {
    jobs: rows.map((row) => ({
      id: row.id,
      status: row.status,
      reference: row.reference ?? row.fileName,
      createdAt: new Date(row.createdAt).toISOString(),
      completedAt: row.completedAt ? new Date(row.completedAt).toISOString() : null,
      counts: row.counts,
    })),
    total,
  };
}
