import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import type { CustomerResponse } from '../customers/schemas.js';
import { getCustomer } from '../customers/service.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { loadBillingContext, saveInvoices, utcDate, type PeriodToBill } from '../invoices/billing-run.js';
import type { CustomerRow } from '../db/schema.js';
import { findSubscriptionsOfCustomers, type SubscriptionWithPlan } from '../subscriptions/repository.js';
import { lockCustomerFor, transitionCustomer } from './transitions.js';
import { creditReversals } from './reversals.js';
import { recurringChargesRunningOn } from '../invoices/repository.js';
import { money } from '../money/money.js';
import { restOfRunningPeriod } from '../invoices/subscription-periods.js';
import { billRounds, planCatchUp } from './unhold.js';
import { CANCELLATION_OPTIONS, type CancellationInput } from './schemas.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import { billFinalUsage } from './final-usage.js';

const OPTIONS_MESSAGE = `allowable options are ${CANCELLATION_OPTIONS.join(', ')}`;

/**
 * Any status but Cancelled → Cancelled (the billing clock's auto-cancel: Suspended only); subscriptions
 * are cancelled with the same option.
 */
export async function cancelCustomer(
  ctx: AppContext,
  caller: Caller,
  input: CancellationInput,
  now?: Date,
  transition: 'cancel' | 'autoCancel' = 'cancel',
): Promise<void> {
  now ??= await ctx.clock.now(caller.accountId);
  const option = CANCELLATION_OPTIONS.find(
    (o) => typeof input.cancellationOption === 'string' && o.toLowerCase() === input.cancellationOption.toLowerCase(),
  );
  if (!option) throw Refusal.invalid(OPTIONS_MESSAGE, API_ERROR_KEY, 'value_invalid');
  await transactionWithRetry(ctx.db, async (trx) => {
    const { customer, moved: cancelled } = await transitionCustomer(
      ctx,
      trx,
      caller,
      input.customerId,
      transition,
      now,
      async (moved, locked) => {
        const credit = await creditReversals(
          trx,
          caller,
          locked,
          moved.map((s) => s.id),
          option,
          now,
          `${option} reversal on cancellation`,
        );
        return { cancellationOption: option, credit: credit.toString() };
      },
      { cancellationOption: option },
    );
    // the usage of the period cut short is billed now (issue 41): nothing else would bill it
    await billFinalUsage(ctx, trx, customer, cancelled, now);
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
    const locked = await lockCustomerFor(trx, caller, customerId, 'uncancel');
    // Read before the uncancel clears it: how each was cancelled decides what is billed again.
    const cancelled = await findSubscriptionsOfCustomers(trx, caller.accountId, [locked.id], ['Cancelled']);
    const { customer, moved: revived } = await transitionCustomer(ctx, trx, caller, locked, 'uncancel', now);
    const revivedIds = new Set(revived.map((r) => r.id));
    await billForReturnedService(
      ctx,
      trx,
      customer,
      cancelled.filter((s) => revivedIds.has(s.id)),
      now,
    );
  });
  return getCustomer(ctx, caller, customerId);
}

/**
 * Billing after uncancel resumes on the day service comes back; the time spent cancelled is never billed:
 * - periods that started while cancelled: only the one running today is billed, from today when the plan
 *   frequency is prorated (in full otherwise); the ones before it are skipped;
 * - the period running today was billed before the cancellation: if the cancellation credited the rest of
 *   it (Unearned, Full, and the rest was worth something), the days from today to its end are served again,
 *   so they are billed again, prorated (taking back that part of the credit, once); if nothing was credited
 *   (None, a rest worth nothing: a 100 % coupon, a rest that rounds to 0, a rest billed again before that
 *   came to nothing, or a period whose invoice is still a Draft: drafts are never credited), they are paid
 *   or still to be posted, and nothing is billed; if the invoice that last billed it was voided (issue 40), the
 *   period counts as not billed, and its rest is billed as a credited rest is; if it was written off, it was billed.
 * Either way a rest runs to the end of the period running today on the subscription's grid of periods.
 * Credits for days that stay unserved (from the cancellation to today) stay. One computation for all the
 * subscriptions, so a SingleInvoice customer gets one invoice.
 */
async function billForReturnedService(ctx: AppContext, trx: Queryable, customer: CustomerRow, revived: SubscriptionWithPlan[], now: Date) {
  if (revived.length === 0) return;
  const today = utcDate(now);
  const context = await loadBillingContext(trx, ctx.catalog, customer);
  const ids = revived.map((s) => s.id);
  const billed = await recurringChargesRunningOn(trx, ids, today, ['Posted', 'Void', 'WrittenOff']);
  const periods: PeriodToBill[] = [];
  for (const s of revived) {
    if (s.nextPeriodStart !== null && s.nextPeriodStart <= today) {
      periods.push(
        ...planCatchUp([s], today, context.billingPeriods, {
          serviceStartOption: 'ChargeForLastMissedPeriods',
          prorate: s.isProrated,
        }).rounds.flat(),
      );
      continue;
    }
    if (restIsUnbilled(s, billed)) periods.push(restOfRunningPeriod(s, today, context.billingPeriods));
  }
  const drafts = (await billRounds(trx, ctx.catalog, context, [periods], today)).flat();
  await saveInvoices(trx, context, drafts, {
    post: context.settings.autoPostDraftInvoice,
    now,
    notifier: ctx.notifier,
    webhooks: ctx.webhooks,
  });
}

type BilledLines = Awaited<ReturnType<typeof recurringChargesRunningOn>>;

/**
 * Whether the rest of the period running today for `s` stands unbilled, so an uncancel bills it again. The line
 * that decides is the last one billed for that period (posted, running today, from the subscription's current
 * period start; earlier lines were credited and billed again since; a Draft's line is not among them, nor a
 * period an unhold with ChargeForCurrentFullPeriod replaced):
 * - on a voided invoice (issue 40): the period counts as not billed;
 * - on a written-off invoice: billed (the merchant gave up collecting it, the service was billed), so not again;
 * - on a standing invoice: unbilled if the cancellation credited its rest (Unearned or Full, and the rest was
 *   worth something).
 */
function restIsUnbilled(s: SubscriptionWithPlan, billed: BilledLines): boolean {
  const ofPeriod = billed.filter(
    (line) => Number(line.subscriptionId) === s.id && (s.currentPeriodStart === null || line.startServiceDate >= s.currentPeriodStart),
  );
  const last = ofPeriod[ofPeriod.length - 1];
  if (last === undefined) return false;
  if (last.invoiceStatus === 'Void') return true;
  if (last.invoiceStatus !== 'Posted') return false;
  const reversing = s.cancellationOption === 'Unearned' || s.cancellationOption === 'Full';
  return reversing && money(last.creditedAmount).greaterThan(0);
}
