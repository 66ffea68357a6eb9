import { getCustomer } from '../customers/service.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import {
  computeCustomerInvoices,
  loadBillingContext,
  saveInvoices,
  utcDate,
  type BillingContext,
  type PeriodToBill,
} from '../invoices/billing-run.js';
import { ruleFor, type DraftInvoice } from '../invoices/engine/index.js';
import { anchorDayOf, missedPeriodStarts } from '../invoices/subscription-periods.js';
import { toInvoicePreview } from '../invoices/service.js';
import { markChargesReplaced } from '../invoices/repository.js';
import { attachUsageInArrears } from '../invoices/usage-to-bill.js';
import type { Queryable } from '../db/database.js';
import type { Catalog } from '../catalog/schema.js';
import {
  findSubscriptionsOfCustomers,
  moveSubscriptionAnchors,
  skipToPeriodStarts,
  type SubscriptionWithPlan,
} from '../subscriptions/repository.js';
import { creditReversals } from './reversals.js';
import { lockCustomerFor, TRANSITIONS, transitionCustomer } from './transitions.js';
import type { LifecycleResponse, UnholdInput } from './schemas.js';
import { transactionWithRetry } from '../db/conflict-retry.js';

/** What a return bills (one round per missed period, each round billed together), and how the subscriptions move. */
export interface CatchUpPlan {
  rounds: PeriodToBill[][];
  skipTo: Array<{ id: number; nextPeriodStart: string }>;
  anchorMoves: Array<{ id: number; anchorDay: number }>;
}

/**
 * What to bill on return, per the service start option (pure: dates only):
 * - ChargeForAllMissedPeriods: every missed period, one round per period;
 * - ChargeForLastMissedPeriods: only the latest (the one running today);
 * - NoChargesForMissedPeriods: nothing now; billing resumes at the first period start after today;
 * - ChargeForCurrentFullPeriod: a full new period from today (the anniversary moves to today).
 * With `prorate`, the period running today is billed only from today to its end: its end and the
 * full period it is prorated over stay on the subscription's grid of periods (a quarter stays the
 * quarter from its anniversary), so the next period starts where it would have.
 */
export function planCatchUp(
  subscriptions: SubscriptionWithPlan[],
  today: string,
  billingPeriods: BillingContext['billingPeriods'],
  input: Pick<UnholdInput, 'serviceStartOption' | 'prorate'>,
  billUntil: (s: SubscriptionWithPlan) => string = () => today,
): CatchUpPlan {
  const plan: CatchUpPlan = { rounds: [], skipTo: [], anchorMoves: [] };
  const bill = (round: number, period: PeriodToBill) => (plan.rounds[round] = [...(plan.rounds[round] ?? []), period]);
  for (const s of subscriptions) {
    const { missed, firstFuture } = missedPeriodStarts(s, billUntil(s), ruleFor(s.interval, billingPeriods));
    const anchorDay = anchorDayOf(s);
    let starts: string[] = [];
    if (input.serviceStartOption === 'ChargeForAllMissedPeriods') starts = missed;
    if (input.serviceStartOption === 'ChargeForLastMissedPeriods') starts = missed.slice(-1);
    if (input.serviceStartOption === 'NoChargesForMissedPeriods') plan.skipTo.push({ id: s.id, nextPeriodStart: firstFuture });
    if (input.serviceStartOption === 'ChargeForCurrentFullPeriod') {
      const todayDay = Number(today.slice(8, 10));
      bill(0, { subscription: s, periodStart: today, isFirstInvoice: false, anchorDay: todayDay });
      plan.anchorMoves.push({ id: s.id, anchorDay: todayDay });
      continue;
    }
    starts.forEach((start, i) => {
      const fromToday = i === starts.length - 1 && input.prorate === true && start < today;
      bill(i, {
        subscription: s,
        periodStart: start,
        isFirstInvoice: false,
        anchorDay,
        ...(fromToday ? { billFrom: today, prorate: true } : {}),
      });
    });
  }
  return plan;
}

/**
 * Computes planned rounds: each round in one computation under the customer's rules, so a
 * SingleInvoice customer gets one invoice per round for all its subscriptions (taxes rounded once
 * on it). Coupons applied in earlier rounds count, though not saved yet: a coupon for three
 * periods covers three at most.
 */
export async function billRounds(
  db: Queryable,
  catalog: Catalog,
  context: BillingContext,
  rounds: PeriodToBill[][],
  today: string,
  showZeroDollarCharges?: boolean | null,
): Promise<DraftInvoice[][]> {
  const invoices: DraftInvoice[][] = [];
  const couponUses = new Map<number, Record<string, number>>();
  for (const round of rounds) {
    const periods = round.map((p) => ({ ...p, couponUses: { ...couponUses.get(p.subscription.id) } }));
    const computed = await computeCustomerInvoices(db, catalog, context, periods, {
      effectiveDate: today,
      showZeroDollarCharges: showZeroDollarCharges ?? undefined,
    });
    for (const draft of computed) {
      for (const [subscriptionId, codes] of Object.entries(draft.couponsApplied)) {
        const uses = couponUses.get(Number(subscriptionId)) ?? {};
        for (const code of codes) uses[code] = (uses[code] ?? 0) + 1;
        couponUses.set(Number(subscriptionId), uses);
      }
    }
    invoices.push(computed);
  }
  return invoices;
}

/** A renewal's (issue 41): `billUntil` holds metered periods for their grace; `frequencyBefore`: see attachUsageInArrears. */
export interface RenewalUsage {
  billUntil: (s: SubscriptionWithPlan) => string;
  frequencyBefore: ReadonlyMap<number, number>;
}

/**
 * The invoices of a return (planCatchUp, then billRounds). The billing clock renews with
 * ChargeForAllMissedPeriods: every period started since the last. A metered subscription's first period billed also
 * bills its usage so far, and each next one the usage of the period before it (issue 41).
 */
export async function catchUpInvoices(
  db: Queryable,
  catalog: Catalog,
  context: BillingContext,
  subscriptions: SubscriptionWithPlan[],
  input: Pick<UnholdInput, 'serviceStartOption' | 'prorate' | 'showZeroDollarCharges'>,
  now: Date,
  usage?: RenewalUsage,
): Promise<{ rounds: DraftInvoice[][]; skipTo: CatchUpPlan['skipTo']; anchorMoves: CatchUpPlan['anchorMoves'] }> {
  const today = utcDate(now);
  const { rounds, skipTo, anchorMoves } = planCatchUp(subscriptions, today, context.billingPeriods, input, usage?.billUntil);
  await attachUsageInArrears(db, catalog, rounds, subscriptions, usage?.frequencyBefore);
  return { rounds: await billRounds(db, catalog, context, rounds, today, input.showZeroDollarCharges), skipTo, anchorMoves };
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
        ? await creditReversals(
            trx,
            caller,
            customer,
            suspended.map((s) => s.id),
            'Unearned',
            now,
            'unserved rest of the period replaced on unhold',
          )
        : undefined;
    // The replaced period ends today: a later cancellation reverses the new period, not its served days.
    if (input.serviceStartOption === 'ChargeForCurrentFullPeriod')
      await markChargesReplaced(
        trx,
        suspended.map((s) => s.id),
        utcDate(now),
      );
    await transitionCustomer(ctx, trx, caller, customer, 'unhold', now, {
      serviceStartOption: input.serviceStartOption,
      ...(credit ? { credit: credit.toString() } : {}),
    });
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
