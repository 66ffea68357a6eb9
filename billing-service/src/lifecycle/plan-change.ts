import type { AppContext } from '../app-context.js';
import { recordChange } from '../audit/audit-log.js';
import { planChangeAllowed } from '../catalog/schema.js';
import { findCustomerRow, lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import {
  announcePostedInvoice,
  applyHeldFunds,
  computeCustomerInvoices,
  engineSubscriptions,
  loadBillingContext,
  utcDate,
  type BillingContext,
} from '../invoices/billing-run.js';
import {
  isDowngrade,
  nextPeriodStart as periodEndOf,
  planChangeInvoice,
  ruleFor,
  type PlanChangeInvoice,
  type RunningLine,
} from '../invoices/engine/index.js';
import {
  addChargeCredits,
  draftBillsPeriodOn,
  insertInvoice,
  markChargesReplaced,
  recurringChargesRunningOn,
} from '../invoices/repository.js';
import { getInvoice, toChangeInvoicePreview } from '../invoices/service.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { minorUnits, money, toJsonAmount, type Money } from '../money/money.js';
import {
  countSubscriptionsByFrequency,
  findFrequenciesOfPlans,
  findPlanFrequency,
  selectPlans,
  type PlanRow,
} from '../plans/repository.js';
import { effectiveUnitPrice, revenueOf } from '../plans/recurring-revenue.js';
import { toPlanFrequencyResponse } from '../plans/service.js';
import { Refusal } from '../refusals/refusal.js';
import {
  claimPendingChanges,
  countCouponUses,
  findCoupons,
  findProducts,
  findSubscription,
  findSubscriptionCustomerId,
  replaceProducts,
  savePendingChange,
  updateSubscriptionRow,
  type SubscriptionProductRow,
  type SubscriptionWithPlan,
} from '../subscriptions/repository.js';
import type { SubscriptionResponse } from '../subscriptions/schemas.js';
import { getSubscription, toSubscriptionProductResponse } from '../subscriptions/service.js';
import type { PlanChangeInput, PlanChangeResponse } from './schemas.js';
import { collectDueBalance } from './collection.js';
import { anchorDayOf, restOfRunningPeriod } from './unhold.js';

/*
 * Plan changes (issue 28; design and rule: src/subscriptions/PLAN-CHANGES.md). One computation (computePlanChange)
 * answers the preview and is what applying posts: the preview reads without a lock, applying computes again in its
 * transaction under the customer's lock, so the rules are checked against what is committed.
 */

type PlanFrequency = NonNullable<Awaited<ReturnType<typeof findPlanFrequency>>>;
/** A product as it will be after the change; id 0: a product the change adds (created when it applies). */
type ChangedProduct = Omit<SubscriptionProductRow, 'position'>;

/** What a change computes, before anything is written. */
interface ComputedChange {
  s: SubscriptionWithPlan;
  customer: CustomerRow;
  context: BillingContext;
  target: PlanFrequency;
  /** The subscription's products before the change, and after it. */
  before: SubscriptionProductRow[];
  products: ChangedProduct[];
  timing: 'now' | 'periodEnd';
  /** The invoice a change now posts (null: scheduled). */
  invoice: PlanChangeInvoice | null;
  nextRenewal: PlanChangeResponse['nextRenewal'];
  pendingChange: PendingChange | null;
}

type PendingChange = NonNullable<PlanChangeResponse['subscription']['pendingChange']>;

/** POST /v1/subscriptions/{id}/changes: a preview, or the change applied now. */
export async function changeSubscriptionPlan(
  ctx: AppContext,
  caller: Caller,
  subscriptionId: number,
  input: PlanChangeInput,
  now?: Date,
): Promise<PlanChangeResponse> {
  now ??= await ctx.clock.now(caller.accountId);
  if (input.preview) return previewAnswer(ctx, caller, await computePlanChange(ctx, ctx.db, caller, subscriptionId, input, now));
  const customerId = await findSubscriptionCustomerId(ctx.db, caller.accountId, subscriptionId);
  if (customerId === undefined) throw Refusal.notFound('subscription', subscriptionId);

  const applied = await transactionWithRetry(ctx.db, async (trx) => {
    // the customer's lock first (lock order: README, Architecture), then everything read and checked again under it
    await lockCustomer(trx, caller.accountId, customerId);
    const change = await computePlanChange(ctx, trx, caller, subscriptionId, input, now);
    if (change.timing === 'periodEnd') {
      await schedule(ctx, trx, caller, change, now);
      return { change, invoiceId: null };
    }
    return { change, invoiceId: await applyNow(ctx, trx, caller, change, now) };
  });
  // After the commit, as the billing clock collects: a decline leaves the change applied and the invoice open.
  if (applied.invoiceId !== null) await collectDueBalance(ctx, { id: customerId, accountId: caller.accountId }, now);
  return {
    subscription: await getSubscription(ctx, caller, subscriptionId),
    invoice: applied.invoiceId === null ? null : await getInvoice(ctx, caller, applied.invoiceId),
    nextRenewal: applied.change.nextRenewal,
  };
}

/** Stores a change for the period end (replacing one pending), with its audit entry and events; nothing is posted. */
async function schedule(ctx: AppContext, trx: Queryable, caller: Caller, change: ComputedChange, now: Date): Promise<void> {
  const { s, customer, target, products } = change;
  const effectiveDate = change.pendingChange!.effectiveDate;
  await savePendingChange(trx, {
    subscriptionId: s.id,
    planFrequencyId: target.frequency.id,
    quantities: quantitiesOf(products),
    effectiveDate,
    createdAt: now,
  });
  await recordChange(trx, caller, {
    entityType: 'Subscription',
    entityId: s.id,
    action: 'update',
    changes: { pendingChange: [null, { planFrequencyId: target.frequency.id, quantities: quantitiesOf(products), effectiveDate }] },
  });
  for (const type of ['subscription.updated', 'subscription.changeScheduled'] as const)
    await ctx.webhooks?.subscription(trx, customer.accountId, customer.id, s.id, type, now);
  await enqueueChangeEmail(ctx, trx, customer, change, 'scheduled', effectiveDate, null, change.nextRenewal);
}

/**
 * The renewal's part (lifecycle/billing-clock.ts), under the customer's lock before the period is computed: the
 * changes pending for these subscriptions from a period start up to `today` are claimed and applied, so the
 * renewal bills the new plan for the new period (nothing prorated). A change the catalogue no longer allows (the
 * frequency retired, the switch or a quantity refused) is dropped, with an audit entry saying why. Returns the
 * ids of the subscriptions changed.
 */
export async function applyPendingChanges(
  ctx: AppContext,
  trx: Queryable,
  caller: Caller,
  subscriptions: SubscriptionWithPlan[],
  today: string,
  now: Date,
): Promise<number[]> {
  const claimed = await claimPendingChanges(
    trx,
    subscriptions.map((s) => s.id),
    today,
  );
  const changed: number[] = [];
  for (const row of claimed) {
    const s = subscriptions.find((x) => x.id === row.subscriptionId)!;
    const quantities = Object.fromEntries(Object.entries(row.quantities).map(([code, q]) => [code, Number(q)]));
    let target: PlanFrequency;
    let products: ChangedProduct[];
    const before = await findProducts(trx, [s.id]);
    try {
      target = await targetFrequency(ctx, trx, s, row.planFrequencyId);
      products = productsAfterChange(s, before, target, quantities);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      await recordChange(trx, caller, {
        entityType: 'Subscription',
        entityId: s.id,
        action: 'update',
        changes: { pendingChange: [{ planFrequencyId: row.planFrequencyId, quantities: row.quantities }, null], dropped: error.message },
      });
      continue;
    }
    await updateSubscriptionRow(trx, s.id, { name: nameAfterChange(s, target), planFrequencyId: target.frequency.id, modifiedAt: now });
    await replaceProducts(trx, s.id, products);
    await recordChange(trx, caller, {
      entityType: 'Subscription',
      entityId: s.id,
      action: 'update',
      changes: {
        planFrequencyId: [s.planFrequencyId, target.frequency.id],
        quantities: [quantitiesOf(before), quantitiesOf(products)],
        pendingChangeEffectiveDate: row.effectiveDate,
      },
    });
    for (const type of ['subscription.updated', 'subscription.changeApplied'] as const)
      await ctx.webhooks?.subscription(trx, s.accountId, s.customerId, s.id, type, now);
    if (ctx.notifier?.enabled) {
      const customer = (await findCustomerRow(trx, s.accountId, s.customerId))!;
      const next = await renewalAfterTheOneApplying(ctx, trx, customer, s.id);
      await enqueueChangeEmail(ctx, trx, customer, { s, target, before, products }, 'applied', row.effectiveDate, null, next);
    }
    changed.push(s.id);
  }
  return changed;
}

/**
 * Applies a computed change now, in the caller's transaction under the customer's lock: the running lines record
 * their credit and end on the change day (a later cancellation reverses the new lines, never the old days twice),
 * the change invoice is posted (number, lines, taxes, ledger entry), the subscription moves to its new plan
 * frequency, products and period, held funds are applied; audit entry and events.
 */
async function applyNow(ctx: AppContext, trx: Queryable, caller: Caller, change: ComputedChange, now: Date): Promise<number> {
  const { s, customer, context, target, products } = change;
  const invoice = change.invoice!;
  const today = invoice.effectiveDate;
  await addChargeCredits(
    trx,
    invoice.credits.map((c) => ({ chargeId: c.chargeId, amount: c.amount.toString() })),
  );
  // before the change invoice is written: only the old lines end today
  await markChargesReplaced(trx, [s.id], today);
  // A net below 0 (a downgrade now): nothing is owed on the invoice and what it gives back is a credit (the ledger
  // holds no negative amount), applied to open invoices or held for the next one. See PLAN-CHANGES.md, "Posting".
  const givesBack = invoice.total.lessThan(0);
  const { id: invoiceId, invoiceNumber } = await insertInvoice(
    trx,
    {
      accountId: customer.accountId,
      customerId: customer.id,
      status: 'Posted',
      terms: context.settings.term,
      poNumber: context.settings.poNumber,
      postedAt: now,
    },
    invoice,
    { ledgerEntry: !givesBack },
  );
  if (givesBack) {
    const entry = { accountId: customer.accountId, customerId: customer.id, effectiveAt: now, openedAt: now };
    const dueAt = new Date(`${invoice.dueDate}T00:00:00Z`);
    await addLedgerEntry(trx, { ...entry, entryType: 'invoice', amount: money(0), invoiceId, dueAt });
    await addLedgerEntry(trx, {
      ...entry,
      entryType: 'credit',
      amount: invoice.total.negated(),
      description: `plan change, invoice ${invoiceNumber}: the credit exceeds the charge`,
    });
  }
  await updateSubscriptionRow(trx, s.id, {
    name: nameAfterChange(s, target),
    planFrequencyId: target.frequency.id,
    nextPeriodStart: invoice.nextPeriodStart,
    ...(invoice.anchorDay !== null ? { anchorDay: invoice.anchorDay, currentPeriodStart: today } : {}),
    modifiedAt: now,
  });
  await replaceProducts(trx, s.id, products);
  await countCouponUses(trx, s.id, invoice.couponsApplied, today, invoice.nextPeriodStart);
  // a change scheduled for the period end was computed against the plan this one replaces: withdrawn
  await claimPendingChanges(trx, [s.id]);
  await recordChange(trx, caller, {
    entityType: 'Subscription',
    entityId: s.id,
    action: 'update',
    changes: {
      planFrequencyId: [s.planFrequencyId, target.frequency.id],
      quantities: [quantitiesOf(change.before), quantitiesOf(products)],
      nextPeriodStartDate: [s.nextPeriodStart, invoice.nextPeriodStart],
      planChangeInvoiceId: invoiceId,
    },
  });
  await announcePostedInvoice(
    trx,
    customer,
    { id: invoiceId, invoiceNumber, total: invoice.total, dueDate: invoice.dueDate },
    {
      now,
      notifier: ctx.notifier,
      webhooks: ctx.webhooks,
    },
  );
  for (const type of ['subscription.updated', 'subscription.changeApplied'] as const)
    await ctx.webhooks?.subscription(trx, customer.accountId, customer.id, s.id, type, now);
  await enqueueChangeEmail(
    ctx,
    trx,
    customer,
    change,
    'applied',
    today,
    { number: invoiceNumber, total: invoice.total },
    change.nextRenewal,
  );
  await applyHeldFunds(trx, customer, { now, webhooks: ctx.webhooks });
  return invoiceId;
}

/**
 * Reads and checks a change (the refusals of PLAN-CHANGES.md) and computes it: the invoice a change now posts, by
 * the pure proration (invoices/engine/plan-change.ts), or the pending change a periodEnd one stores; and the next
 * renewal after it. Writes nothing.
 */
async function computePlanChange(
  ctx: AppContext,
  db: Queryable,
  caller: Caller,
  subscriptionId: number,
  input: PlanChangeInput,
  now: Date,
): Promise<ComputedChange> {
  const today = utcDate(now);
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
  const target = await targetFrequency(ctx, db, s, input.planFrequencyId ?? s.planFrequencyId);
  const before = await findProducts(db, [s.id]);
  const products = productsAfterChange(s, before, target, input.quantities ?? {});
  if (target.frequency.id === s.planFrequencyId && products.every((p, i) => money(p.quantity).eq(before[i]!.quantity))) {
    throw Refusal.invalid(
      'the change changes nothing: give another planFrequencyId or other quantities',
      'planFrequencyId',
      'plan_change_nothing',
    );
  }

  const context = await loadBillingContext(db, ctx.catalog, customer);
  const coupons = await findCoupons(db, [s.id]);
  const changed: SubscriptionWithPlan = {
    ...s,
    name: nameAfterChange(s, target),
    planFrequencyId: target.frequency.id,
    interval: target.frequency.interval,
    numberOfIntervals: target.frequency.numberOfIntervals,
    isProrated: target.frequency.isProrated,
  };
  const price = (rows: ReadonlyArray<ChangedProduct>) => rows.map((p) => ({ ...p, unitPrice: effectiveUnitPrice(p) }));
  const downgrade = isDowngrade(price(before), price(products));
  const timing = input.timing ?? (downgrade ? ctx.catalog.planChanges.downgradeTiming : 'now');
  const lines = { products: products.map((p) => ({ ...p })), coupons };
  const computed = { s, customer, context, target, before, products, timing };

  if (timing === 'periodEnd') {
    // Nothing now: the renewal at the period's end bills the new plan for the new period.
    return {
      ...computed,
      invoice: null,
      nextRenewal: await renewalAfterChange(db, ctx, context, changed, lines, s.nextPeriodStart, anchorDayOf(s)),
      pendingChange: {
        planFrequencyId: target.frequency.id,
        quantities: Object.fromEntries(products.map((p) => [p.productCode, toJsonAmount(p.quantity)])),
        effectiveDate: s.nextPeriodStart,
        createdTimestamp: now.toISOString(),
      },
    };
  }

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
  return {
    ...computed,
    invoice,
    nextRenewal: await renewalAfterChange(db, ctx, context, changed, lines, invoice.nextPeriodStart, anchorDay, couponUses),
    pendingChange: null,
  };
}

/** A preview's answer: the subscription as it would be, the invoice as the preview shape shows it. */
async function previewAnswer(ctx: AppContext, caller: Caller, change: ComputedChange): Promise<PlanChangeResponse> {
  const { s, invoice } = change;
  if (!invoice) {
    return {
      subscription: { ...(await getSubscription(ctx, caller, s.id)), pendingChange: change.pendingChange },
      invoice: null,
      nextRenewal: change.nextRenewal,
    };
  }
  return {
    subscription: await subscriptionAfterChange(ctx, ctx.db, caller, s, change.target, change.products, invoice),
    invoice: toChangeInvoicePreview(invoice),
    nextRenewal: change.nextRenewal,
  };
}

/** A subscription named after its plan takes the new plan's name; a name of its own (subscriptionOverride) stays. */
function nameAfterChange(s: SubscriptionWithPlan, target: PlanFrequency): string {
  return s.name === s.planName ? target.plan.name : s.name;
}

/** Product code → quantity, as the audit entry and a pending change record them. */
function quantitiesOf(products: ReadonlyArray<{ productCode: string; quantity: string }>): Record<string, string> {
  return Object.fromEntries(products.map((p) => [p.productCode, p.quantity]));
}

/** The plan frequency to change to: Active, allowed by the catalogue from the subscription's plan, priced in its currency. */
async function targetFrequency(ctx: AppContext, db: Queryable, s: SubscriptionWithPlan, planFrequencyId: number): Promise<PlanFrequency> {
  const found = await findPlanFrequency(db, planFrequencyId);
  const refusal = targetRefusal(ctx, s, planFrequencyId, found);
  if (refusal) throw refusal;
  return found!;
}

/** Why a plan frequency cannot be the target of a change of `s` (targetFrequency's rule, which planChangeOptions lists by); undefined: it can. */
function targetRefusal(
  ctx: AppContext,
  s: SubscriptionWithPlan,
  planFrequencyId: number,
  found: PlanFrequency | undefined,
): Refusal | undefined {
  if (found?.frequency.status !== 'Active' || found.plan.status !== 'Active') {
    return Refusal.invalid(`no active plan frequency with id ${planFrequencyId}`, 'planFrequencyId', 'plan_unavailable');
  }
  if (!planChangeAllowed(ctx.catalog, s.planCode, found.plan.code)) {
    return Refusal.invalid(
      `a change from plan ${s.planCode} to plan ${found.plan.code} is not allowed (catalogue: planChanges.allowed)`,
      'planFrequencyId',
      'plan_unavailable',
    );
  }
  if (!found.frequency.charges.some((c) => c.currency === s.currency)) {
    return Refusal.invalid(
      `plan ${found.plan.code} is not offered in ${s.currency}, the subscription's currency`,
      'planFrequencyId',
      'plan_unavailable',
    );
  }
  return undefined;
}

/** A plan frequency a subscription may switch to, with what one period costs after the switch (before discounts and taxes). */
export interface PlanChangeTarget {
  planFrequencyId: number;
  planCode: string;
  planName: string;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  amount: number;
}

/** A product of the subscription's plan whose quantity may change (seats), with its bounds. */
export interface AdjustableQuantity {
  productCode: string;
  name: string;
  quantity: number;
  minQuantity: number;
  maxQuantity: number;
}

/**
 * What a subscription may change to (the customer portal's "Change plan" and "Seats"), by the rules a change is
 * checked against: every plan frequency targetFrequency accepts other than its own, with the per-period amount of
 * its products as productsAfterChange would leave them; and the products of its plan with a maxQuantity (the
 * others are fixed at their catalogue quantity). Reads only; the change itself is checked again when asked for.
 */
export async function planChangeOptions(
  ctx: AppContext,
  db: Queryable,
  s: SubscriptionWithPlan,
): Promise<{ targets: PlanChangeTarget[]; quantities: AdjustableQuantity[] }> {
  const plans = await selectPlans(db).where('status', '=', 'Active').orderBy('id').execute();
  const frequencies = await findFrequenciesOfPlans(
    db,
    plans.map((p) => p.id),
  );
  const before = await findProducts(db, [s.id]);
  const targets: PlanChangeTarget[] = [];
  for (const frequency of frequencies) {
    const plan = plans.find((p) => p.id === frequency.planId)!;
    if (frequency.id === s.planFrequencyId || targetRefusal(ctx, s, frequency.id, { frequency, plan })) continue;
    const products = productsAfterChange(s, before, { frequency, plan }, {});
    targets.push({
      planFrequencyId: frequency.id,
      planCode: plan.code,
      planName: plan.name,
      interval: frequency.interval,
      numberOfIntervals: frequency.numberOfIntervals,
      amount: toJsonAmount(revenueOf(products, frequency, s.currency).perPeriod),
    });
  }
  const current = await findPlanFrequency(db, s.planFrequencyId);
  const quantities: AdjustableQuantity[] = [];
  for (const p of current?.plan.products ?? []) {
    const held = before.find((b) => b.productCode === p.code);
    if (p.maxQuantity === undefined || !held) continue;
    quantities.push({
      productCode: p.code,
      name: held.name,
      quantity: toJsonAmount(held.quantity),
      minQuantity: p.minQuantity ?? 1,
      maxQuantity: p.maxQuantity,
    });
  }
  return { targets, quantities };
}

/** Checks a requested quantity against the target plan's product: an integer within its bounds, or its fixed quantity. */
function checkQuantity(plan: PlanRow, code: string, quantity: number) {
  const key = `quantities.${code}`;
  const product = plan.products.find((p) => p.code === code);
  if (!product) throw Refusal.invalid(`plan ${plan.code} has no product ${code}`, key);
  if (!Number.isInteger(quantity)) throw Refusal.invalid('must be a whole number', key);
  if (product.maxQuantity === undefined) {
    if (quantity !== product.quantity)
      throw Refusal.invalid(`the quantity of ${code} is fixed at ${product.quantity}`, key, 'quantity_fixed');
    return;
  }
  const min = product.minQuantity ?? 1;
  if (quantity < min || quantity > product.maxQuantity)
    throw Refusal.invalid(`must be from ${min} to ${product.maxQuantity}`, key, 'quantity_out_of_bounds');
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

/**
 * The SubscriptionChange e-mail (issue 28), in the change's transaction (the outbox: it commits with the change or
 * not at all): the plans before and after, the quantities that change, the change's invoice when one is posted, and
 * the next charge.
 */
async function enqueueChangeEmail(
  ctx: AppContext,
  trx: Queryable,
  customer: CustomerRow,
  change: Pick<ComputedChange, 's' | 'target'> & { before: ReadonlyArray<ChangedProduct>; products: ReadonlyArray<ChangedProduct> },
  stage: 'applied' | 'scheduled',
  effectiveDate: string,
  invoice: { number: number; total: Money } | null,
  nextCharge: PlanChangeResponse['nextRenewal'],
): Promise<void> {
  if (!ctx.notifier?.enabled) return;
  const { s, target } = change;
  const places = minorUnits(s.currency);
  const quantities = change.products.flatMap((p) => {
    const was = change.before.find((b) => b.productCode === p.productCode);
    return was && !money(was.quantity).eq(p.quantity)
      ? [{ product: p.name, from: money(was.quantity).toString(), to: money(p.quantity).toString() }]
      : [];
  });
  await ctx.notifier.enqueue(trx, customer, {
    type: 'SubscriptionChange',
    stage,
    effectiveDate,
    from: { name: s.planName, interval: s.interval, numberOfIntervals: s.numberOfIntervals },
    to: { name: target.plan.name, interval: target.frequency.interval, numberOfIntervals: target.frequency.numberOfIntervals },
    quantities,
    currency: s.currency,
    invoice: invoice && { number: invoice.number, total: invoice.total.toFixed(places) },
    nextCharge: { date: nextCharge.date, amount: money(nextCharge.amount).toFixed(places) },
  });
}

/**
 * A renewal that applies a scheduled change bills the new plan for the period starting now; the charge its e-mail
 * announces is the renewal after that one: its date and total (the coupons this renewal uses counted).
 */
async function renewalAfterTheOneApplying(
  ctx: AppContext,
  trx: Queryable,
  customer: CustomerRow,
  subscriptionId: number,
): Promise<PlanChangeResponse['nextRenewal']> {
  const changed = (await findSubscription(trx, customer.accountId, subscriptionId))!;
  const context = await loadBillingContext(trx, ctx.catalog, customer);
  const periodStart = changed.nextPeriodStart!;
  const anchorDay = anchorDayOf(changed);
  const [renewal] = await computeCustomerInvoices(
    trx,
    ctx.catalog,
    context,
    [{ subscription: changed, periodStart, isFirstInvoice: false, anchorDay }],
    { effectiveDate: periodStart },
  );
  const next =
    renewal?.nextPeriodStart[subscriptionId] ??
    periodEndOf(periodStart, changed.interval, changed.numberOfIntervals, ruleFor(changed.interval, context.billingPeriods), anchorDay);
  const couponUses = Object.fromEntries((renewal?.couponsApplied[subscriptionId] ?? []).map((code) => [code, 1]));
  return renewalAfterChange(trx, ctx, context, changed, undefined, next, anchorDay, couponUses);
}
