import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { computeCustomerInvoices, engineSubscriptions, loadBillingContext, utcDate, type BillingContext } from '../invoices/billing-run.js';
import { isDowngrade, planChangeInvoice, type RunningLine } from '../invoices/engine/index.js';
import { draftBillsPeriodOn, recurringChargesRunningOn } from '../invoices/repository.js';
import { money, toJsonAmount } from '../money/money.js';
import { effectiveUnitPrice } from '../plans/recurring-revenue.js';
import { Refusal } from '../refusals/refusal.js';
import {
  findCoupons,
  findProducts,
  findSubscription,
  type SubscriptionProductRow,
  type SubscriptionWithPlan,
} from '../subscriptions/repository.js';
import type { PlanChangeInput, PlanChangeResponse } from './schemas.js';
import { anchorDayOf, restOfRunningPeriod } from '../invoices/subscription-periods.js';

import {
  nameAfterChange,
  targetFrequency,
  productsAfterChange,
  type ChangedProduct,
  type ComputedChange,
  type PlanFrequency,
} from './plan-change-rules.js';

/**
 * Reads and checks a change (the refusals of PLAN-CHANGES.md) and computes it: the invoice a change now posts, by
 * the pure proration (invoices/engine/plan-change.ts), or the pending change a periodEnd one stores; and the next
 * renewal after it. Writes nothing.
 */
export async function computePlanChange(
  ctx: AppContext,
  db: Queryable,
  caller: Caller,
  subscriptionId: number,
  input: PlanChangeInput,
  now: Date,
): Promise<ComputedChange> {
  const today = utcDate(now);
  const { s, customer, periodEnd } = await changeableSubscription(db, caller, subscriptionId, today);
  const target = await targetFrequency(ctx, db, s, input.planFrequencyId ?? s.planFrequencyId);
  const before = await findProducts(db, [s.id]);
  const products = productsAfterChange(s, before, target, input.quantities ?? {});
  refuseChangingNothing(s, target, before, products);

  const context = await loadBillingContext(db, ctx.catalog, customer);
  const price = (rows: ReadonlyArray<ChangedProduct>) => rows.map((p) => ({ ...p, unitPrice: effectiveUnitPrice(p) }));
  const downgrade = isDowngrade(price(before), price(products));
  const quote: Quote = {
    computed: {
      s,
      customer,
      context,
      target,
      before,
      products,
      timing: input.timing ?? (downgrade ? ctx.catalog.planChanges.downgradeTiming : 'now'),
    },
    changed: subscriptionOnTarget(s, target),
    lines: { products: products.map((p) => ({ ...p })), coupons: await findCoupons(db, [s.id]) },
    periodEnd,
  };
  if (quote.computed.timing === 'periodEnd') return quoteAtPeriodEnd(ctx, db, quote, now);
  return quoteNow(ctx, db, quote, today);
}

/** What both timings of a change compute from. */
interface Quote {
  computed: Omit<ComputedChange, 'invoice' | 'nextRenewal' | 'pendingChange'>;
  /** The subscription as it will be on the target plan frequency. */
  changed: SubscriptionWithPlan;
  lines: EngineLines;
  /** The running period's end (the subscription's next period start). */
  periodEnd: string;
}

type EngineLines = NonNullable<Parameters<typeof engineSubscriptions>[3]>;

/** The subscription and its customer, refused unless both are Active and the running period is not yet due for renewal. */
async function changeableSubscription(db: Queryable, caller: Caller, subscriptionId: number, today: string) {
  const s = await findSubscription(db, caller.accountId, subscriptionId);
  if (!s) throw Refusal.notFound('subscription', subscriptionId);
  const customer = await findCustomerRow(db, caller.accountId, s.customerId);
  if (customer?.status !== 'Active') {
    throw Refusal.invalid(
      `the customer is ${customer?.status ?? 'gone'}: only an Active customer's plan can change`,
      'subscriptionId',
      'plan_change_not_active',
    );
  }
  if (s.status !== 'Active')
    throw Refusal.invalid(
      `the subscription is ${s.status}: only an Active subscription can change`,
      'subscriptionId',
      'plan_change_not_active',
    );
  if (!s.nextPeriodStart || s.nextPeriodStart <= today) {
    // The billing clock renews it first (a test clock's account: on its next advance).
    throw Refusal.conflict(
      `the subscription's renewal on ${s.nextPeriodStart} is due: change it once it is billed`,
      'subscriptionId',
      'plan_change_renewal_due',
    );
  }
  return { s, customer, periodEnd: s.nextPeriodStart };
}

/** The same plan frequency at the same quantities is no change. */
function refuseChangingNothing(
  s: SubscriptionWithPlan,
  target: PlanFrequency,
  before: SubscriptionProductRow[],
  products: ChangedProduct[],
): void {
  const sameQuantity = (p: ChangedProduct, i: number) => {
    const was = before[i];
    return was !== undefined && money(p.quantity).eq(was.quantity);
  };
  if (target.frequency.id === s.planFrequencyId && products.every(sameQuantity)) {
    throw Refusal.invalid(
      'the change changes nothing: give another planFrequencyId or other quantities',
      'planFrequencyId',
      'plan_change_nothing',
    );
  }
}

function subscriptionOnTarget(s: SubscriptionWithPlan, target: PlanFrequency): SubscriptionWithPlan {
  return {
    ...s,
    name: nameAfterChange(s, target),
    planFrequencyId: target.frequency.id,
    interval: target.frequency.interval,
    numberOfIntervals: target.frequency.numberOfIntervals,
    isProrated: target.frequency.isProrated,
  };
}

/** Nothing now: the renewal at the period's end bills the new plan for the new period. */
async function quoteAtPeriodEnd(ctx: AppContext, db: Queryable, quote: Quote, now: Date): Promise<ComputedChange> {
  const { computed, changed, lines, periodEnd } = quote;
  const { s, context, target, products } = computed;
  return {
    ...computed,
    invoice: null,
    nextRenewal: await renewalAfterChange(db, ctx, context, changed, lines, periodEnd, anchorDayOf(s)),
    pendingChange: {
      planFrequencyId: target.frequency.id,
      quantities: Object.fromEntries(products.map((p) => [p.productCode, toJsonAmount(p.quantity)])),
      effectiveDate: periodEnd,
      createdTimestamp: now.toISOString(),
    },
  };
}

/** A change now: the rest of the running period credited and the new plan charged from today (the change invoice). */
async function quoteNow(ctx: AppContext, db: Queryable, quote: Quote, today: string): Promise<ComputedChange> {
  const { computed, changed, lines } = quote;
  const { s, context } = computed;
  // A Draft's line was never credited (drafts never are): the change waits until it is posted.
  if (await draftBillsPeriodOn(db, s.id, today)) {
    throw Refusal.invalid(
      "the current period's invoice is still a Draft: post it first (POST /v1/Invoices/{id}/post), or change at periodEnd",
      'timing',
      'plan_change_draft_period',
    );
  }
  const running = restOfRunningPeriod(s, today, context.billingPeriods);
  const [engineSubscription] = await engineSubscriptions(
    db,
    ctx.catalog,
    [{ subscription: changed, periodStart: running.periodStart, isFirstInvoice: false, anchorDay: running.anchorDay }],
    lines,
  );
  if (!engineSubscription) throw new Error('engineSubscriptions answers one subscription per period asked for');
  const invoice = planChangeInvoice({
    currency: s.currency,
    changeDate: today,
    oldFrequency: { interval: s.interval, numberOfIntervals: s.numberOfIntervals },
    runningLines: await runningLinesOf(db, s.id, today),
    subscription: engineSubscription,
    billingPeriods: context.billingPeriods,
    taxRates: context.taxRates,
    term: context.settings.term,
    showZeroDollarCharges: context.settings.showZeroDollarCharges,
    rollUpTaxes: context.settings.rollUpTaxes,
    rollUpDiscounts: context.settings.rollUpDiscounts,
  });
  const anchorDay = invoice.anchorDay ?? running.anchorDay ?? null;
  const couponUses = Object.fromEntries(invoice.couponsApplied.map((code) => [code, 1]));
  return {
    ...computed,
    invoice,
    nextRenewal: await renewalAfterChange(db, ctx, context, changed, lines, invoice.nextPeriodStart, anchorDay, couponUses),
    pendingChange: null,
  };
}

/** The subscription's recurring lines running today, as the proration credits them. */
async function runningLinesOf(db: Queryable, subscriptionId: number, today: string): Promise<RunningLine[]> {
  return (await recurringChargesRunningOn(db, [subscriptionId], today)).map((line) => ({
    chargeId: line.id,
    subscriptionId,
    productCode: line.productCode,
    name: line.name,
    description: line.description,
    quantity: money(line.quantity),
    unitPrice: money(line.unitPrice),
    taxableAmount: money(line.taxableAmount),
    creditedAmount: money(line.creditedAmount),
    startServiceDate: line.startServiceDate,
    endServiceDate: line.endServiceDate,
  }));
}

/** The next renewal after the change: its date and the total of the invoice it posts for this subscription alone. */
export async function renewalAfterChange(
  db: Queryable,
  ctx: AppContext,
  context: BillingContext,
  changed: SubscriptionWithPlan,
  lines: Parameters<typeof engineSubscriptions>[3],
  date: string,
  anchorDay: number | null,
  couponUses: Record<string, number> = {},
): Promise<PlanChangeResponse['nextRenewal']> {
  const [invoice] = await computeCustomerInvoices(
    db,
    ctx.catalog,
    context,
    [{ subscription: changed, periodStart: date, isFirstInvoice: false, anchorDay, couponUses }],
    { effectiveDate: date, lines },
  );
  return { date, amount: toJsonAmount(invoice?.total ?? money(0)) };
}
