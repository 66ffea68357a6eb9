import type { AppContext } from '../app-context.js';
import { findCustomerRow } from '../customers/repository.js';
import { findPendingCancellation } from '../lifecycle/period-end-cancellation-repository.js';
import { Refusal } from '../refusals/refusal.js';
import { changeSubscriptionPlan } from '../lifecycle/plan-change.js';
import { planChangeOptions, type AdjustableQuantity, type PlanChangeTarget } from '../lifecycle/plan-change-options.js';
import type { PlanChangeResponse } from '../lifecycle/schemas.js';
import { findPlanFrequency } from '../plans/repository.js';
import { findSubscriptionsOfCustomers } from '../subscriptions/repository.js';
import type { SubscriptionResponse } from '../subscriptions/schemas.js';
import { withdrawPendingChange } from '../subscriptions/service.js';
import { toSubscriptionResponses } from '../subscriptions/subscription-response.js';
import type { PortalSession } from './links.js';
import type { PortalPlanChangeInput } from './schemas.js';
import { ownSubscription, portalCaller, requireFullScope } from './service.js';

/*
 * The portal's "Change plan" and "Seats" (issue 28): what each Active subscription may change to, a change's preview,
 * applying it and withdrawing one scheduled, on the session's own customer, through POST /v1/subscriptions/{id}/changes'
 * and DELETE …/changes/pending's services (the same rules, refusals, events and audit; source `Portal`). The timing is
 * the catalogue's default: upgrades now, downgrades as planChanges.downgradeTiming says.
 */

/** A change scheduled for the period end, named for the customer. */
export interface PortalPendingChange {
  planFrequencyId: number;
  planName: string;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  quantities: Record<string, number>;
  effectiveDate: string;
}

/** What one Active subscription may change to. */
export interface PortalPlanChangeOptions {
  subscriptionId: number;
  name: string;
  planName: string;
  planFrequencyId: number;
  interval: 'Monthly' | 'Yearly';
  numberOfIntervals: number;
  currency: string;
  /** What a period costs now (before discounts and taxes), as the overview shows it. */
  amount: number;
  targets: PlanChangeTarget[];
  quantities: AdjustableQuantity[];
  pendingChange: PortalPendingChange | null;
}

/** The invoice a change posts (or would post), the same lines whether previewed or posted. */
export interface PortalChangeInvoice {
  /** null: a preview. */
  id: number | null;
  invoiceNumber: number | null;
  lines: Array<{
    chargeType: 'Recurring' | 'SetupFee' | 'Credit' | 'Purchase' | 'Usage';
    productCode: string;
    name: string;
    quantity: number;
    startServiceDate: string;
    endServiceDate: string;
    amount: number;
  }>;
  subtotal: number;
  totalDiscount: number;
  taxes: Array<{ name: string; rate: number; amount: number }>;
  totalTaxes: number;
  total: number;
  currency: string;
  effectiveDate: string;
}

/** A change previewed or made: the invoice now (null: nothing is charged now), the next renewal, the change scheduled. */
export interface PortalPlanChange {
  subscriptionId: number;
  timing: 'now' | 'periodEnd';
  planName: string;
  invoice: PortalChangeInvoice | null;
  nextRenewal: { date: string; amount: number };
  pendingChange: PortalPendingChange | null;
}

/**
 * The customer's Active subscriptions and what each may change to; none while the customer is not Active (a change would
 * be refused), and none for a subscription set to be cancelled (at once or at its period end): the change would bill a
 * period that is not coming. Withdrawing the cancellation offers it again.
 */
export async function listPortalPlanChanges(ctx: AppContext, session: PortalSession): Promise<PortalPlanChangeOptions[]> {
  const customer = await findCustomerRow(ctx.db, session.accountId, session.customerId);
  if (customer?.status !== 'Active') return [];
  const active = await findSubscriptionsOfCustomers(ctx.db, session.accountId, [session.customerId], ['Active']);
  const cancelling = await Promise.all(active.map((s) => findPendingCancellation(ctx.db, s.id)));
  const rows = active.filter((_, i) => !cancelling[i]);
  const responses = await toSubscriptionResponses(ctx.db, ctx.catalog, ctx.uris, rows);
  return Promise.all(
    responses.map(async (s, i) => {
      // toSubscriptionResponses answers one response per row, in order
      const row = rows[i];
      if (!row) throw new Error('toSubscriptionResponses answered more responses than rows');
      const options = await planChangeOptions(ctx, ctx.db, row);
      return {
        subscriptionId: s.id,
        name: s.subscriptionOverride.name ?? s.planName,
        planName: s.planName,
        planFrequencyId: row.planFrequencyId,
        interval: row.interval,
        numberOfIntervals: row.numberOfIntervals,
        currency: s.currency,
        amount: s.amount,
        targets: options.targets,
        quantities: options.quantities,
        pendingChange: await describePending(ctx, s.pendingChange),
      };
    }),
  );
}

/** What the change would do (nothing is changed). */
export function previewPortalPlanChange(
  ctx: AppContext,
  session: PortalSession,
  subscriptionId: number,
  input: PortalPlanChangeInput,
): Promise<PortalPlanChange> {
  return portalPlanChange(ctx, session, subscriptionId, input, true);
}

/**
 * Makes the change: now (one invoice posted and collected) or scheduled for the period end. A lost answer's retry never
 * charges twice: a change made now is refused as changing nothing (400 planFrequencyId); a scheduled one replaces itself.
 */
export function applyPortalPlanChange(
  ctx: AppContext,
  session: PortalSession,
  subscriptionId: number,
  input: PortalPlanChangeInput,
): Promise<PortalPlanChange> {
  return portalPlanChange(ctx, session, subscriptionId, input, false);
}

/** The customer's own subscription, from a full session, through the API's plan change as the portal's caller. */
async function portalPlanChange(
  ctx: AppContext,
  session: PortalSession,
  subscriptionId: number,
  input: PortalPlanChangeInput,
  preview: boolean,
): Promise<PortalPlanChange> {
  requireFullScope(session, 'change a plan');
  await ownSubscription(ctx, session, subscriptionId);
  if (await findPendingCancellation(ctx.db, subscriptionId))
    throw Refusal.conflict(
      'this subscription is set to be cancelled: keep it first, then change its plan',
      'subscriptionId',
      'state_conflict',
    );
  const answer = await changeSubscriptionPlan(ctx, portalCaller(ctx, session), subscriptionId, { ...input, preview });
  return toPortalPlanChange(ctx, answer);
}

/** Withdraws the change scheduled for the period end (404 keyed id when none is pending), and answers the subscription's options. */
export async function withdrawPortalPlanChange(
  ctx: AppContext,
  session: PortalSession,
  subscriptionId: number,
): Promise<PortalPlanChangeOptions[]> {
  requireFullScope(session, 'change a plan');
  await ownSubscription(ctx, session, subscriptionId);
  await withdrawPendingChange(ctx, portalCaller(ctx, session), subscriptionId);
  return listPortalPlanChanges(ctx, session);
}

async function describePending(ctx: AppContext, pending: SubscriptionResponse['pendingChange']): Promise<PortalPendingChange | null> {
  if (!pending) return null;
  const target = await findPlanFrequency(ctx.db, pending.planFrequencyId);
  return {
    planFrequencyId: pending.planFrequencyId,
    planName: target?.plan.name ?? '',
    interval: target?.frequency.interval ?? 'Monthly',
    numberOfIntervals: target?.frequency.numberOfIntervals ?? 1,
    quantities: pending.quantities,
    effectiveDate: pending.effectiveDate,
  };
}

async function toPortalPlanChange(ctx: AppContext, answer: PlanChangeResponse): Promise<PortalPlanChange> {
  const { subscription, invoice, nextRenewal } = answer;
  const pendingChange = await describePending(ctx, subscription.pendingChange);
  return {
    subscriptionId: subscription.id,
    timing: invoice ? 'now' : 'periodEnd',
    planName: pendingChange?.planName ?? subscription.planName,
    invoice: invoice ? toPortalInvoice(invoice) : null,
    nextRenewal,
    pendingChange,
  };
}

/** The preview's shape and the posted invoice's, as one: what the customer is shown before is line by line what is posted. */
function toPortalInvoice(invoice: NonNullable<PlanChangeResponse['invoice']>): PortalChangeInvoice {
  const posted = 'charges' in invoice ? invoice : null;
  return {
    id: posted?.id ?? null,
    invoiceNumber: posted?.invoiceNumber ?? null,
    lines: ('charges' in invoice ? invoice.charges : invoice.draftCharges).map((c) => ({
      chargeType: c.chargeType,
      productCode: c.productCode,
      name: c.name,
      quantity: c.quantity,
      startServiceDate: c.startServiceDate,
      endServiceDate: c.endServiceDate,
      amount: c.amount,
    })),
    subtotal: invoice.subtotal,
    totalDiscount: invoice.totalDiscount,
    taxes: 'charges' in invoice ? invoice.taxes : invoice.draftTaxes,
    totalTaxes: invoice.totalTaxes,
    total: 'charges' in invoice ? invoice.invoiceAmount : invoice.total,
    currency: invoice.currency,
    effectiveDate: invoice.effectiveTimestamp.slice(0, 10),
  };
}
