import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Queryable } from '../db/database.js';
import { isOverdueSql } from '../ledger/overdue.js';

export interface CustomerRef {
  id: number;
  accountId: number;
}

/** The most customers one query of a tick takes (a tick that meets it runs again: tickWasFull). */
export const CLOCK_BATCH = 500;

/**
 * Which accounts one tick of the billing clock acts on: all of them; all but those
 * whose test clock stands still (the background clock: only an advance moves
 * those); or one account (an advance of its test clock). `batch`: how many a query
 * takes (CLOCK_BATCH unless a test wants a small one); `after`: the page after this
 * customer id (a tick pages through every candidate: clock-steps.ts eachCandidate).
 */
export type ClockScope = ({ kind: 'all' } | { kind: 'realTimeAccounts' } | { kind: 'account'; accountId: number }) & {
  batch?: number;
  after?: number;
};

/** How many customers (or requests) one query of a tick in `scope` takes. */
export const batchOf = (scope: ClockScope): number => scope.batch ?? CLOCK_BATCH;

export const ALL_ACCOUNTS: ClockScope = { kind: 'all' };

/** The scope as a condition on `customers` (every query below joins it), past the page cursor when there is one. */
function inScope(scope: ClockScope): RawBuilder<SqlBool> {
  const page = scope.after === undefined ? sql<SqlBool>`true` : sql<SqlBool>`customers.id > ${scope.after}`;
  switch (scope.kind) {
    case 'all':
      return page;
    case 'realTimeAccounts':
      return sql<SqlBool>`${page} and not exists (select 1 from account_clocks ac where ac.account_id = customers.account_id)`;
    case 'account':
      return sql<SqlBool>`${page} and customers.account_id = ${scope.accountId}`;
  }
}

/** Active customers with an Active subscription whose next period has started. */
export function customersDueForRenewal(
  db: Queryable,
  today: string,
  scope: ClockScope,
  /** Metered plan frequencies (issue 41) renew only once their grace window ended: by `graceDay`, not today. */
  metered: { planFrequencyIds: number[]; graceDay: string } = { planFrequencyIds: [], graceDay: today },
): Promise<CustomerRef[]> {
  const { planFrequencyIds, graceDay } = metered;
  return db
    .selectFrom('customers')
    .select(['customers.id', 'customers.accountId'])
    .where(inScope(scope))
    .where('customers.status', '=', 'Active')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('subscriptions')
          .select('subscriptions.id')
          .whereRef('subscriptions.customerId', '=', 'customers.id')
          .where('subscriptions.status', '=', 'Active')
          // a customer whose only due subscriptions wait out their grace is not taken: it would fill the batch for nothing
          .where((eb) =>
            planFrequencyIds.length === 0
              ? eb('subscriptions.nextPeriodStart', '<=', today)
              : eb.or([
                  eb.and([
                    eb('subscriptions.planFrequencyId', 'not in', planFrequencyIds),
                    eb('subscriptions.nextPeriodStart', '<=', today),
                  ]),
                  eb.and([
                    eb('subscriptions.planFrequencyId', 'in', planFrequencyIds),
                    eb('subscriptions.nextPeriodStart', '<=', graceDay),
                  ]),
                ]),
          ),
      ),
    )
    .orderBy('customers.id')
    .limit(batchOf(scope))
    .execute();
}

/** Customers in these statuses with a posted invoice due by `now` (due date on or before today) and still open: candidates for automatic collection. */
export function customersWithDueInvoices(db: Queryable, now: Date, statuses: readonly string[], scope: ClockScope): Promise<CustomerRef[]> {
  return customersWithOpenInvoices(db, statuses, scope, sql<SqlBool>`${sql.ref('ledgerEntries.dueAt')} <= ${now}`);
}

/** Customers in these statuses with a posted invoice overdue at `now` and still open (PoorStanding): candidates for suspension. */
export function customersWithOverdueInvoices(
  db: Queryable,
  now: Date,
  statuses: readonly string[],
  scope: ClockScope,
): Promise<CustomerRef[]> {
  return customersWithOpenInvoices(db, statuses, scope, isOverdueSql('ledgerEntries.dueAt', now));
}

/** Customers in these statuses with a posted invoice still open that meets `dueCondition` (on `ledgerEntries.dueAt`). */
function customersWithOpenInvoices(
  db: Queryable,
  statuses: readonly string[],
  scope: ClockScope,
  dueCondition: RawBuilder<SqlBool>,
): Promise<CustomerRef[]> {
  return db
    .selectFrom('customers')
    .select(['customers.id', 'customers.accountId'])
    .where(inScope(scope))
    .where('customers.status', 'in', statuses)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('ledgerEntries')
          .select('ledgerEntries.id')
          .whereRef('ledgerEntries.customerId', '=', 'customers.id')
          .where('ledgerEntries.entryType', '=', 'invoice')
          .where('ledgerEntries.openAmount', '>', '0')
          .where(dueCondition),
      ),
    )
    .orderBy('customers.id')
    .limit(batchOf(scope))
    .execute();
}

/** Customers in these statuses (those a transition of the billing clock starts from). */
export function customersInStatus(db: Queryable, statuses: readonly string[], scope: ClockScope): Promise<CustomerRef[]> {
  return db
    .selectFrom('customers')
    .select(['id', 'accountId'])
    .where(inScope(scope))
    .where('status', 'in', statuses)
    .orderBy('id')
    .limit(batchOf(scope))
    .execute();
}

/**
 * Claims today's automatic collection attempt with a card for a customer: false when it was already made (here or by
 * another instance). One per card: a new default card is tried the day it arrives.
 */
export async function claimCollectionAttempt(
  db: Queryable,
  customerId: number,
  today: string,
  paymentMethodId: number,
  claimedBy: 'clock' | 'portal' = 'clock',
): Promise<boolean> {
  const rows = await db
    .insertInto('autoCollectionAttempts')
    .values({ customerId, attemptDate: today, paymentMethodId, claimedBy })
    .onConflict((oc) => oc.doNothing())
    .returning('customerId')
    .execute();
  return rows.length === 1;
}

/** Who took a card's attempt of the day, and when (wall clock): the portal's check for a charge of the clock in flight. */
export function findCollectionAttempt(db: Queryable, customerId: number, today: string, paymentMethodId: number) {
  return db
    .selectFrom('autoCollectionAttempts')
    .select(['claimedBy', 'createdAt'])
    .where('customerId', '=', customerId)
    .where('attemptDate', '=', today)
    .where('paymentMethodId', '=', paymentMethodId)
    .executeTakeFirst();
}

/** Posted invoices of Active or Suspended customers, unpaid and overdue (ledger/overdue.ts), whose customer was not told yet. */
export function overdueInvoicesNotNotified(db: Queryable, now: Date, scope: ClockScope) {
  return db
    .selectFrom('invoices')
    .innerJoin('ledgerEntries', (join) =>
      join.onRef('ledgerEntries.invoiceId', '=', 'invoices.id').on('ledgerEntries.entryType', '=', 'invoice'),
    )
    .innerJoin('customers', 'customers.id', 'invoices.customerId')
    .select([
      'invoices.id',
      'invoices.customerId',
      'invoices.accountId',
      'invoices.invoiceNumber',
      'invoices.currency',
      'invoices.dueAt',
      'ledgerEntries.openAmount',
    ])
    .where(inScope(scope))
    .where('invoices.status', '=', 'Posted')
    .where('invoices.overdueNotifiedAt', 'is', null)
    .where('ledgerEntries.openAmount', '>', '0')
    .where(isOverdueSql('ledgerEntries.dueAt', now))
    .where('customers.status', 'in', ['Active', 'Suspended'])
    .orderBy('invoices.id')
    .limit(500)
    .execute();
}

/** Cards in use (not removed) of Active or Suspended customers that expire at the end of this month, whose customer was not told yet. */
export function cardsExpiringThisMonth(db: Queryable, now: Date, scope: ClockScope) {
  return db
    .selectFrom('paymentMethods')
    .innerJoin('customers', 'customers.id', 'paymentMethods.customerId')
    .select([
      'paymentMethods.id',
      'paymentMethods.customerId',
      'paymentMethods.accountId',
      'paymentMethods.cardBrand',
      'paymentMethods.lastFour',
      'paymentMethods.expirationMonth',
      'paymentMethods.expirationYear',
    ])
    .where(inScope(scope))
    .where('paymentMethods.removedAt', 'is', null)
    .where('paymentMethods.expiryNotifiedAt', 'is', null)
    .where('paymentMethods.expirationYear', '=', now.getUTCFullYear())
    .where('paymentMethods.expirationMonth', '=', now.getUTCMonth() + 1)
    .where('customers.status', 'in', ['Active', 'Suspended'])
    .orderBy('paymentMethods.id')
    .limit(500)
    .execute();
}

/**
 * Cancellations customers asked for in the portal at the end of a period (portal_cancellations, mode periodEnd)
 * whose period has ended by `today`, not withdrawn and not yet carried out, of Active or Suspended customers.
 */
export function periodEndCancellationsDue(db: Queryable, today: string, scope: ClockScope) {
  return db
    .selectFrom('portalCancellations')
    .innerJoin('customers', 'customers.id', 'portalCancellations.customerId')
    .select([
      'portalCancellations.id',
      'portalCancellations.customerId',
      'portalCancellations.accountId',
      'portalCancellations.subscriptionId',
    ])
    .where(inScope(scope))
    .where('customers.status', 'in', ['Active', 'Suspended'])
    .where('portalCancellations.mode', '=', 'periodEnd')
    .where('portalCancellations.effectiveOn', '<=', today)
    .where('portalCancellations.withdrawnAt', 'is', null)
    .where('portalCancellations.carriedOutAt', 'is', null)
    .orderBy('portalCancellations.id')
    .limit(batchOf(scope))
    .execute();
}

/** Claims these requests for carrying out (one statement: of instances racing, one gets each); the ids it got. */
export async function claimPeriodEndCancellations(db: Queryable, ids: number[], now: Date): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('portalCancellations')
    .set({ carriedOutAt: now })
    .where('id', 'in', ids)
    .where('carriedOutAt', 'is', null)
    .where('withdrawnAt', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Gives back a claim whose cancellation did not happen (a failure, not a refusal): the next tick tries again. */
export async function releasePeriodEndCancellations(db: Queryable, ids: number[], claimedAt: Date): Promise<void> {
  if (ids.length > 0)
    await db
      .updateTable('portalCancellations')
      .set({ carriedOutAt: null })
      .where('id', 'in', ids)
      .where('carriedOutAt', '=', claimedAt)
      .execute();
}
