import { Refusal } from '../refusals/refusal.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { UriBuilder } from '../uri-builder.js';
import { findCurrency } from '../catalog/currencies.js';
import { toJsonAmount } from '../money/money.js';
import {
  countSubscriptionsByFrequency,
  findFrequenciesOfPlans,
  findPlan,
  findPlanFrequency,
  type PlanFrequencyRow,
  type PlanRow,
} from './repository.js';
import type { AmountObject, PlanFrequencyResponse, PlanResponse } from './schemas.js';

export type AmountKind = 'charges' | 'setupFees';

/**
 * The id of a plan frequency's amount, unique across all amounts and the same in
 * every response: frequency id × 10000, + 1000 for a setup fee, + the currency's
 * ISO 4217 numeric code (frequency 11's USD charge is 110840, its USD setup fee 111840).
 * The catalogue only accepts ISO 4217 currencies, so the code is always there.
 */
export function amountId(frequencyId: number, kind: AmountKind, currency: string): number {
  return frequencyId * 10000 + (kind === 'setupFees' ? 1000 : 0) + (findCurrency(currency)?.numericCode ?? 0);
}

function toAmountObjects(f: PlanFrequencyRow, kind: AmountKind, frequencyUri: string): AmountObject[] {
  return f[kind].map((a) => {
    const id = amountId(f.id, kind, a.currency);
    return { amount: toJsonAmount(a.amount), currency: a.currency, id, uri: `${frequencyUri}/${kind}/${id}` };
  });
}

export function toPlanFrequencyResponse(f: PlanFrequencyRow, subscriptions: number, uris: UriBuilder): PlanFrequencyResponse {
  const uri = uris.resource('planFrequencies', f.id);
  return {
    planRevisionId: f.planId,
    numberOfIntervals: f.numberOfIntervals,
    interval: f.interval,
    numberOfSubscriptions: subscriptions,
    status: f.status,
    setupFees: toAmountObjects(f, 'setupFees', uri),
    charges: toAmountObjects(f, 'charges', uri),
    isProrated: f.isProrated,
    prorationGranularity: f.prorationGranularity,
    planFrequencyUniqueId: f.id,
    // Plans here renew until cancelled: no fixed number of remaining intervals.
    remainingInterval: null,
    id: f.id,
    uri,
  };
}

/** Plans with their frequencies, in two queries whatever the page size. */
export async function toPlanResponses(db: Queryable, caller: Caller, uris: UriBuilder, plans: PlanRow[]): Promise<PlanResponse[]> {
  const frequencies = await findFrequenciesOfPlans(
    db,
    plans.map((p) => p.id),
  );
  const counts = await countSubscriptionsByFrequency(
    db,
    caller.accountId,
    frequencies.map((f) => f.id),
  );
  return plans.map((p) => ({
    code: p.code,
    name: p.name,
    reference: p.reference,
    description: p.description,
    longdescription: p.longDescription,
    status: p.status,
    modificationTimestamp: p.modifiedAt.toISOString(),
    planFrequencies: frequencies.filter((f) => f.planId === p.id).map((f) => toPlanFrequencyResponse(f, counts.get(f.id) ?? 0, uris)),
    planProducts: p.products.map((product) => ({
      code: product.code,
      name: product.name,
      description: product.description ?? null,
      quantity: product.quantity,
      ...(product.maxQuantity !== undefined ? { minQuantity: product.minQuantity ?? 1, maxQuantity: product.maxQuantity } : {}),
    })),
    autoApplyChanges: false,
    id: p.id,
    uri: uris.resource('Plans', p.id),
  }));
}

export async function getPlan(ctx: AppContext, caller: Caller, id: number): Promise<PlanResponse> {
  const plan = await findPlan(ctx.db, id);
  if (!plan) throw Refusal.notFound('plan', id);
  const [response] = await toPlanResponses(ctx.db, caller, ctx.uris, [plan]);
  if (!response) throw new Error('toPlanResponses answers one response per plan');
  return response;
}

/** A plan frequency as plans embed it (the catalogue is shared; the subscription count is the caller's). */
export async function getPlanFrequency(ctx: AppContext, caller: Caller, id: number): Promise<PlanFrequencyResponse> {
  const found = await findPlanFrequency(ctx.db, id);
  if (!found) throw Refusal.notFound('plan frequency', id);
  const counts = await countSubscriptionsByFrequency(ctx.db, caller.accountId, [id]);
  return toPlanFrequencyResponse(found.frequency, counts.get(id) ?? 0, ctx.uris);
}

/** One charge or setup fee of a plan frequency, as the frequency embeds it. */
export async function getPlanFrequencyAmount(ctx: AppContext, id: number, kind: AmountKind, amountIdGiven: number): Promise<AmountObject> {
  const found = await findPlanFrequency(ctx.db, id);
  if (!found) throw Refusal.notFound('plan frequency', id);
  const amount = toAmountObjects(found.frequency, kind, ctx.uris.resource('planFrequencies', id)).find((a) => a.id === amountIdGiven);
  if (!amount) throw Refusal.notFound(kind === 'charges' ? 'charge' : 'setup fee', amountIdGiven);
  return amount;
}
