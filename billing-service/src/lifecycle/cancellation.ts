import type { CustomerResponse } from '../customers/schemas.js';
import { getCustomer } from '../customers/service.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { ApiError } from '../http/errors.js';
import { computeCustomerInvoices, loadBillingContext, saveInvoices, utcDate } from '../invoices/billing-run.js';
import { ruleFor, type BillingPeriodRule, type DraftInvoice } from '../invoices/engine/index.js';
import type { CustomerRow } from '../db/schema.js';
import { findSubscriptionsOfCustomers, type SubscriptionWithPlan } from '../subscriptions/repository.js';
import { transitionCustomer } from './transitions.js';
import { creditReversals, reversibleAmounts } from './reversals.js';
import { anchorDayOf, catchUpInvoices } from './unhold.js';
import { CANCELLATION_OPTIONS, type CancellationInput } from './schemas.js';
import { transactionWithRetry } from '../db/conflict-retry.js';

const OPTIONS_MESSAGE = `allowable options are ${CANCELLATION_OPTIONS.join(', ')}`;

/**
 * Any status but Cancelled → Cancelled (the billing clock's auto-cancel: Suspended only); subscriptions
 * are cancelled with the same option.
 */
export async function cancelCustomer(ctx: AppContext, caller: Caller, input: CancellationInput, now?: Date, transition: 'cancel' | 'autoCancel' = 'cancel'): Promise<void> {
  now ??= await ctx.clock.now(caller.accountId);
  const option = CANCELLATION_OPTIONS.find((o) => typeof input.cancellationOption === 'string' && o.toLowerCase() === input.cancellationOption.toLowerCase());
  if (!option) throw ApiError.badRequest(OPTIONS_MESSAGE);
  await transactionWithRetry(ctx.db, async (trx) => {
    const { customer, moved: cancelled } = await transitionCustomer(
      ctx,
      trx,
      caller,
      input.customerId,
      transition,
      now,
      async (moved, locked) => {
        const credit = await creditReversals(trx, caller, locked, moved.map((s) => s.id), option, now, `${option} reversal on cancellation`);
        return { cancellationOption: option, credit: credit.toString() };
      },
      { cancellationOption: option },
    );
    // Draft subscriptions never started: only the ones the customer had are announced.
    const ended = cancelled.filter((s) => s.activatedAt !== null).map((s) => s.name);
    if (ended.length > 0) await ctx.notifier?.enqueue(trx, customer, { type: 'SubscriptionCancellation', subscriptions: ended });
  });
}

/**
 * Cancelled → Active; the subscriptions cancelled with the customer come back with it, and are
 * billed from the day service comes back (billForReturnedService).
 */
export async function uncancelCustomer(ctx: AppContext, caller: Caller, customerId: number, now?: Date): Promise<CustomerResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  await transactionWithRetry(ctx.db, async (trx) => {
    const { customer, moved: revived } = await transitionCustomer(ctx, trx, caller, customerId, 'uncancel', now);
    await billForReturnedService(ctx, trx, caller, customer, revived.map((r) => r.id), now);
  });
  return getCustomer(ctx, caller, customerId);
}

/**
 * Billing after uncancel resumes on the day service comes back; the time spent cancelled is never billed:
 * - periods that started while cancelled: only the one running today is billed, from today when the plan
 *   frequency is prorated (in full otherwise); the ones before it are skipped;
 * - the period running today was billed before the cancellation: if the cancellation credited the rest of
 *   it (Unearned, Full), the days from today to its end are served again, so they are billed again,
 *   prorated (taking back that part of the credit, once); if nothing was credited (None), they are paid.
 * Credits for days that stay unserved (from the cancellation to today) stay.
 */
async function billForReturnedService(ctx: AppContext, trx: Queryable, caller: Caller, customer: CustomerRow, subscriptionIds: number[], now: Date) {
  if (subscriptionIds.length === 0) return;
  const today = utcDate(now);
  const context = await loadBillingContext(trx, ctx.catalog, customer);
  const revived = (await findSubscriptionsOfCustomers(trx, caller.accountId, [customer.id], ['Active'])).filter((s) => subscriptionIds.includes(s.id));
  // Per invoice covering today: what of today's rest is still paid for (0 once credited).
  const paidRest = await reversibleAmounts(trx, subscriptionIds, 'Unearned', today, customer.currency);
  const restarted = { prorated: [] as SubscriptionWithPlan[], whole: [] as SubscriptionWithPlan[] };
  const drafts: DraftInvoice[] = [];
  for (const s of revived) {
    if (s.nextPeriodStart !== null && s.nextPeriodStart <= today) {
      restarted[s.isProrated ? 'prorated' : 'whole'].push(s);
      continue;
    }
    const covering = paidRest.filter((r) => r.periods.some((p) => p.subscriptionId === s.id));
    if (covering.length === 0 || !covering.every((r) => r.amount.isZero())) continue;
    // Credited: today to the end of the period running today (the next period's start) is billed
    // again, prorated over that period: its billing day is the subscription's anchor day.
    const [, endMonth] = s.nextPeriodStart!.split('-').map(Number) as [number, number, number];
    const own = ruleFor(s.interval, context.billingPeriods);
    const day = anchorDayOf(s) ?? Number(s.nextPeriodStart!.slice(8, 10));
    const rule: BillingPeriodRule = own.type === 'SpecifiedDate' ? own : { type: 'SpecifiedDate', rule: 'SingleInvoice', day, month: s.interval === 'Yearly' ? endMonth : null };
    drafts.push(
      ...(await computeCustomerInvoices(trx, ctx.catalog, context, [{ subscription: s, periodStart: today, isFirstInvoice: false, prorate: true }], {
        effectiveDate: today,
        billingPeriods: { [s.interval]: rule },
      })),
    );
  }
  for (const [group, prorate] of [[restarted.prorated, true], [restarted.whole, false]] as const) {
    if (group.length === 0) continue;
    const { rounds } = await catchUpInvoices(trx, ctx.catalog, context, group, { serviceStartOption: 'ChargeForLastMissedPeriods', prorate }, now);
    drafts.push(...rounds.flat());
  }
  await saveInvoices(trx, context, drafts, { post: context.settings.autoPostDraftInvoice, now, notifier: ctx.notifier, webhooks: ctx.webhooks });
}
