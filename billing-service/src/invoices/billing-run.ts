import { recordCreated } from '../db/keyed-commit.js';
import { effectiveBillingSettings, type EffectiveBillingSettings } from '../billing-settings/effective-settings.js';
import { findBillingInputs } from '../billing-settings/repository.js';
import type { Catalog } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { minorUnits, money, type Money } from '../money/money.js';
import type { ResourceWebhooks } from '../outbox/webhook-events.js';
import { rememberEnabledEndpoints } from '../outbox/webhook-repository.js';
import type { CustomerNotifier } from '../outbox/notifications.js';
import { effectiveUnitPrice } from '../plans/recurring-revenue.js';
import { markPurchasesInvoiced, type PurchaseRow } from '../purchases/repository.js';
import {
  advanceSubscriptionPeriods,
  countCouponUses,
  findCoupons,
  findProducts,
  type SubscriptionMove,
} from '../subscriptions/repository.js';
import {
  attachPurchases,
  computeInvoices,
  purchaseIdsOf,
  type BillingPeriodRule,
  type DraftInvoice,
  type EngineInput,
  type EngineSubscription,
  type EngineUsage,
} from './engine/index.js';
import { findBillingRunInputs, insertInvoice, type BilledCoupon, type BilledProduct, type BilledSubscription } from './repository.js';
import { taxRatesFor } from './tax-rates.js';

/** What billing a customer needs from the database, loaded once per operation. */
export interface BillingContext {
  customer: CustomerRow;
  settings: EffectiveBillingSettings;
  billingPeriods: EngineInput['billingPeriods'];
  taxRates: EngineInput['taxRates'];
}

export async function loadBillingContext(db: Queryable, catalog: Catalog, customer: CustomerRow): Promise<BillingContext> {
  return billingContextOf(catalog, customer, await findBillingInputs(db, customer.id));
}

/** The products and coupons of the subscriptions billed, when read already (see loadBillingRun). */
export interface SubscriptionLines {
  products: BilledProduct[];
  coupons: BilledCoupon[];
}

/**
 * The billing context and the customer's subscriptions in `statuses` with their products and
 * coupons, in one round trip (an activation and its preview). `holdsFunds`: whether the customer
 * has unallocated payments or credits (see saveInvoices). The account's enabled webhook endpoints
 * come with it, for the transaction's events.
 */
export async function loadBillingRun(db: Queryable, catalog: Catalog, customer: CustomerRow, statuses: readonly string[]) {
  const { inputs, subscriptions, products, coupons, holdsFunds, enabledWebhookEndpoints } = await findBillingRunInputs(
    db,
    customer.id,
    statuses,
  );
  const lines: SubscriptionLines = { products, coupons };
  // the events of this transaction (customer.activated, invoice.posted) go to these, without another read
  rememberEnabledEndpoints(db, customer.accountId, enabledWebhookEndpoints);
  return { context: billingContextOf(catalog, customer, inputs), subscriptions, lines, holdsFunds };
}

function billingContextOf(catalog: Catalog, customer: CustomerRow, inputs: Awaited<ReturnType<typeof findBillingInputs>>): BillingContext {
  const { setting, periods, billingAddress, shippingAddress } = inputs;
  const settings = effectiveBillingSettings(setting, catalog);
  const address = settings.useCustomerBillingAddress ? billingAddress : shippingAddress;
  const billingPeriods: EngineInput['billingPeriods'] = {};
  for (const p of periods) {
    billingPeriods[p.interval as 'Monthly' | 'Yearly'] = { type: p.type, rule: p.rule, day: p.day, month: p.month } as BillingPeriodRule;
  }
  return { customer, settings, billingPeriods, taxRates: settings.taxExempt ? [] : taxRatesFor(catalog, address) };
}

/** One period to bill for a subscription. */
export interface PeriodToBill {
  subscription: BilledSubscription;
  periodStart: string;
  isFirstInvoice: boolean;
  anchorDay?: number | null;
  /** Bills only the rest of the period, from this date (a customer back mid-period; see EngineSubscription.billFrom). */
  billFrom?: string;
  /** Forces proration of a partial period (unhold with `prorate`, a rest billed again on uncancel). */
  prorate?: boolean;
  /** Uses of the subscription's coupons (by code) on invoices computed before this one and not saved yet. */
  couponUses?: Record<string, number>;
  /** Usage of the period before, billed in arrears with this one (issue 41; a renewal's, see usage-to-bill.ts). */
  usage?: EngineUsage[];
}

/** Builds the engine's subscriptions from stored subscriptions, their products and coupons. */
export async function engineSubscriptions(
  db: Queryable,
  catalog: Catalog,
  periods: PeriodToBill[],
  lines?: SubscriptionLines,
): Promise<EngineSubscription[]> {
  const ids = [...new Set(periods.map((p) => p.subscription.id))];
  const { products, coupons }: SubscriptionLines = lines ?? (await readLines(db, ids));
  return periods.map(({ subscription: s, periodStart, isFirstInvoice, anchorDay, billFrom, prorate, couponUses, usage }) => ({
    subscriptionId: s.id,
    name: s.name,
    interval: s.interval,
    numberOfIntervals: s.numberOfIntervals,
    isProrated: prorate ?? s.isProrated,
    periodStart,
    anchorDay: anchorDay ?? null,
    billFrom: billFrom ?? null,
    isFirstInvoice,
    ...(usage === undefined ? {} : { usage }),
    products: products
      .filter((p) => p.subscriptionId === s.id)
      .map((p) => ({
        productCode: p.productCode,
        name: p.name,
        description: p.description,
        quantity: money(p.quantity),
        unitPrice: money(effectiveUnitPrice(p)),
        setupFee: money(p.setupFee),
        included: p.included,
        discount: p.discountKind ? { kind: p.discountKind as 'Percentage' | 'Amount', value: money(p.discountValue ?? 0) } : null,
      })),
    coupons: coupons
      .filter((c) => c.subscriptionId === s.id)
      .flatMap((c) => {
        const coupon = catalog.coupons.find((k) => k.code === c.couponCode);
        if (!coupon) return [];
        const periodsUsed = c.periodsUsed + (couponUses?.[c.couponCode] ?? 0);
        return [
          {
            code: coupon.code,
            name: coupon.name ?? null,
            kind: coupon.kind,
            value: money(coupon.value),
            duration: coupon.duration,
            periods: coupon.periods ?? null,
            periodsUsed,
            lastUsedOn: c.lastUsedOn ?? null,
            lastUsedUntil: c.lastUsedUntil ?? null,
          },
        ];
      }),
  }));
}

async function readLines(db: Queryable, subscriptionIds: number[]): Promise<SubscriptionLines> {
  const [products, coupons] = await Promise.all([findProducts(db, subscriptionIds), findCoupons(db, subscriptionIds)]);
  return { products, coupons };
}

/** Computes the invoices for the given periods (pure engine), with the customer's settings. */
export async function computeCustomerInvoices(
  db: Queryable,
  catalog: Catalog,
  context: BillingContext,
  periods: PeriodToBill[],
  options: {
    effectiveDate: string;
    showZeroDollarCharges?: boolean;
    billingPeriods?: EngineInput['billingPeriods'];
    /** The subscriptions' products and coupons, when read already (loadBillingRun). */
    lines?: SubscriptionLines;
  },
): Promise<DraftInvoice[]> {
  if (periods.length === 0) return [];
  return computeInvoices({
    currency: context.customer.currency,
    effectiveDate: options.effectiveDate,
    subscriptions: await engineSubscriptions(db, catalog, periods, options.lines),
    billingPeriods: options.billingPeriods ?? context.billingPeriods,
    taxRates: context.taxRates,
    term: context.settings.term,
    showZeroDollarCharges: options.showZeroDollarCharges ?? context.settings.showZeroDollarCharges,
    rollUpTaxes: context.settings.rollUpTaxes,
    rollUpDiscounts: context.settings.rollUpDiscounts,
  });
}

/**
 * The invoices with these purchases billed on the first (an activation's, a renewal's), or on an invoice of
 * their own when there is none (invoiceNow): taxed with the customer's rates, as the engine bills products.
 */
export function withPurchases(context: BillingContext, drafts: DraftInvoice[], purchases: readonly PurchaseRow[], effectiveDate: string) {
  return attachPurchases(
    drafts,
    purchases.map((p) => ({
      purchaseId: p.id,
      productCode: p.productCode ?? '',
      name: p.name,
      description: p.description,
      quantity: money(p.quantity),
      unitPrice: money(p.unitPrice),
      amount: money(p.amount),
    })),
    {
      currency: context.customer.currency,
      effectiveDate,
      term: context.settings.term,
      taxRates: context.taxRates,
      rollUpTaxes: context.settings.rollUpTaxes,
    },
  );
}

/**
 * Stores computed invoices in the caller's transaction: numbered, posted (a
 * ledger entry, then available funds allocated oldest first) or left Draft;
 * subscriptions move to their next period, applied coupons count one use, and the purchases billed are Invoiced.
 */
export async function saveInvoices(
  db: Queryable,
  context: BillingContext,
  drafts: DraftInvoice[],
  options: {
    post: boolean;
    now: Date;
    notifier?: CustomerNotifier;
    webhooks?: ResourceWebhooks;
    /**
     * false: the customer holds no unallocated payment or credit (read under its lock in this
     * transaction), so posting allocates nothing and the allocation's read is skipped.
     */
    holdsFunds?: boolean;
  },
): Promise<number[]> {
  const { customer } = context;
  const ids: number[] = [];
  for (const draft of drafts) {
    const moves = subscriptionMoves(draft);
    for (const [subscriptionId, codes] of Object.entries(draft.couponsApplied)) {
      // a coupon discounts recurring lines only, so the period it was used on is the one the subscription moves to
      const move = moves.find((m) => m.id === Number(subscriptionId));
      await countCouponUses(
        db,
        Number(subscriptionId),
        codes,
        move?.currentPeriodStart ?? draft.effectiveDate,
        move?.next ?? draft.effectiveDate,
      );
    }
    // Every line dropped (nothing to charge): the period still moves on, no invoice.
    if (draft.charges.length === 0) {
      await advanceSubscriptionPeriods(db, moves, options.now);
      continue;
    }
    // the subscriptions move on and a posted invoice's ledger entry is written in the invoice's statement
    const { id: invoiceId, invoiceNumber } = await insertInvoice(
      db,
      {
        accountId: customer.accountId,
        customerId: customer.id,
        status: options.post ? 'Posted' : 'Draft',
        terms: context.settings.term,
        poNumber: context.settings.poNumber,
        postedAt: options.post ? options.now : null,
      },
      draft,
      { subscriptionMoves: { moves, now: options.now }, ledgerEntry: options.post },
    );
    ids.push(invoiceId);
    recordCreated('Invoice', invoiceId);
    // the purchases it bills are Invoiced in its transaction: billed once
    await markPurchasesInvoiced(db, purchaseIdsOf(draft), invoiceId, options.now);
    if (options.post)
      await announcePostedInvoice(db, customer, { id: invoiceId, invoiceNumber, total: draft.total, dueDate: draft.dueDate }, options);
  }
  if (options.post && drafts.length > 0 && options.holdsFunds !== false) await applyHeldFunds(db, customer, options);
  return ids;
}

/** What every posting tells, in the posting's transaction: invoice.posted to webhooks, the InvoicePost e-mail. */
export async function announcePostedInvoice(
  db: Queryable,
  customer: CustomerRow,
  invoice: { id: number; invoiceNumber: number; total: Money; dueDate: string },
  options: { now: Date; notifier?: CustomerNotifier; webhooks?: ResourceWebhooks },
) {
  await options.webhooks?.invoice(db, customer.accountId, customer.id, invoice.id, 'invoice.posted', options.now);
  await options.notifier?.enqueue(db, customer, {
    type: 'InvoicePost',
    invoiceId: invoice.id,
    invoiceNumber: invoice.invoiceNumber,
    amount: invoice.total.toFixed(minorUnits(customer.currency)),
    currency: customer.currency,
    dueDate: invoice.dueDate,
  });
}

/**
 * After posting: the money the customer holds (unallocated payments and credits) pays its open
 * invoices, oldest due first; invoice.paid for each it pays off. Under the customer's lock.
 */
export async function applyHeldFunds(db: Queryable, customer: CustomerRow, options: { now: Date; webhooks?: ResourceWebhooks }) {
  const allocations = await allocateAvailableFunds(db, customer.accountId, customer.id, options.now);
  await options.webhooks?.paidInvoices(
    db,
    customer.accountId,
    customer.id,
    allocations.map((a) => a.invoiceId),
    options.now,
  );
}

/** Each billed subscription moves to its next period (and its current one, when a recurring charge starts it). */
function subscriptionMoves(draft: DraftInvoice): SubscriptionMove[] {
  return Object.entries(draft.nextPeriodStart).map(([subscriptionId, next]) => ({
    id: Number(subscriptionId),
    next,
    currentPeriodStart: draft.charges.find((c) => c.subscriptionId === Number(subscriptionId) && c.kind === 'Recurring')?.startServiceDate,
  }));
}

/** Today's date in UTC, as the engine takes dates. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}
