import type { AppContext } from '../app-context.js';
import { planChangeAllowed } from '../catalog/schema.js';
import { findCustomerRow } from '../customers/repository.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import { computeCustomerInvoices, engineSubscriptions, loadBillingContext, utcDate, type BillingContext } from '../invoices/billing-run.js';
import { isDowngrade, planChangeInvoice, type PlanChangeInvoice, type RunningLine } from '../invoices/engine/index.js';
import { recurringChargesRunningOn } from '../invoices/repository.js';
import { toChangeInvoicePreview } from '../invoices/service.js';
import { money, toJsonAmount } from '../money/money.js';
import { countSubscriptionsByFrequency, findPlanFrequency, type PlanRow } from '../plans/repository.js';
import { effectiveUnitPrice, revenueOf } from '../plans/recurring-revenue.js';
import { toPlanFrequencyResponse } from '../plans/service.js';
import { Refusal } from '../refusals/refusal.js';
import {
  findCoupons,
  findProducts,
  findSubscription,
  type SubscriptionProductRow,
  type SubscriptionWithPlan,
} from '../subscriptions/repository.js';
import type { SubscriptionResponse } from '../subscriptions/schemas.js';
import { getSubscription, toSubscriptionProductResponse } from '../subscriptions/service.js';
import type { PlanChangeInput, PlanChangeResponse } from './schemas.js';
import { anchorDayOf, restOfRunningPeriod } from './unhold.js';

/*
 * Plan changes (issue 28; design and rule: src/subscriptions/PLAN-CHANGES.md). This step answers the preview only:
 * it reads, checks and computes, and changes nothing. Applying a change (now or at period end) is the next step.
 */

type PlanFrequency = NonNullable<Awaited<ReturnType<typeof findPlanFrequency>>>;
/** A product as it will be after the change; id 0: a product the change adds (created when it applies). */
type ChangedProduct = Omit<SubscriptionProductRow, 'position'>;

/** POST /v1/subscriptions/{id}/changes: for now `preview: true` only. */
export async function changeSubscriptionPlan(
  ctx: AppContext,
  caller: Caller,
  subscriptionId: number,
  input: PlanChangeInput,
  now?: Date,
): Promise<PlanChangeResponse> {
  if (!input.preview) throw Refusal.invalid('applying a plan change is not available yet: send preview: true', 'preview');
  now ??= await ctx.clock.now(caller.accountId);
  return previewPlanChange(ctx, ctx.db, caller, subscriptionId, input, now);
}

async function previewPlanChange(
  ctx: AppContext,
  db: Queryable,
  caller: Caller,
  subscriptionId: number,
  input: PlanChangeInput,
  now: Date,
): Promise<PlanChangeResponse> {
  const today = utcDate(now);
  const s = await findSubscription(db, caller.accountId, subscriptionId);
  if (!s) throw Refusal.notFound('subscription', subscriptionId);
  const customer = await findCustomerRow(db, caller.accountId, s.customerId);
  if (customer?.status !== 'Active') {
    throw Refusal.invalid(`the customer is ${customer?.status ?? 'gone'}: only an Active customer's plan can change`, 'subscriptionId');
  }
  if (s.status !== 'Active')
    throw Refusal.invalid(`the subscription is ${s.status}: only an Active subscription can change`, 'subscriptionId');
  if (!s.nextPeriodStart || s.nextPeriodStart <= today) {
    // The billing clock renews it first (a test clock's account: on its next advance).
    throw Refusal.conflict(`the subscription's renewal on ${s.nextPeriodStart} is due: change it once it is billed`, 'subscriptionId');
  }
  const target = await targetFrequency(ctx, db, s, input.planFrequencyId ?? s.planFrequencyId);
  const current = await findProducts(db, [s.id]);
  const products = productsAfterChange(s, current, target, input.quantities ?? {});
  if (target.frequency.id === s.planFrequencyId && products.every((p, i) => money(p.quantity).eq(current[i]!.quantity))) {
    throw Refusal.invalid('the change changes nothing: give another planFrequencyId or other quantities', 'planFrequencyId');
  }

  const context = await loadBillingContext(db, ctx.catalog, customer);
  const coupons = await findCoupons(db, [s.id]);
  const changed: SubscriptionWithPlan = {
    ...s,
    planFrequencyId: target.frequency.id,
    interval: target.frequency.interval,
    numberOfIntervals: target.frequency.numberOfIntervals,
    isProrated: target.frequency.isProrated,
  };
  const price = (rows: ReadonlyArray<ChangedProduct>) => rows.map((p) => ({ ...p, unitPrice: effectiveUnitPrice(p) }));
  const downgrade = isDowngrade(price(current), price(products));
  const timing = input.timing ?? (downgrade ? ctx.catalog.planChanges.downgradeTiming : 'now');
  const lines = { products: products.map((p) => ({ ...p })), coupons };

  if (timing === 'periodEnd') {
    // Nothing now: the renewal at the period's end bills the new plan for the new period.
    const renewal = await renewalAfterChange(db, ctx, context, changed, lines, s.nextPeriodStart, anchorDayOf(s));
    const pendingChange = {
      planFrequencyId: target.frequency.id,
      quantities: Object.fromEntries(products.map((p) => [p.productCode, toJsonAmount(p.quantity)])),
      effectiveDate: s.nextPeriodStart,
      createdTimestamp: now.toISOString(),
    };
    return {
      subscription: { ...(await getSubscription(ctx, caller, s.id)), pendingChange },
      invoice: null,
      nextRenewal: renewal,
    };
  }

  const running = restOfRunningPeriod(s, today, context.billingPeriods);
  const [engineSubscription] = await engineSubscriptions(
    db,
    ctx.catalog,
    [{ subscription: changed, periodStart: running.periodStart, isFirstInvoice: false, anchorDay: running.anchorDay }],
    lines,
  );
  const runningLines: RunningLine[] = (await recurringChargesRunningOn(db, [s.id], today)).map((line) => ({
    chargeId: line.id,
    subscriptionId: s.id,
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
  const invoice = planChangeInvoice({
    currency: s.currency,
    changeDate: today,
    oldFrequency: { interval: s.interval, numberOfIntervals: s.numberOfIntervals },
    runningLines,
    subscription: engineSubscription!,
    billingPeriods: context.billingPeriods,
    taxRates: context.taxRates,
    term: context.settings.term,
    showZeroDollarCharges: context.settings.showZeroDollarCharges,
    rollUpTaxes: context.settings.rollUpTaxes,
    rollUpDiscounts: context.settings.rollUpDiscounts,
  });
  const anchorDay = invoice.anchorDay ?? running.anchorDay ?? null;
  const couponUses = Object.fromEntries(invoice.couponsApplied.map((code) => [code, 1]));
  const renewal = await renewalAfterChange(db, ctx, context, changed, lines, invoice.nextPeriodStart, anchorDay, couponUses);
  return {
    subscription: await subscriptionAfterChange(ctx, db, caller, s, target, products, invoice),
    invoice: toChangeInvoicePreview(invoice),
    nextRenewal: renewal,
  };
}

/** The plan frequency to change to: Active, allowed by the catalogue from the subscription's plan, priced in its currency. */
async function targetFrequency(ctx: AppContext, db: Queryable, s: SubscriptionWithPlan, planFrequencyId: number): Promise<PlanFrequency> {
  const found = await findPlanFrequency(db, planFrequencyId);
  if (found?.frequency.status !== 'Active' || found.plan.status !== 'Active') {
    throw Refusal.invalid(`no active plan frequency with id ${planFrequencyId}`, 'planFrequencyId');
  }
  if (!planChangeAllowed(ctx.catalog, s.planCode, found.plan.code)) {
    throw Refusal.invalid(
      `a change from plan ${s.planCode} to plan ${found.plan.code} is not allowed (catalogue: planChanges.allowed)`,
      'planFrequencyId',
    );
  }
  if (!found.frequency.charges.some((c) => c.currency === s.currency)) {
    throw Refusal.invalid(`plan ${found.plan.code} is not offered in ${s.currency}, the subscription's currency`, 'planFrequencyId');
  }
  return found;
}

/** Checks a requested quantity against the target plan's product: an integer within its bounds, or its fixed quantity. */
function checkQuantity(plan: PlanRow, code: string, quantity: number) {
  const key = `quantities.${code}`;
  const product = plan.products.find((p) => p.code === code);
  if (!product) throw Refusal.invalid(`plan ${plan.code} has no product ${code}`, key);
  if (!Number.isInteger(quantity)) throw Refusal.invalid('must be a whole number', key);
  if (product.maxQuantity === undefined) {
    if (quantity !== product.quantity) throw Refusal.invalid(`the quantity of ${code} is fixed at ${product.quantity}`, key);
    return;
  }
  const min = product.minQuantity ?? 1;
  if (quantity < min || quantity > product.maxQuantity) throw Refusal.invalid(`must be from ${min} to ${product.maxQuantity}`, key);
}

/**
 * The subscription's products after the change. The same frequency: its products as they are (prices, overrides,
 * discounts), at the requested quantities. Another frequency: the target plan's products at that frequency's
 * catalogue prices (an override was a price for the old frequency); a product the subscription keeps keeps its
 * inclusion and discount, and its quantity when the plan stays; others get the plan's default quantity.
 */
function productsAfterChange(
  s: SubscriptionWithPlan,
  current: SubscriptionProductRow[],
  target: PlanFrequency,
  quantities: Record<string, number>,
): ChangedProduct[] {
  for (const [code, quantity] of Object.entries(quantities)) checkQuantity(target.plan, code, quantity);
  const requested = (code: string) => (Object.hasOwn(quantities, code) ? String(quantities[code]) : undefined);
  if (target.frequency.id === s.planFrequencyId) {
    return current.map(({ position: _, ...p }) => ({ ...p, quantity: requested(p.productCode) ?? p.quantity }));
  }
  const samePlan = target.plan.code === s.planCode;
  const amountIn = (list: Array<{ currency: string; amount: string }> | undefined) =>
    list?.find((a) => a.currency === s.currency)?.amount ?? '0';
  return target.plan.products.map((p) => {
    const kept = current.find((c) => c.productCode === p.code);
    const prices = target.frequency.prices.find((x) => x.product === p.code);
    return {
      id: kept?.id ?? 0,
      subscriptionId: s.id,
      productCode: p.code,
      name: p.name,
      description: p.description ?? null,
      quantity: requested(p.code) ?? (samePlan && kept ? kept.quantity : String(p.quantity)),
      catalogPrice: amountIn(prices?.charges),
      priceOverride: null,
      setupFee: amountIn(prices?.setupFees),
      included: kept?.included ?? true,
      discountKind: kept?.discountKind ?? null,
      discountValue: kept?.discountValue ?? null,
    };
  });
}

/** The next renewal after the change: its date and the total of the invoice it posts for this subscription alone. */
async function renewalAfterChange(
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
  return { date, amount: toJsonAmount(invoice?.total ?? 0) };
}

/** The subscription as GET will show it once the change applies now: the new plan frequency, products, period end. */
async function subscriptionAfterChange(
  ctx: AppContext,
  db: Queryable,
  caller: Caller,
  s: SubscriptionWithPlan,
  target: PlanFrequency,
  products: ChangedProduct[],
  invoice: PlanChangeInvoice,
): Promise<PlanChangeResponse['subscription']> {
  const before: SubscriptionResponse = await getSubscription(ctx, caller, s.id);
  const switching = target.frequency.id !== s.planFrequencyId;
  const counted = (await countSubscriptionsByFrequency(db, caller.accountId, [target.frequency.id])).get(target.frequency.id) ?? 0;
  const revenue = revenueOf(products, target.frequency, s.currency);
  return {
    ...before,
    planFrequency: toPlanFrequencyResponse(target.frequency, counted + (switching ? 1 : 0), ctx.uris),
    planCode: target.plan.code,
    planName: target.plan.name,
    planDescription: target.plan.description,
    planReference: target.plan.reference,
    subscriptionProducts: products.map((p) => toSubscriptionProductResponse(p, s, before.uri)),
    nextPeriodStartDate: invoice.nextPeriodStart,
    openSubscriptionPeriodEndDate: invoice.nextPeriodStart,
    monthlyRecurringRevenue: toJsonAmount(revenue.gross),
    netMonthlyRecurringRevenue: toJsonAmount(revenue.net),
    amount: toJsonAmount(revenue.perPeriod),
    pendingChange: null,
  };
}
