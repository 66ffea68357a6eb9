import { API_ERROR_KEY } from '../refusals/error-codes.js';
import { Refusal } from '../refusals/refusal.js';
import { recordChange } from '../audit/audit-log.js';
import type { Catalog } from '../catalog/schema.js';
import { lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import { findPlanFrequency } from '../plans/repository.js';
import {
  claimPendingChanges,
  findProducts,
  findSubscription,
  insertProducts,
  insertSubscription,
  findSubscriptionCustomerId,
  lockSubscription,
  replaceCoupons,
  updateProduct,
  updateSubscriptionRow,
} from './repository.js';
import type { CreateSubscriptionInput, SubscriptionResponse, UpdateSubscriptionInput } from './schemas.js';
import { toPendingChangeResponse, toSubscriptionResponses } from './subscription-response.js';

export async function getSubscription(ctx: AppContext, caller: Caller, id: number): Promise<SubscriptionResponse> {
  const row = await findSubscription(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('subscription', id);
  const [response] = await toSubscriptionResponses(ctx.db, ctx.catalog, ctx.uris, [row]);
  if (!response) throw new Error('toSubscriptionResponses answers one response per row');
  return response;
}

/** One product of a subscription, as the subscription embeds it. */
export async function getSubscriptionProduct(
  ctx: AppContext,
  caller: Caller,
  id: number,
  productId: number,
): Promise<SubscriptionResponse['subscriptionProducts'][number]> {
  const product = (await getSubscription(ctx, caller, id)).subscriptionProducts.find((p) => p.id === productId);
  if (!product) throw Refusal.notFound('subscription product', productId);
  return product;
}

/** A Draft subscription of a plan frequency, its products copied from the plan at the customer's currency. */
export async function createSubscription(ctx: AppContext, caller: Caller, input: CreateSubscriptionInput): Promise<SubscriptionResponse> {
  const found = await findPlanFrequency(ctx.db, input.planFrequencyId);
  if (found?.frequency.status !== 'Active' || found.plan.status !== 'Active') {
    throw Refusal.invalid(`no active plan frequency with id ${input.planFrequencyId}`, 'planFrequencyId', 'not_found');
  }
  const { frequency, plan } = found;
  if (input.code != null && input.code.toLowerCase() !== plan.code.toLowerCase()) {
    throw Refusal.invalid(`plan frequency ${frequency.id} belongs to plan ${plan.code}, not ${input.code}`, 'code', 'value_invalid');
  }
  const id = await ctx.db.transaction().execute(async (trx) => {
    const customer = await lockCustomer(trx, caller.accountId, input.customerId);
    if (!customer) throw Refusal.notFound('customer', input.customerId);
    if (customer.status === 'Cancelled')
      throw Refusal.invalid('a cancelled customer cannot get new subscriptions', 'customerId', 'state_conflict');
    if (!frequency.charges.some((c) => c.currency === customer.currency)) {
      throw Refusal.invalid(
        `plan ${plan.code} is not offered in ${customer.currency}, the customer's currency`,
        'planFrequencyId',
        'plan_unavailable',
      );
    }
    // created on the account's clock (a test clock's time), as the customer was: not the database's own now()
    const now = await ctx.clock.now(caller.accountId, trx);
    const subscriptionId = await insertSubscription(trx, {
      accountId: caller.accountId,
      customerId: customer.id,
      planFrequencyId: frequency.id,
      code: plan.code,
      name: input.name ?? plan.name,
      description: null,
      reference: input.reference ?? null,
      currency: customer.currency,
      contractStartAt: null,
      contractEndAt: null,
      expiresAt: null,
      activatedAt: null,
      suspendedAt: null,
      cancelledAt: null,
      cancellationOption: null,
      createdAt: now,
      modifiedAt: now,
    });
    // Each product at its catalogue price for this frequency and the customer's currency.
    const unitAmount = (list: Array<{ currency: string; amount: string }> | undefined) =>
      list?.find((a) => a.currency === customer.currency)?.amount ?? '0';
    await insertProducts(
      trx,
      plan.products.map((p, position) => {
        const price = frequency.prices.find((x) => x.product === p.code);
        return {
          subscriptionId,
          position,
          productCode: p.code,
          name: p.name,
          description: p.description ?? null,
          quantity: String(p.quantity),
          catalogPrice: unitAmount(price?.charges),
          setupFee: unitAmount(price?.setupFees),
          priceOverride: null,
          discountKind: null,
          discountValue: null,
        };
      }),
    );
    await recordChange(trx, caller, { entityType: 'Subscription', entityId: subscriptionId, action: 'create', changes: { ...input } });
    await ctx.webhooks?.subscription(trx, caller.accountId, input.customerId, subscriptionId, 'subscription.created', now);
    return subscriptionId;
  });
  return getSubscription(ctx, caller, id);
}

/**
 * DELETE /v1/subscriptions/{id}/changes/pending (issue 28, an extension): withdraws the plan change scheduled for the
 * period end. The row is claimed with one delete … returning, so of a withdrawal and the renewal that would apply
 * it, exactly one gets it; none pending (never, withdrawn, or applied meanwhile) is a 404 keyed `id`.
 */
export async function withdrawPendingChange(ctx: AppContext, caller: Caller, id: number): Promise<SubscriptionResponse> {
  const customerId = await findSubscriptionCustomerId(ctx.db, caller.accountId, id);
  if (customerId === undefined) throw Refusal.notFound('subscription', id);
  const now = await ctx.clock.now(caller.accountId);
  await transactionWithRetry(ctx.db, async (trx) => {
    const [withdrawn] = await claimPendingChanges(trx, [id]);
    if (!withdrawn)
      throw new Refusal('not_found', [{ Key: 'id', Value: `subscription ${id} has no plan change pending`, Code: 'not_found' }]);
    await recordChange(trx, caller, {
      entityType: 'Subscription',
      entityId: id,
      action: 'update',
      changes: { pendingChange: [toPendingChangeResponse(withdrawn), null] },
    });
    await ctx.webhooks?.subscription(trx, caller.accountId, customerId, id, 'subscription.updated', now);
  });
  return getSubscription(ctx, caller, id);
}

/** Status changes belong to the customer lifecycle; PUT keeps the status as it is. */
function assertSubscriptionStatusUnchanged(from: string, to: string) {
  if (from === to) return;
  throw Refusal.invalid(
    `status cannot change from ${from} to ${to} through PUT; subscriptions follow their customer (POST /v1/customeractivation, /v1/customerhold, /v1/customercancellation)`,
    'status',
    to === 'Draft' ? 'subscription_not_draft' : 'value_invalid',
  );
}

/**
 * Full replacement of what a subscription customises: name and description,
 * reference, contract and expiry dates, and per product quantity, price
 * override, inclusion and discount, and the coupon list. Products left out of
 * the list return to the plan's defaults (PUT does not preserve omitted fields).
 */
export async function updateSubscription(ctx: AppContext, caller: Caller, input: UpdateSubscriptionInput): Promise<SubscriptionResponse> {
  await transactionWithRetry(ctx.db, async (trx) => {
    // the customer first, as activation and cancellation lock it before its subscriptions: one order, no deadlock
    const customerId = await findSubscriptionCustomerId(trx, caller.accountId, input.id);
    if (customerId !== undefined) await lockCustomer(trx, caller.accountId, customerId);
    const current = await lockSubscription(trx, caller.accountId, input.id);
    if (!current) throw Refusal.notFound('subscription', input.id);
    if (input.customerId != null && input.customerId !== current.customerId) {
      throw Refusal.invalid('a subscription cannot move to another customer', 'customerId', 'value_invalid');
    }
    assertSubscriptionStatusUnchanged(current.status, input.status);
    if (current.status === 'Cancelled') throw Refusal.invalid('a cancelled subscription cannot change', API_ERROR_KEY, 'state_conflict');
    const found = await findPlanFrequency(trx, current.planFrequencyId);
    assertPlanUnchanged(input, current.planFrequencyId, found?.plan);

    const couponCodes = resolveCoupons(ctx.catalog, input.coupons ?? [], current.currency);
    const products = await findProducts(trx, [current.id]);
    const given = input.subscriptionProducts ?? [];
    given.forEach((p, i) => {
      if (!products.some((existing) => existing.id === p.id)) {
        throw Refusal.invalid(`subscription ${current.id} has no product ${p.id}`, `subscriptionProducts[${i}].id`, 'not_found');
      }
      if (given.findIndex((other) => other.id === p.id) !== i) {
        throw Refusal.invalid(`product ${p.id} is listed twice`, `subscriptionProducts[${i}].id`, 'value_invalid');
      }
      // Money in the subscription's currency has its minor units, no more (USD 2, JPY 0, BHD 3).
      if (p.priceOverride != null) amountInCurrency(p.priceOverride, current.currency, `subscriptionProducts[${i}].priceOverride`);
      if (p.discount?.type === 'Amount')
        amountInCurrency(p.discount.amount, current.currency, `subscriptionProducts[${i}].discount.amount`);
    });
    const planQuantity = (code: string) => found?.plan.products.find((p) => p.code === code)?.quantity ?? 1;
    for (const product of products) {
      const change = given.find((p) => p.id === product.id);
      await updateProduct(trx, product.id, {
        quantity: change?.quantity ?? String(planQuantity(product.productCode)),
        included: change?.isIncluded ?? true,
        priceOverride: change?.priceOverride ?? null,
        discountKind: change?.discount?.type ?? null,
        discountValue: change?.discount?.amount ?? null,
      });
    }
    await replaceCoupons(trx, current.id, couponCodes);
    const contractStart = input.contractStartTimestamp ? utcDate(input.contractStartTimestamp) : null;
    const contractEnd = input.contractEndTimestamp ? utcDate(input.contractEndTimestamp) : null;
    if (contractStart && contractEnd && contractEnd <= contractStart) {
      throw Refusal.invalid('must be after contractStartTimestamp', 'contractEndTimestamp', 'value_invalid');
    }
    await updateSubscriptionRow(trx, current.id, {
      name: input.subscriptionOverride?.name ?? found?.plan.name ?? current.name,
      description: input.subscriptionOverride?.description ?? null,
      reference: input.reference ?? null,
      contractStartAt: contractStart,
      contractEndAt: contractEnd,
      expiresAt: input.expiredTimestamp ? utcDate(input.expiredTimestamp) : null,
      customFields: input.customFields ? JSON.stringify(input.customFields) : null,
      modifiedAt: await ctx.clock.now(caller.accountId, trx),
    });
    await recordChange(trx, caller, { entityType: 'Subscription', entityId: current.id, action: 'update', changes: { ...input } });
  });
  return getSubscription(ctx, caller, input.id);
}

/**
 * The plan a subscription is of is read only: the GET's plan fields sent back
 * are accepted, another frequency or plan is refused on its field (a plan change
 * is not supported) rather than ignored.
 */
function assertPlanUnchanged(
  input: UpdateSubscriptionInput,
  planFrequencyId: number,
  plan: { code: string; name: string; description: string | null; reference: string | null } | undefined,
) {
  const frequencyChange = 'the plan frequency of a subscription cannot change; cancel it and create a subscription of the other frequency';
  if (input.planFrequency?.id != null && input.planFrequency.id !== planFrequencyId)
    throw Refusal.invalid(frequencyChange, 'planFrequency.id', 'value_invalid');
  if (input.planFrequencyId != null && input.planFrequencyId !== planFrequencyId)
    throw Refusal.invalid(frequencyChange, 'planFrequencyId', 'value_invalid');
  if (!plan) return;
  if (input.planCode != null && input.planCode.toLowerCase() !== plan.code.toLowerCase()) {
    throw Refusal.invalid(`the subscription is of plan ${plan.code}; its plan cannot change`, 'planCode', 'value_invalid');
  }
  const readOnly = [
    ['planName', plan.name, 'rename the subscription with subscriptionOverride.name'],
    ['planDescription', plan.description, 'describe the subscription with subscriptionOverride.description'],
    ['planReference', plan.reference, 'the subscription has its own reference'],
  ] as const;
  for (const [field, value, hint] of readOnly) {
    const given = input[field];
    if (given != null && given !== value) throw Refusal.invalid(`is the plan's and read only (${hint})`, field, 'value_invalid');
  }
}

/** A timestamp without an offset is UTC (as everywhere in the API), whatever the server's time zone. */
function utcDate(value: string): Date {
  return new Date(/T[^Z+-]*$/i.test(value) ? `${value}Z` : value);
}

/** Coupon codes must exist in the catalogue; an amount coupon must be in the subscription's currency. */
function resolveCoupons(catalog: Catalog, coupons: ReadonlyArray<{ code: string }>, currency: string): string[] {
  const codes: string[] = [];
  coupons.forEach((given, i) => {
    const coupon = catalog.coupons.find((c) => c.code.toLowerCase() === given.code.toLowerCase());
    if (!coupon) throw Refusal.invalid(`unknown coupon code "${given.code}"`, `coupons[${i}].code`, 'coupon_unknown');
    if (coupon.kind === 'Amount' && coupon.currency && coupon.currency !== currency) {
      throw Refusal.invalid(
        `coupon ${coupon.code} is in ${coupon.currency}, the subscription in ${currency}`,
        `coupons[${i}].code`,
        'coupon_inapplicable',
      );
    }
    if (codes.includes(coupon.code))
      throw Refusal.invalid(`coupon ${coupon.code} is listed twice`, `coupons[${i}].code`, 'coupon_inapplicable');
    codes.push(coupon.code);
  });
  return codes;
}
