import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../http/context.js';
import { ApiError } from '../http/errors.js';
import type { UriBuilder } from '../http/uri.js';
import { toJsonAmount } from '../money/money.js';
import { countSubscriptionsByFrequency, findFrequenciesOfPlans, findPlan, type PlanFrequencyRow, type PlanRow } from './repository.js';
import type { PlanFrequencyResponse, PlanResponse } from './schemas.js';

export function toPlanFrequencyResponse(f: PlanFrequencyRow, subscriptions: number, uris: UriBuilder): PlanFrequencyResponse {
  const uri = uris.resource('planFrequencies', f.id);
  const amounts = (list: PlanFrequencyRow['charges'], kind: string) =>
    list.map((a, i) => ({ amount: toJsonAmount(a.amount), currency: a.currency, id: i + 1, uri: `${uri}/${kind}/${i + 1}` }));
  return {
    planRevisionId: f.planId,
    numberOfIntervals: f.numberOfIntervals,
    interval: f.interval,
    numberOfSubscriptions: subscriptions,
    status: f.status,
    setupFees: amounts(f.setupFees, 'setupFees'),
    charges: amounts(f.charges, 'charges'),
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
  const frequencies = await findFrequenciesOfPlans(db, plans.map((p) => p.id));
  const counts = await countSubscriptionsByFrequency(db, caller.accountId, frequencies.map((f) => f.id));
  return plans.map((p) => ({
    code: p.code,
    name: p.name,
    reference: p.reference,
    description: p.description,
    longdescription: p.longDescription,
    status: p.status,
    modificationTimestamp: p.modifiedAt.toISOString(),
    planFrequencies: frequencies.filter((f) => f.planId === p.id).map((f) => toPlanFrequencyResponse(f, counts.get(f.id) ?? 0, uris)),
    planProducts: p.products.map((product) => ({ code: product.code, name: product.name, description: product.description ?? null, quantity: product.quantity })),
    autoApplyChanges: false,
    id: p.id,
    uri: uris.resource('Plans', p.id),
  }));
}

export async function getPlan(ctx: AppContext, caller: Caller, id: number): Promise<PlanResponse> {
  const plan = await findPlan(ctx.db, id);
  if (!plan) throw ApiError.notFound('plan', id);
  const [response] = await toPlanResponses(ctx.db, caller, ctx.uris, [plan]);
  return response!;
}
