import type { AppContext } from '../app-context.js';
import { planChangeAllowed } from '../catalog/schema.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { BillingContext } from '../invoices/billing-run.js';
import type { PlanChangeInvoice } from '../invoices/engine/index.js';
import { findPlanFrequency, type PlanRow } from '../plans/repository.js';
import { Refusal } from '../refusals/refusal.js';
import type { SubscriptionProductRow, SubscriptionWithPlan } from '../subscriptions/repository.js';
import type { PlanChangeResponse } from './schemas.js';

export type PlanFrequency = NonNullable<Awaited<ReturnType<typeof findPlanFrequency>>>;
/** A product as it will be after the change; id 0: a product the change adds (created when it applies). */
export type ChangedProduct = Omit<SubscriptionProductRow, 'position'>;

/** What a change computes, before anything is written. */
export interface ComputedChange {
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

export type PendingChange = NonNullable<PlanChangeResponse['subscription']['pendingChange']>;

/** A subscription named after its plan takes the new plan's name; a name of its own (subscriptionOverride) stays. */
export function nameAfterChange(s: SubscriptionWithPlan, target: PlanFrequency): string {
  return s.name === s.planName ? target.plan.name : s.name;
}

/** Product code → quantity, as the audit entry and a pending change record them. */
export function quantitiesOf(products: ReadonlyArray<{ productCode: string; quantity: string }>): Record<string, string> {
  return Object.fromEntries(products.map((p) => [p.productCode, p.quantity]));
}

/** The plan frequency to change to: Active, allowed by the catalogue from the subscription's plan, priced in its currency. */
export async function targetFrequency(
  ctx: AppContext,
  db: Queryable,
  s: SubscriptionWithPlan,
  planFrequencyId: number,
): Promise<PlanFrequency> {
  const found = await findPlanFrequency(db, planFrequencyId);
  const refusal = targetRefusal(ctx, s, planFrequencyId, found);
  if (refusal) throw refusal;
  if (!found) throw new Error('targetRefusal refuses a plan frequency that does not exist');
  return found;
}

/** Why a plan frequency cannot be the target of a change of `s` (targetFrequency's rule, which planChangeOptions lists by); undefined: it can. */
export function targetRefusal(
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

/** Checks a requested quantity against the target plan's product: an integer within its bounds, or its fixed quantity. */
function checkQuantity(plan: PlanRow, code: string, quantity: number) {
  const key = `quantities.${code}`;
  const product = plan.products.find((p) => p.code === code);
  if (!product) throw Refusal.invalid(`plan ${plan.code} has no product ${code}`, key, 'value_invalid');
  if (!Number.isInteger(quantity)) throw Refusal.invalid('must be a whole number', key, 'value_invalid');
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
export function productsAfterChange(
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
