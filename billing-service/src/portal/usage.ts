import type { AppContext } from '../app-context.js';
import { findSubscriptionsOfCustomers } from '../subscriptions/repository.js';
import type { SubscriptionUsageResponse } from '../usage/schemas.js';
import { getSubscriptionUsage } from '../usage/service.js';
import type { PortalSession } from './links.js';
import { ownSubscription, portalCaller } from './service.js';

/** A subscription's usage this period, as the portal shows it: the API's own answer. */
export type PortalSubscriptionUsage = SubscriptionUsageResponse;

/** The subscriptions usage events are counted for (what POST /v1/usageEvents takes events for). */
const METERED_STATUSES = ['Active', 'Suspended'] as const;

/**
 * The overview's "Used so far this period" (issue 41): each of the session's customer's live subscriptions whose plan
 * charges usage, as GET /v1/subscriptions/{id}/usage answers it; a subscription without usage charges is left out.
 */
export async function listPortalUsage(ctx: AppContext, session: PortalSession): Promise<SubscriptionUsageResponse[]> {
  const rows = await findSubscriptionsOfCustomers(ctx.db, session.accountId, [session.customerId], METERED_STATUSES);
  const caller = portalCaller(ctx, session);
  const usage = await Promise.all(rows.map((row) => getSubscriptionUsage(ctx, caller, row.id)));
  return usage.filter((u) => u.metrics.length > 0);
}

/** One of the customer's own subscriptions' usage this period; another customer's subscription is not found (404). */
export async function getPortalSubscriptionUsage(
  ctx: AppContext,
  session: PortalSession,
  subscriptionId: number,
): Promise<SubscriptionUsageResponse> {
  const subscription = await ownSubscription(ctx, session, subscriptionId);
  return getSubscriptionUsage(ctx, portalCaller(ctx, session), subscription.id);
}
