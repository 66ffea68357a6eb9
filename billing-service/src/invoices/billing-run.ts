import { effectiveBillingSettings, type EffectiveBillingSettings } from '../billing-settings/effective-settings.js';
import { findBillingInputs } from '../billing-settings/repository.js';
import type { Catalog } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import { allocateAvailableFunds } from '../ledger/allocation.js';
import { addLedgerEntry } from '../ledger/entries.js';
import { minorUnits, money } from '../money/money.js';
import type { ResourceWebhooks } from '../webhooks/events.js';
import type { Notifier } from '../notifications/notifier.js';
import { effectiveUnitPrice } from '../subscriptions/recurring-revenue.js';
import { advanceSubscriptionPeriods, countCouponUses, findCoupons, findProducts, type SubscriptionWithPlan } from '../subscriptions/repository.js';
import {
  computeInvoices,
  type BillingPeriodRule,
  type DraftInvoice,
  type EngineInput,
  type EngineSubscription,
} from './engine/index.js';
import { insertInvoice } from './repository.js';
import { taxRatesFor } from './tax-rates.js';

/** What billing a customer needs from the database, loaded once per operation. */
export interface BillingContext {
  customer: CustomerRow;
  settings: EffectiveBillingSettings;
  billingPeriods: EngineInput['billingPeriods'];
  taxRates: EngineInput['taxRates'];
}

export async function loadBillingContext(db: Queryable, catalog: Catalog, customer: CustomerRow): Promise<BillingContext> {
  const { setting, periods, billingAddress, shippingAddress } = await findBillingInputs(db, customer.id);
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
  subscription: SubscriptionWithPlan;
  periodStart: string;
  isFirstInvoice: boolean;
  anchorDay?: number | null;
  /** Forces proration of a partial period (unhold with `prorate`). */
  prorate?: boolean;
  /** Uses of the subscription's coupons (by code) on invoices computed before this one and not saved yet. */
  couponUses?: Record<string, number>;
}

/** Builds the engine's subscriptions from stored subscriptions, their products and coupons. */
export async function engineSubscriptions(db: Queryable, catalog: Catalog, periods: PeriodToBill[]): Promise<EngineSubscription[]> {
  const ids = [...new Set(periods.map((p) => p.subscription.id))];
  const [products, coupons] = await Promise.all([findProducts(db, ids), findCoupons(db, ids)]);
  return periods.map(({ subscription: s, periodStart, isFirstInvoice, anchorDay, prorate, couponUses }) => ({
    subscriptionId: s.id,
    name: s.name,
    interval: s.interval,
    numberOfIntervals: s.numberOfIntervals,
    isProrated: prorate ?? s.isProrated,
    periodStart,
    anchorDay: anchorDay ?? null,
    isFirstInvoice,
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
        return [{ code: coupon.code, name: coupon.name ?? null, kind: coupon.kind, value: money(coupon.value), duration: coupon.duration, periods: coupon.periods ?? null, periodsUsed }];
      }),
  }));
}

/** Computes the invoices for the given periods (pure engine), with the customer's settings. */
export async function computeCustomerInvoices(
  db: Queryable,
  catalog: Catalog,
  context: BillingContext,
  periods: PeriodToBill[],
  options: { effectiveDate: string; showZeroDollarCharges?: boolean; billingPeriods?: EngineInput['billingPeriods'] },
): Promise<DraftInvoice[]> {
  if (periods.length === 0) return [];
  return computeInvoices({
    currency: context.customer.currency,
    effectiveDate: options.effectiveDate,
    subscriptions: await engineSubscriptions(db, catalog, periods),
    billingPeriods: options.billingPeriods ?? context.billingPeriods,
    taxRates: context.taxRates,
    term: context.settings.term,
    showZeroDollarCharges: options.showZeroDollarCharges ?? context.settings.showZeroDollarCharges,
    rollUpTaxes: context.settings.rollUpTaxes,
    rollUpDiscounts: context.settings.rollUpDiscounts,
  });
}

/**
 * Stores computed invoices in the caller's transaction: numbered, posted (a
 * ledger entry, then available funds allocated oldest first) or left Draft;
 * subscriptions move to their next period and applied coupons count one use.
 */
export async function saveInvoices(
  db: Queryable,
  context: BillingContext,
  drafts: DraftInvoice[],
  options: { post: boolean; now: Date; notifier?: Notifier; webhooks?: ResourceWebhooks },
): Promise<number[]> {
  const { customer } = context;
  const ids: number[] = [];
  for (const draft of drafts) {
    await moveSubscriptionsOn(db, draft, options.now);
    // Every line dropped (nothing to charge): the period still moves on, no invoice.
    if (draft.charges.length === 0) continue;
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
    );
    ids.push(invoiceId);
    if (options.post) {
      await addLedgerEntry(db, {
        accountId: customer.accountId,
        customerId: customer.id,
        entryType: 'invoice',
        amount: draft.total,
        invoiceId,
        dueAt: new Date(`${draft.dueDate}T00:00:00Z`),
        effectiveAt: new Date(`${draft.effectiveDate}T00:00:00Z`),
      });
      await options.webhooks?.invoice(db, customer.accountId, customer.id, invoiceId, 'invoice.posted', options.now);
      await options.notifier?.enqueue(db, customer, {
        type: 'InvoicePost',
        invoiceId,
        invoiceNumber,
        amount: draft.total.toFixed(minorUnits(customer.currency)),
        currency: customer.currency,
        dueDate: draft.dueDate,
      });
    }
  }
  if (options.post && drafts.length > 0) {
    const allocations = await allocateAvailableFunds(db, customer.accountId, customer.id);
    await options.webhooks?.paidInvoices(db, customer.accountId, customer.id, allocations.map((a) => a.invoiceId), options.now);
  }
  return ids;
}

/** Each billed subscription moves to its next period; applied coupons count one use. */
async function moveSubscriptionsOn(db: Queryable, draft: DraftInvoice, now: Date) {
  const moves = Object.entries(draft.nextPeriodStart).map(([subscriptionId, next]) => ({
    id: Number(subscriptionId),
    next,
    currentPeriodStart: draft.charges.find((c) => c.subscriptionId === Number(subscriptionId) && c.kind === 'Recurring')?.startServiceDate,
  }));
  await advanceSubscriptionPeriods(db, moves, now);
  for (const [subscriptionId, codes] of Object.entries(draft.couponsApplied)) await countCouponUses(db, Number(subscriptionId), codes);
}

/** Today's date in UTC, as the engine takes dates. */
export function utcDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}
