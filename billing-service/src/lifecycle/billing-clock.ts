import { Refusal } from '../refusals/refusal.js';
import type { FastifyBaseLogger } from 'fastify';
import { PeriodicTask } from '../tasks/periodic-task.js';
import type { Queryable } from '../db/database.js';
import type { NotificationEvent } from '../outbox/notifications.js';
import { findCustomerRow } from '../customers/repository.js';
import type { AppContext } from '../app-context.js';
import { loadBillingContext, saveInvoices, utcDate, withPurchases } from '../invoices/billing-run.js';
import { purchasesInStatus } from '../purchases/repository.js';
import { accountStatusChanges } from '../ledger/account-status.js';
import { customerBalances } from '../ledger/balances.js';
import { isOverdue } from '../ledger/overdue.js';
import { markOverdueNotified } from '../invoices/repository.js';
import { markExpiryNotified } from '../payment-methods/repository.js';
import { findSubscriptionsOfCustomers, moveSubscriptionAnchors, skipToPeriodStarts } from '../subscriptions/repository.js';
import { usageChargesOf } from '../catalog/usage-charges-of.js';
import { cancelCustomer } from './cancellation.js';
import {
  customersDueForRenewal,
  customersWithDueInvoices,
  customersWithOverdueInvoices,
  cardsExpiringThisMonth,
  claimPeriodEndCancellations,
  periodEndCancellationsDue,
  releasePeriodEndCancellations,
  customersInStatus,
  overdueInvoicesNotNotified,
  ALL_ACCOUNTS,
  batchOf,
  type ClockScope,
  type CustomerRef,
} from './clock-repository.js';
import { wallClockNow } from '../clock/account-clock.js';
import { minorUnits, money } from '../money/money.js';
import { autoCancelDue, gracePeriodDays, suspensionDue } from '../customers/dunning.js';
import { lockCustomerFor, lockCustomerIn, TRANSITIONS, transitionCustomer } from './transitions.js';
import { collectDueBalance, systemCaller } from './collection.js';
import { applyPendingChanges } from './plan-change-at-renewal.js';
import { catchUpInvoices } from './unhold.js';
import { eachCandidate, eachCustomer, movedIds, type ClockFailure, type ClockStep } from './clock-steps.js';

/** What one tick of the clock did (customer ids), for logs and tests. */
export interface ClockTick {
  renewed: number[];
  /** Invoices whose customer was told they are overdue. */
  overdueNotices: number[];
  /** Cards whose customer was told they expire this month. */
  expiryNotices: number[];
  collected: number[];
  declined: number[];
  reactivated: number[];
  suspended: number[];
  cancelled: number[];
  /** Moves that failed for one customer (not refusals): the others went on; each is tried again next tick. */
  failures: ClockFailure[];
  /**
   * Another tick at the same time finds more to do: the period-end cancellations met their batch and carried some
   * out (every other move pages through all its candidates within the tick).
   */
  more: boolean;
}

/** The moves a tick counts (its lists of customer or invoice ids). */
export type ClockMove = Exclude<keyof ClockTick, 'failures' | 'more'>;

/**
 * Renewal: plan changes scheduled for the period end are applied, then every period that has started since an
 * Active subscription's last invoice is billed (one invoice per period; the Pending purchases on the first), posted when the customer's settings
 * say so, and available funds are applied. Under the customer's lock, and the
 * subscriptions move on in the same transaction, so no period is billed twice.
 */
async function renewCustomer(ctx: AppContext, ref: CustomerRef, now: Date): Promise<boolean> {
  const today = utcDate(now);
  const billUntil = usageGraceDay(ctx, now);
  return ctx.db.transaction().execute(async (trx) => {
    const caller = systemCaller(ref.accountId);
    const customer = await lockCustomerIn(trx, caller, ref.id, ['Active']);
    const dueSubscriptions = async () =>
      (await findSubscriptionsOfCustomers(trx, ref.accountId, [customer.id], ['Active'])).filter(
        (s) => s.nextPeriodStart !== null && s.nextPeriodStart <= billUntil(s),
      );
    let due = await dueSubscriptions();
    if (due.length === 0) return false;
    const frequencyBefore = new Map(due.map((s) => [s.id, s.planFrequencyId]));
    // Plan changes scheduled for this period end apply first: the renewal bills the new plan (nothing prorated).
    if ((await applyPendingChanges(ctx, trx, caller, due, today, now)).length > 0) due = await dueSubscriptions();
    const context = await loadBillingContext(trx, ctx.catalog, customer);
    const { rounds } = await catchUpInvoices(
      trx,
      ctx.catalog,
      context,
      due,
      { serviceStartOption: 'ChargeForAllMissedPeriods', prorate: false },
      now,
      { billUntil, frequencyBefore },
    );
    // the Pending purchases go on the renewal's first invoice, in its transaction: billed once
    const invoices = withPurchases(context, rounds.flat(), await purchasesInStatus(trx, customer.id, 'Pending'), today);
    await saveInvoices(trx, context, invoices, {
      post: context.settings.autoPostDraftInvoice,
      now,
      notifier: ctx.notifier,
      webhooks: ctx.webhooks,
    });
    for (const s of due) await ctx.webhooks?.subscription(trx, ref.accountId, customer.id, s.id, 'subscription.renewed', now);
    return true;
  });
}

/** The catalogue's metered plan frequencies and the day their grace window has ended by (see usageGraceDay). */
function meteredGrace(ctx: AppContext, now: Date): { planFrequencyIds: number[]; graceDay: string } {
  const planFrequencyIds = ctx.catalog.plans.flatMap((p) => p.frequencies.filter((f) => f.usageCharges.length > 0).map((f) => f.id));
  return { planFrequencyIds, graceDay: utcDate(new Date(now.getTime() - ctx.catalog.defaults.usageGraceMinutes * 60_000)) };
}

/**
 * Up to which day a subscription's periods are renewed now: today, or for a metered one (usage charges), the day
 * `usageGraceMinutes` ago (catalogue defaults): its renewal waits that long after the period ends, so events of the
 * period that arrive late (clients batch and retry) still land on its invoice (issue 41).
 */
function usageGraceDay(ctx: AppContext, now: Date): (s: { planFrequencyId: number }) => string {
  const today = utcDate(now);
  const graceDay = utcDate(new Date(now.getTime() - ctx.catalog.defaults.usageGraceMinutes * 60_000));
  return (s) => (usageChargesOf(ctx.catalog, s.planFrequencyId).length > 0 ? graceDay : today);
}

/**
 * Notices given once per subject (an invoice, a card): for each subject, its
 * "notified" mark and its e-mail commit together; a subject another instance
 * marked first is skipped. Nothing happens when e-mail is off.
 */
async function noticeOnce<S extends { id: number; accountId: number; customerId: number }>(
  ctx: AppContext,
  subjects: S[],
  mark: (trx: Queryable, id: number) => Promise<boolean>,
  event: (subject: S) => NotificationEvent,
  alsoInTransaction?: (trx: Queryable, subject: S) => Promise<void>,
): Promise<number[]> {
  const noticed: number[] = [];
  for (const subject of subjects) {
    const sent = await ctx.db.transaction().execute(async (trx) => {
      if (!(await mark(trx, subject.id))) return false;
      const customer = await findCustomerRow(trx, subject.accountId, subject.customerId);
      if (!customer) return false;
      await ctx.notifier?.enqueue(trx, customer, event(subject));
      await alsoInTransaction?.(trx, subject);
      return true;
    });
    if (sent) noticed.push(subject.id);
  }
  return noticed;
}

/** Tells the customer, once per invoice, that a posted invoice is overdue (its due date has passed) and unpaid. */
async function noticeOverdueInvoices(ctx: AppContext, now: Date, scope: ClockScope): Promise<number[]> {
  // Told once, by e-mail and by the invoice.overdue webhook, whichever the account has.
  return noticeOnce(
    ctx,
    await overdueInvoicesNotNotified(ctx.db, now, scope),
    (trx, id) => markOverdueNotified(trx, id, now),
    (invoice) => ({
      type: 'InvoiceOverdue',
      invoiceNumber: invoice.invoiceNumber,
      outstanding: money(invoice.openAmount).toFixed(minorUnits(invoice.currency)),
      currency: invoice.currency,
      dueDate: new Date(invoice.dueAt).toISOString().slice(0, 10),
    }),
    (trx, invoice) =>
      ctx.webhooks?.invoice(trx, invoice.accountId, invoice.customerId, invoice.id, 'invoice.overdue', now) ?? Promise.resolve(),
  );
}

/** Tells the customer, once per card, that a card in use expires at the end of this month. */
async function noticeExpiringCards(ctx: AppContext, now: Date, scope: ClockScope): Promise<number[]> {
  if (!ctx.notifier?.enabled) return [];
  return noticeOnce(
    ctx,
    await cardsExpiringThisMonth(ctx.db, now, scope),
    (trx, id) => markExpiryNotified(trx, id, now),
    (card) => ({
      type: 'CreditCardExpiry',
      cardBrand: card.cardBrand,
      lastFour: card.lastFour ?? '????',
      expirationMonth: card.expirationMonth ?? 12,
      expirationYear: card.expirationYear ?? 0,
    }),
  );
}

/** Suspended → Active once nothing overdue is left unpaid; billing resumes as the customer's service start option says (the clock, and a payment in the portal at once). */
export async function reactivateIfPaid(ctx: AppContext, ref: CustomerRef, now: Date): Promise<boolean> {
  return ctx.db.transaction().execute((trx) => reactivateIfPaidIn(ctx, trx, ref, now));
}

/**
 * reactivateIfPaid in the caller's transaction (issue 40: a write-off or a void that leaves nothing overdue reactivates
 * in the transaction that closed the invoice); `reason` for the audit entry. Refuses a customer not Suspended.
 */
export async function reactivateIfPaidIn(
  ctx: AppContext,
  trx: Queryable,
  ref: CustomerRef,
  now: Date,
  reason = 'overdue balance paid',
): Promise<boolean> {
  const caller = systemCaller(ref.accountId);
  const customer = await lockCustomerFor(trx, caller, ref.id, 'reactivate');
  const { oldestOpenInvoiceDueAt } = await customerBalances(trx, customer.id);
  if (oldestOpenInvoiceDueAt && isOverdue(oldestOpenInvoiceDueAt, now)) return false;
  const context = await loadBillingContext(trx, ctx.catalog, customer);
  const suspended = await findSubscriptionsOfCustomers(trx, ref.accountId, [customer.id], TRANSITIONS.reactivate.subscriptions.from);
  const option = context.settings.customerServiceStartOption;
  const { rounds, skipTo, anchorMoves } = await catchUpInvoices(
    trx,
    ctx.catalog,
    context,
    suspended,
    { serviceStartOption: option, prorate: false },
    now,
  );
  await moveSubscriptionAnchors(trx, anchorMoves);
  await transitionCustomer(ctx, trx, caller, customer, 'reactivate', now, { reason, serviceStartOption: option });
  await skipToPeriodStarts(trx, skipTo);
  await saveInvoices(trx, context, rounds.flat(), {
    post: context.settings.autoPostDraftInvoice,
    now,
    notifier: ctx.notifier,
    webhooks: ctx.webhooks,
  });
  return true;
}

/** Active → Suspended when the customer has stayed in PoorStanding beyond the grace period (the customer's, plus its extension). */
async function suspendIfOverdue(ctx: AppContext, ref: CustomerRef, now: Date): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    const caller = systemCaller(ref.accountId);
    const customer = await lockCustomerFor(trx, caller, ref.id, 'suspend');
    const { poorStandingSince } = await accountStatusChanges(trx, customer.id, now);
    if (!poorStandingSince) return false;
    const { settings } = await loadBillingContext(trx, ctx.catalog, customer);
    if (!suspensionDue(poorStandingSince, settings, now)) return false;
    const reason = `an invoice stayed overdue for ${gracePeriodDays(settings)} days`;
    await transitionCustomer(ctx, trx, caller, customer, 'suspend', now, (suspended) => ({
      reason,
      suspendedSubscriptions: suspended.map((s) => s.id),
    }));
    await ctx.notifier?.enqueue(trx, customer, { type: 'CustomerSuspend', overdueDays: gracePeriodDays(settings) });
    return true;
  });
}

/** Suspended → Cancelled `customerAutoCancel` days after the suspension (0: never), with the customer's default cancel option. */
async function cancelIfLongSuspended(ctx: AppContext, ref: CustomerRef, now: Date): Promise<boolean> {
  const customer = await findCustomerRow(ctx.db, ref.accountId, ref.id);
  if (!customer) return false;
  const { settings } = await loadBillingContext(ctx.db, ctx.catalog, customer);
  if (!autoCancelDue(customer, settings, now)) return false;
  await cancelCustomer(
    ctx,
    systemCaller(ref.accountId),
    { customerId: ref.id, cancellationOption: settings.defaultCancelOption },
    now,
    'autoCancel',
  );
  return true;
}

/**
 * Carries out the cancellations a customer asked for in the portal "at the end of the period" once that
 * period has ended, before anything renews it: the API's customer cancellation (cancelCustomer), with
 * option None (the period was served and paid in full), audited as the clock's. The API cancels customers,
 * not single subscriptions, so a customer is cancelled once every live subscription of theirs has a due
 * request; until then the requests wait. The requests are claimed first (one statement), so of instances
 * running the clock at once one carries them out; a failure gives the claim back for the next tick.
 */
async function carryOutPeriodEndCancellations(
  ctx: AppContext,
  today: string,
  now: Date,
  scope: ClockScope,
  failures: ClockFailure[],
): Promise<{ cancelled: number[]; more: boolean }> {
  const due = await periodEndCancellationsDue(ctx.db, today, scope);
  const byCustomer = new Map<number, typeof due>();
  for (const row of due) byCustomer.set(row.customerId, [...(byCustomer.get(row.customerId) ?? []), row]);
  const customers = [...byCustomer].map(([id, requests]) => ({ id, accountId: requests[0]?.accountId ?? 0, requests }));
  const cancelled = movedIds(await eachCustomer(customers, 'periodEndCancellation', failures, (c) => carryOutCancellation(ctx, c, now)));
  // Requests are taken by id, a batch at a time: a full batch that carried something out may have more behind it.
  return { cancelled, more: due.length >= batchOf(scope) && cancelled.length > 0 };
}

/** One customer's due period-end cancellation requests: carried out once every live subscription has one. */
async function carryOutCancellation(
  ctx: AppContext,
  { id: customerId, accountId, requests }: CustomerRef & { requests: Array<{ id: number; subscriptionId: number }> },
  now: Date,
): Promise<boolean> {
  const live = await findSubscriptionsOfCustomers(ctx.db, accountId, [customerId], ['Active', 'Suspended']);
  const requested = new Set(requests.map((r) => r.subscriptionId));
  if (live.some((s) => !requested.has(s.id))) return false;
  const claimed = await claimPeriodEndCancellations(
    ctx.db,
    requests.map((r) => r.id),
    now,
  );
  if (claimed.length === 0) return false;
  try {
    await cancelCustomer(ctx, systemCaller(accountId), { customerId, cancellationOption: 'None' }, now);
    return true;
  } catch (error) {
    // Refused (the customer moved on meanwhile, e.g. cancelled through the API): nothing left to carry out.
    if (error instanceof Refusal) return false;
    await releasePeriodEndCancellations(ctx.db, claimed, now);
    throw error;
  }
}

/**
 * One tick of the billing clock: the moves the system makes on its own, in this
 * order: carry out portal cancellations whose period ended, renew what is due, collect what is owed, lift suspensions that were paid,
 * suspend what stayed overdue past the grace period, cancel what stayed suspended.
 * Every move re-checks its condition under the customer's lock, so instances
 * running the clock at once on one database do each move once. `scope` limits
 * the tick to some accounts (see ClockScope; a test clock's advance uses it).
 */
export async function runBillingClock(ctx: AppContext, now = wallClockNow(), scope: ClockScope = ALL_ACCOUNTS): Promise<ClockTick> {
  const today = utcDate(now);
  const failures: ClockFailure[] = [];
  const periodEnd = await carryOutPeriodEndCancellations(ctx, today, now, scope, failures);
  const every = <R>(
    step: ClockStep,
    candidates: (page: ClockScope) => Promise<CustomerRef[]>,
    move: (customer: CustomerRef) => Promise<R>,
  ) => eachCandidate(scope, candidates, step, failures, move);
  const metered = meteredGrace(ctx, now);
  const renewed = movedIds(
    await every(
      'renewal',
      (page) => customersDueForRenewal(ctx.db, today, page, metered),
      (c) => renewCustomer(ctx, c, now),
    ),
  );
  const owing = (page: ClockScope) => customersWithDueInvoices(ctx.db, now, ['Active', 'Suspended'], page);
  const collections = await every('collection', owing, (c) => collectDueBalance(ctx, c, now));
  const collected = collections.filter((c) => c.outcome === 'collected').map((c) => c.customer.id);
  const declined = collections.filter((c) => c.outcome === 'declined').map((c) => c.customer.id);
  const overdueNotices = await noticeOverdueInvoices(ctx, now, scope);
  const expiryNotices = await noticeExpiringCards(ctx, now, scope);
  const suspendedOnes = (page: ClockScope) => customersInStatus(ctx.db, TRANSITIONS.reactivate.from, page);
  const reactivated = movedIds(await every('reactivation', suspendedOnes, (c) => reactivateIfPaid(ctx, c, now)));
  const overdue = (page: ClockScope) => customersWithOverdueInvoices(ctx.db, now, TRANSITIONS.suspend.from, page);
  const suspended = movedIds(await every('suspension', overdue, (c) => suspendIfOverdue(ctx, c, now)));
  const longSuspended = (page: ClockScope) => customersInStatus(ctx.db, TRANSITIONS.autoCancel.from, page);
  const cancelled = movedIds(await every('autoCancel', longSuspended, (c) => cancelIfLongSuspended(ctx, c, now)));
  return {
    renewed,
    overdueNotices,
    expiryNotices,
    collected,
    declined,
    reactivated,
    suspended,
    cancelled: [...periodEnd.cancelled, ...cancelled],
    failures,
    more: periodEnd.more,
  };
}

/**
 * Runs the billing clock every `intervalMs` in the background (the billing API starts one). A tick that says there is
 * more (ClockTick.more) runs again at once, for up to half the interval.
 */
export function billingClockTask(ctx: AppContext, log: FastifyBaseLogger, intervalMs: number): PeriodicTask {
  const task: PeriodicTask = new PeriodicTask(
    'billing clock',
    intervalMs,
    async () => {
      const until = performance.now() + intervalMs / 2;
      let tick: ClockTick;
      do {
        // Accounts whose test clock stands still are moved by their advances only.
        tick = await runBillingClock(ctx, wallClockNow(), ctx.clock.testClocks ? { kind: 'realTimeAccounts' } : ALL_ACCOUNTS);
        const { failures, more: _, ...moves } = tick;
        if (Object.values(moves).some((ids) => ids.length > 0)) log.info({ billingClock: moves }, 'billing clock');
        for (const failure of failures)
          log.error(
            { billingClockFailure: failure },
            `billing clock: the ${failure.step} of a customer failed; it is tried again next tick`,
          );
      } while (tick.more && !task.stopped && performance.now() < until);
    },
    log,
  );
  return task;
}
