import { getCustomer } from '../customers/service.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { computeCustomerInvoices, loadBillingContext, saveInvoices, utcDate, type BillingContext, type PeriodToBill } from '../invoices/billing-run.js';
import { nextPeriodStart, ruleFor, type BillingPeriodRule, type DraftInvoice } from '../invoices/engine/index.js';
import { toInvoicePreview } from '../invoices/service.js';
import type { Queryable } from '../db/database.js';
import type { Catalog } from '../catalog/schema.js';
import { findSubscriptionsOfCustomers, moveSubscriptionAnchors, skipToPeriodStarts, type SubscriptionWithPlan } from '../subscriptions/repository.js';
import { creditReversals } from './reversals.js';
import { lockCustomerFor, TRANSITIONS, transitionCustomer } from './transitions.js';
import type { LifecycleResponse, UnholdInput } from './schemas.js';
import { transactionWithRetry } from '../db/conflict-retry.js';

/**
 * The day of the month a subscription's periods fall on: the stored one once
 * the anniversary moved (ChargeForCurrentFullPeriod starts a new period on the
 * day of the unhold), else its activation day, else the day of its current or
 * next period start. A day is kept only if the next period start fits it (that day, or
 * clamped to the end of a shorter month), as the engine requires.
 */
export function anchorDayOf(s: SubscriptionWithPlan): number | null {
  // Stored once it moved: from dates alone a moved anchor is ambiguous at month ends.
  if (s.anchorDay !== null) return s.anchorDay;
  const activated = s.activatedAt ? s.activatedAt.getUTCDate() : null;
  if (!s.nextPeriodStart) return activated;
  const [year, month, next] = s.nextPeriodStart.split('-').map(Number) as [number, number, number];
  const endOfMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const current = s.currentPeriodStart ? Number(s.currentPeriodStart.slice(8, 10)) : null;
  const fits = (day: number | null): day is number => day !== null && (day === next || (day > next && next === endOfMonth));
  return [activated, current].find(fits) ?? next;
}

/**
 * The period starts a subscription missed while on hold: from its next period
 * start up to today, period after period under the customer's billing period
 * rule for its interval (the rule its invoices are computed with).
 */
export function missedPeriodStarts(s: SubscriptionWithPlan, today: string, rule?: BillingPeriodRule): { missed: string[]; firstFuture: string } {
  const anchorDay = anchorDayOf(s);
  const missed: string[] = [];
  let start = s.nextPeriodStart ?? today;
  while (start <= today && missed.length < 1000) {
    missed.push(start);
    start = nextPeriodStart(start, s.interval, s.numberOfIntervals, rule, anchorDay);
  }
  return { missed, firstFuture: start };
}

/**
 * What to bill on return, per the service start option:
 * - ChargeForAllMissedPeriods: every missed period, one invoice per period;
 * - ChargeForLastMissedPeriods: only the latest (the one running today);
 * - NoChargesForMissedPeriods: nothing now; billing resumes at the first period start after today;
 * - ChargeForCurrentFullPeriod: a full new period from today (the anniversary moves to today).
 * With `prorate`, the period running today is charged only from today to its end.
 * The billing clock renews with ChargeForAllMissedPeriods: every period started since the last.
 */
export async function catchUpInvoices(
  db: Queryable,
  catalog: Catalog,
  context: BillingContext,
  subscriptions: SubscriptionWithPlan[],
  input: Pick<UnholdInput, 'serviceStartOption' | 'prorate' | 'showZeroDollarCharges'>,
  now: Date,
): Promise<{ rounds: DraftInvoice[][]; skipTo: Array<{ id: number; nextPeriodStart: string }>; anchorMoves: Array<{ id: number; anchorDay: number }> }> {
  const today = utcDate(now);
  const rounds: PeriodToBill[][] = [];
  const skipTo: Array<{ id: number; nextPeriodStart: string }> = [];
  const anchorMoves: Array<{ id: number; anchorDay: number }> = [];
  const prorateToday = new Map<number, string>();
  for (const s of subscriptions) {
    const { missed, firstFuture } = missedPeriodStarts(s, today, ruleFor(s.interval, context.billingPeriods));
    const anchorDay = anchorDayOf(s);
    let starts: string[] = [];
    if (input.serviceStartOption === 'ChargeForAllMissedPeriods') starts = missed;
    if (input.serviceStartOption === 'ChargeForLastMissedPeriods') starts = missed.slice(-1);
    if (input.serviceStartOption === 'NoChargesForMissedPeriods') skipTo.push({ id: s.id, nextPeriodStart: firstFuture });
    if (input.serviceStartOption === 'ChargeForCurrentFullPeriod') {
      rounds[0] = [...(rounds[0] ?? []), { subscription: s, periodStart: today, isFirstInvoice: false, anchorDay: now.getUTCDate() }];
      anchorMoves.push({ id: s.id, anchorDay: now.getUTCDate() });
      continue;
    }
    starts.forEach((start, i) => {
      const current = i === starts.length - 1 && input.prorate && start < today;
      if (current) prorateToday.set(s.id, start);
      rounds[i] = [...(rounds[i] ?? []), { subscription: s, periodStart: current ? today : start, isFirstInvoice: false, anchorDay, prorate: current || undefined }];
    });
  }
  const invoices: DraftInvoice[][] = [];
  // Coupons applied in earlier rounds count, though not saved yet: a coupon for three periods covers three at most.
  const couponUses = new Map<number, Record<string, number>>();
  for (const round of rounds) {
    const periods = round.map((p) => ({ ...p, couponUses: { ...couponUses.get(p.subscription.id) } }));
    const prorated = periods.filter((p) => p.prorate);
    const full = periods.filter((p) => !p.prorate);
    const computed = await computeCustomerInvoices(db, catalog, context, full, { effectiveDate: today, showZeroDollarCharges: input.showZeroDollarCharges ?? undefined });
    // A prorated current period ends where it would have: its billing day as a specified date
    // (the customer's own when it bills on a specified date).
    for (const p of prorated) {
      const periodStart = prorateToday.get(p.subscription.id)!;
      const [, month, day] = periodStart.split('-').map(Number);
      const own = ruleFor(p.subscription.interval, context.billingPeriods);
      const rule: BillingPeriodRule =
        own.type === 'SpecifiedDate'
          ? own
          : { type: 'SpecifiedDate', rule: 'SingleInvoice', day: p.anchorDay ?? day!, month: p.subscription.interval === 'Yearly' ? month! : null };
      computed.push(
        ...(await computeCustomerInvoices(db, catalog, context, [p], {
          effectiveDate: today,
          showZeroDollarCharges: input.showZeroDollarCharges ?? undefined,
          billingPeriods: { [p.subscription.interval]: rule },
        })),
      );
    }
    for (const draft of computed) {
      for (const [subscriptionId, codes] of Object.entries(draft.couponsApplied)) {
        const uses = couponUses.get(Number(subscriptionId)) ?? {};
        for (const code of codes) uses[code] = (uses[code] ?? 0) + 1;
        couponUses.set(Number(subscriptionId), uses);
      }
    }
    invoices.push(computed);
  }
  return { rounds: invoices, skipTo, anchorMoves };
}

/** Hold → Active, charging for missed periods as the service start option says (preview: compute only). */
export async function unholdCustomer(ctx: AppContext, caller: Caller, input: UnholdInput, now?: Date): Promise<LifecycleResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  const result = await transactionWithRetry(ctx.db, async (trx) => {
    const customer = await lockCustomerFor(trx, caller, input.customerId, 'unhold');
    const context = await loadBillingContext(trx, ctx.catalog, customer);
    const suspended = await findSubscriptionsOfCustomers(trx, caller.accountId, [customer.id], TRANSITIONS.unhold.subscriptions.from);
    const { rounds, skipTo, anchorMoves } = await catchUpInvoices(trx, ctx.catalog, context, suspended, input, now);
    const invoices = rounds.flat();
    if (input.preview) return invoices;

    // A full new period from today replaces the rest of the old one: that unserved rest is credited
    // (as cancellation's Unearned computes it), so no day is paid twice.
    const credit =
      input.serviceStartOption === 'ChargeForCurrentFullPeriod'
        ? await creditReversals(trx, caller, customer, suspended.map((s) => s.id), 'Unearned', now, 'unserved rest of the period replaced on unhold')
        : undefined;
    await transitionCustomer(ctx, trx, caller, customer, 'unhold', now, { serviceStartOption: input.serviceStartOption, ...(credit ? { credit: credit.toString() } : {}) });
    await skipToPeriodStarts(trx, skipTo);
    await moveSubscriptionAnchors(trx, anchorMoves);
    const post = !input.temporarilyDisableAutoPost && context.settings.autoPostDraftInvoice;
    await saveInvoices(trx, context, invoices, { post, now, notifier: ctx.notifier, webhooks: ctx.webhooks });
    return invoices;
  });
  const customer = await getCustomer(ctx, caller, input.customerId);
  if (!input.preview) return customer;
  const [first, ...rest] = result.map(toInvoicePreview);
  return { ...customer, invoicePreview: first ?? null, additionalInvoicesForPreview: rest };
}
