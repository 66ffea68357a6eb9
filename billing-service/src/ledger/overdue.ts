import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * When an invoice is overdue: once its due date has passed, that is from 00:00 UTC (the billing
 * calendar's time zone) of the day after its due date, on the account's clock. Due dates are
 * calendar days (stored as 00:00 UTC of that day): a Net0 invoice is due, not overdue, all of the
 * day it is posted. The account status (PoorStanding), the overdue notice (e-mail and webhook),
 * the dunning countdown, suspension and reactivation all read this one rule. Automatic collection
 * charges what is due (due date on or before today), which is not the same question.
 */

const DAY_MS = 86_400_000;

function startOfUtcDay(at: Date): number {
  return Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
}

/** Invoices due before this instant are overdue at `now`: 00:00 UTC of `now`'s day. */
export function overdueCutoff(now: Date): Date {
  return new Date(startOfUtcDay(now));
}

/** The first instant an invoice due at `dueAt` is overdue: 00:00 UTC of the day after its due date. */
export function overdueFrom(dueAt: Date): Date {
  return new Date(startOfUtcDay(dueAt) + DAY_MS);
}

/** Whether an invoice due at `dueAt` is overdue at `now` (the account's time). */
export function isOverdue(dueAt: Date, now: Date): boolean {
  return dueAt.getTime() < overdueCutoff(now).getTime();
}

/**
 * isOverdue as SQL, on a due-date column (`ledgerEntries.dueAt`, `le.dueAt`). The cutoff is worked
 * out in SQL from `now` itself, so that a query compiled once (db/reusable-query.ts) can bind it.
 */
export function isOverdueSql(dueAtColumn: string, now: Date): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(dueAtColumn)} < date_trunc('day', ${now}::timestamptz, 'UTC')`;
}
